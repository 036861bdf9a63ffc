/**
 * Scoring extraction answers against a labelled set (eval/extraction.jsonl,
 * scripts/extract-set.ts), shared by `npm run eval:generative` and `npm run calibrate`:
 * field-level counts for precision, recall and F1, and each predicted value's confidence
 * with whether it is right (for calibration).
 *
 * Rules: a leaf counts as predicted when not null and as gold when its label is not null;
 * a predicted value is right when it equals the label (numbers within 1e-6; `string`
 * leaves compared case-insensitively after NFC and whitespace folding; `verbatim-string`
 * and the rest exactly, after whitespace folding). Lists of values are compared as
 * multisets; lists of objects item by item in order (an extra or missing item counts its
 * leaves as wrong or missed).
 */
import { readFileSync } from 'node:fs';
import { createEngine } from '../services/capabilities/extract/backends/llama-extract.ts';
import { nodeKind, normaliseForMatch } from '../services/capabilities/extract/template.ts';
import type { LabelledDocument } from './extract-set.ts';

/** Field-level counts and the confidences of predicted values. */
export interface FieldScores {
  tp: number; fp: number; fn: number;
  /** each predicted (non-null) value: its confidence and whether it is right */
  predicted: Array<{ confidence: number; correct: boolean }>;
}

/** An empty tally. */
export const emptyScores = (): FieldScores => ({ tp: 0, fp: 0, fn: 0, predicted: [] });

function same(kind: string, gold: unknown, value: unknown): boolean {
  if (typeof gold === 'number' && typeof value === 'number') return Math.abs(gold - value) < 1e-6;
  if (typeof gold === 'string' && typeof value === 'string') {
    const g = normaliseForMatch(gold), v = normaliseForMatch(value);
    return kind === 'string' ? g.toLowerCase() === v.toLowerCase() : g === v;
  }
  return gold === value;
}

/**
 * Adds the scores of one answer to `into`.
 * @param confidence the answer's confidence tree (same shape as `data`)
 */
export function scoreFields(template: unknown, gold: unknown, data: unknown, confidence: unknown, into: FieldScores = emptyScores()): FieldScores {
  const k = nodeKind(template);
  switch (k.kind) {
    case 'object': {
      for (const key of Object.keys(k.fields)) {
        const sub = (x: unknown) => (typeof x === 'object' && x !== null ? (x as Record<string, unknown>)[key] : undefined);
        scoreFields(k.fields[key], sub(gold) ?? null, sub(data) ?? null, sub(confidence) ?? 0, into);
      }
      return into;
    }
    case 'objects': {
      const g = Array.isArray(gold) ? gold : [], d = Array.isArray(data) ? data : [], c = Array.isArray(confidence) ? confidence : [];
      for (let i = 0; i < Math.max(g.length, d.length); i++) scoreFields(k.item, g[i] ?? nullTree(k.item), d[i] ?? nullTree(k.item), c[i] ?? 0, into);
      return into;
    }
    case 'strings': case 'any-of': {
      const left = [...(Array.isArray(gold) ? gold : [])];
      const d = Array.isArray(data) ? data : [], c = Array.isArray(confidence) ? confidence : [];
      d.forEach((v, i) => {
        const at = left.findIndex((g) => same(k.kind === 'strings' ? 'string' : 'exact', g, v));
        if (at >= 0) left.splice(at, 1);
        if (at >= 0) into.tp++; else into.fp++;
        into.predicted.push({ confidence: Number(c[i] ?? 0), correct: at >= 0 });
      });
      into.fn += left.length;
      return into;
    }
    default: {
      const right = data !== null && gold !== null && same(k.kind, gold, data);
      if (data !== null) {
        if (right) into.tp++; else into.fp++;
        into.predicted.push({ confidence: Number(confidence ?? 0), correct: right });
      }
      if (gold !== null && !right) into.fn++;
      return into;
    }
  }
}

/** A template's shape with every leaf null and every list empty (an item one side lacks). */
function nullTree(template: unknown): unknown {
  const k = nodeKind(template);
  if (k.kind === 'object') return Object.fromEntries(Object.entries(k.fields).map(([key, v]) => [key, nullTree(v)]));
  if (k.kind === 'objects' || k.kind === 'strings' || k.kind === 'any-of') return [];
  return null;
}

/** Precision, recall and F1 (in [0, 1]) of a tally. */
export function prf(s: Pick<FieldScores, 'tp' | 'fp' | 'fn'>): { precision: number; recall: number; f1: number } {
  const precision = s.tp + s.fp > 0 ? s.tp / (s.tp + s.fp) : 0;
  const recall = s.tp + s.fn > 0 ? s.tp / (s.tp + s.fn) : 0;
  return { precision, recall, f1: precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0 };
}

/** The answers of a model to every document of a set, through the extraction engine (4 documents per call). */
export async function answerSet(repository: string, model: string, docs: readonly LabelledDocument[], threads = 1): Promise<Array<{ doc: LabelledDocument; data: unknown; confidence: unknown; failed: string | null }>> {
  const engine = createEngine({ repository, executionProvider: 'cpu', intraOpThreads: threads });
  const out: Array<{ doc: LabelledDocument; data: unknown; confidence: unknown; failed: string | null }> = [];
  try {
    for (let i = 0; i < docs.length; i += 4) {
      const batch = docs.slice(i, i + 4);
      const rs = await engine.run(model, batch.map((d) => ({ model, template: JSON.stringify(d.template), text: d.text, image: null, instructions: d.instructions })));
      rs.forEach((r, k) => out.push(r.output
        ? { doc: batch[k]!, data: JSON.parse(r.output.data), confidence: JSON.parse(r.output.confidence), failed: null }
        : { doc: batch[k]!, data: null, confidence: null, failed: r.failure!.error }));
    }
  } finally {
    await engine.unload(model);
  }
  return out;
}

/** Reads a labelled extraction set (JSON lines). @throws Error naming a line that is not JSON */
export function readExtractionSet(file: string): LabelledDocument[] {
  return readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((line, i) => {
    try { return JSON.parse(line) as LabelledDocument; } catch { throw new Error(`${file}:${i + 1}: not JSON`); }
  });
}
