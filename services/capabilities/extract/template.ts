/**
 * An extraction template (spec: "Template leaf types") as the JSON Schema whose grammar
 * constrains generation (node-llama-cpp's GBNF JSON-Schema subset), and the checks that
 * make the model's output follow the template exactly: every leaf may be null (a missing
 * value), lists may be empty, objects have exactly the template's keys.
 *
 * | leaf | schema |
 * |---|---|
 * | "verbatim-string", "string" | string (at most `maxValueChars`) or null |
 * | "number" / "integer" | number / integer or null |
 * | "date" / "date-time" | string of format date (YYYY-MM-DD) / date-time, or null |
 * | "boolean" | true, false or null |
 * | ["a", "b", …] | one of the options, or null |
 * | [["a", "b", …]] | a list of distinct options |
 * | ["string"] | a list of strings (at most `maxListItems`) |
 * | [ {…} ] | a list of objects following the nested template |
 * | {…} | an object with every key of the nested template |
 */

/** A JSON Schema of the subset node-llama-cpp's grammar supports. */
export type Schema = Record<string, unknown>;

/** Bounds that keep every generated value finite. */
export interface TemplateLimits {
  /** longest string value, characters */
  maxValueChars: number;
  /** most items of a list */
  maxListItems: number;
}

/** What a leaf of the template is. */
export type Leaf =
  | { kind: 'verbatim-string' | 'string' | 'number' | 'integer' | 'date' | 'date-time' | 'boolean' }
  | { kind: 'one-of'; options: string[] }
  | { kind: 'any-of'; options: string[] }
  | { kind: 'strings' };

/**
 * The kind of a template node: a leaf, a list of objects, or an object.
 * @throws Error for a node that is none of the spec's forms (the gateway checked the template, so this is a bug or a forged event)
 */
export function nodeKind(node: unknown): Leaf | { kind: 'objects'; item: Record<string, unknown> } | { kind: 'object'; fields: Record<string, unknown> } {
  if (typeof node === 'string') {
    if (['verbatim-string', 'string', 'number', 'integer', 'date', 'date-time', 'boolean'].includes(node)) return { kind: node as 'string' };
  } else if (Array.isArray(node)) {
    if (node.length === 1 && Array.isArray(node[0])) return { kind: 'any-of', options: (node[0] as unknown[]).map(String) };
    if (node.length === 1 && node[0] === 'string') return { kind: 'strings' };
    if (node.length === 1 && typeof node[0] === 'object' && node[0] !== null) return { kind: 'objects', item: node[0] as Record<string, unknown> };
    if (node.length >= 2 && node.every((o) => typeof o === 'string')) return { kind: 'one-of', options: node as string[] };
  } else if (typeof node === 'object' && node !== null) {
    return { kind: 'object', fields: node as Record<string, unknown> };
  }
  throw new Error(`not a template node: ${JSON.stringify(node)?.slice(0, 100)}`);
}

/** The grammar's JSON Schema of a template node (see the module comment). */
export function templateSchema(node: unknown, limits: TemplateLimits): Schema {
  const k = nodeKind(node);
  const str = { type: 'string', maxLength: limits.maxValueChars };
  switch (k.kind) {
    case 'verbatim-string': case 'string': return { oneOf: [str, { type: 'null' }] };
    case 'number': return { type: ['number', 'null'] };
    case 'integer': return { type: ['integer', 'null'] };
    case 'boolean': return { type: ['boolean', 'null'] };
    case 'date': case 'date-time': return { oneOf: [{ type: 'string', format: k.kind }, { type: 'null' }] };
    case 'one-of': return { enum: [...k.options, null] };
    case 'any-of': return { type: 'array', items: { enum: k.options }, maxItems: k.options.length };
    case 'strings': return { type: 'array', items: str, maxItems: limits.maxListItems };
    case 'objects': return { type: 'array', items: templateSchema(k.item, limits), maxItems: limits.maxListItems };
    case 'object': {
      const properties = Object.fromEntries(Object.entries(k.fields).map(([key, v]) => [key, templateSchema(v, limits)]));
      return { type: 'object', properties, required: Object.keys(properties), additionalProperties: false };
    }
  }
}

/** Text compared for the verbatim check: NFC, whitespace runs as one space, trimmed. */
export const normaliseForMatch = (s: string): string => s.normalize('NFC').replace(/\s+/gu, ' ').trim();

/** Whether a date string is a real calendar date (YYYY-MM-DD; the grammar checks only its form). */
export function isCalendarDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(s);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}
