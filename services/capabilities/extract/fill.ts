/**
 * The extraction answer from a generation: `data` (the template filled in) and
 * `confidence` (the same shape: a number per leaf value, a list per list, an empty list
 * for an empty list; spec: "An empty list has no confidence").
 *
 * A leaf's confidence is the probability of the tokens that wrote its value (the product
 * over the tokens overlapping the value's characters in the generated JSON, located with
 * jsonc-parser), calibrated by a temperature: c^(1/T) (config.json `calibration.field`;
 * temperature scaling of the value's log-probability, Guo et al. 2017). Values the
 * grammar cannot rule out but the template does are set to null with confidence 0: a
 * `verbatim-string` not found in the document (text and OCR text, compared after NFC and
 * whitespace folding), an `integer` that is not one, a `date` that is not a calendar date.
 */
import { findNodeAtLocation, parseTree, type Node } from 'jsonc-parser';
import { spanProbability, type GeneratedToken } from '../../llm/generate.ts';
import { isCalendarDate, nodeKind, normaliseForMatch } from './template.ts';

/** The filled template and its confidence tree. */
export interface Filled { data: unknown; confidence: unknown; }

/**
 * Builds the answer (see the module comment).
 * @param text the generated JSON text
 * @param tokens the generated tokens with their probabilities and character spans
 * @param document the document's text (text and OCR text), for the verbatim check
 * @param temperature calibration temperature of field confidences (> 0)
 * @throws Error when `text` is not JSON (a generation cut short)
 */
export function fillTemplate(template: Record<string, unknown>, text: string, tokens: readonly GeneratedToken[], document: string, temperature = 1): Filled {
  const value = JSON.parse(text) as unknown;
  const root = parseTree(text);
  const doc = normaliseForMatch(document);
  const leafConfidence = (path: Array<string | number>): number => {
    const node: Node | undefined = root && findNodeAtLocation(root, path);
    if (!node) return 0;
    return Math.pow(spanProbability(tokens, node.offset, node.offset + node.length), 1 / temperature);
  };
  const walk = (t: unknown, v: unknown, path: Array<string | number>): Filled => {
    const k = nodeKind(t);
    switch (k.kind) {
      case 'object': {
        const data: Record<string, unknown> = {}, confidence: Record<string, unknown> = {};
        const obj = (typeof v === 'object' && v !== null && !Array.isArray(v) ? v : {}) as Record<string, unknown>;
        for (const [key, child] of Object.entries(k.fields)) {
          const f = walk(child, obj[key], [...path, key]);
          data[key] = f.data;
          confidence[key] = f.confidence;
        }
        return { data, confidence };
      }
      case 'objects': case 'strings': case 'any-of': {
        const items = Array.isArray(v) ? v : [];
        const seen = new Set<unknown>();
        const out: Filled = { data: [], confidence: [] };
        items.forEach((item, i) => {
          if (k.kind === 'any-of') {
            if (seen.has(item) || !k.options.includes(item as string)) return;
            seen.add(item);
          }
          const f = k.kind === 'objects' ? walk(k.item, item, [...path, i]) : { data: item, confidence: leafConfidence([...path, i]) };
          (out.data as unknown[]).push(f.data);
          (out.confidence as unknown[]).push(f.confidence);
        });
        return out;
      }
      default: {
        if (v === undefined) return { data: null, confidence: 0 };
        const refused = v !== null && (
          (k.kind === 'verbatim-string' && !doc.includes(normaliseForMatch(String(v))))
          || (k.kind === 'integer' && !Number.isInteger(v))
          || ((k.kind === 'date' || k.kind === 'date-time') && !isCalendarDate(String(v)))
          || (k.kind === 'one-of' && !k.options.includes(v as string)));
        return refused ? { data: null, confidence: 0 } : { data: v, confidence: leafConfidence(path) };
      }
    }
  };
  return walk(template, value, []);
}
