/**
 * Validation rules that a JSON Schema cannot state, one function per rule, and the
 * compiled item validators of batch routes (same schemas as the single routes).
 * Each function throws ServiceError INVALID_REQUEST (400) with a message naming the
 * field and the rule, unless stated otherwise.
 */
import AjvModule, { type ErrorObject } from 'ajv';
import { ServiceError, invalid } from '../lib/errors.ts';

/**
 * Characters (Unicode code points) of a string, as JSON Schema `maxLength` counts them
 * and as diacritization bills them, without building an array of them.
 */
export function codePointLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) { n--; i++; }
    }
  }
  return n;
}

/** Maximum decision context, tokens (spec, Limits). */
export const MAX_CONTEXT_TOKENS = 32_000;
/**
 * Bytes per token of the estimate used while the decision model's tokenizer is not
 * installed: ceil(UTF-8 bytes / 4). Byte-level BPE tokenizers average about 4 bytes
 * per token on English and fewer on other scripts, where the UTF-8 byte count grows
 * with them, so the estimate tracks both.
 */
export const BYTES_PER_TOKEN = 4;

/** Estimated tokens of a decision state (JSON text of an object or array, the string itself otherwise). */
export function estimateTokens(state: unknown): number {
  const text = typeof state === 'string' ? state : JSON.stringify(state);
  return Math.ceil(Buffer.byteLength(text, 'utf8') / BYTES_PER_TOKEN);
}

/**
 * Rule: a decision state is at most {@link MAX_CONTEXT_TOKENS} tokens and is never truncated.
 * @throws ServiceError CONTEXT_TOO_LONG (413)
 */
export function checkContextLength(state: unknown, field = 'state'): void {
  const tokens = estimateTokens(state);
  if (tokens > MAX_CONTEXT_TOKENS) {
    throw new ServiceError('CONTEXT_TOO_LONG', `${field} is about ${tokens} tokens, over the maximum context length of ${MAX_CONTEXT_TOKENS} tokens; it is not truncated`);
  }
}

/** Rule: a string state has a non-space character. */
export function checkStateNotBlank(state: unknown, field = 'state'): void {
  if (typeof state === 'string' && state.trim().length === 0) throw invalid(`${field} must not be empty`);
}

/** Maximum template size, characters of its JSON text (spec). */
export const MAX_TEMPLATE_CHARS = 8000;
const LEAVES = new Set(['verbatim-string', 'string', 'number', 'integer', 'date', 'date-time', 'boolean']);
/** C0 and C1 control characters and DEL: refused in template keys and options. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;

/**
 * Rules: the template is an object (or a JSON string of one), at most 8,000
 * characters, and each leaf is one of the spec's leaf types.
 * @returns the template as an object
 */
export function parseTemplate(template: unknown, field = 'template'): Record<string, unknown> {
  let t = template;
  if (typeof t === 'string') {
    if (codePointLength(t) > MAX_TEMPLATE_CHARS) throw invalid(`${field} must be at most ${MAX_TEMPLATE_CHARS} characters`);
    try { t = JSON.parse(t); } catch { throw invalid(`${field} is a string but not valid JSON`); }
  }
  if (typeof t !== 'object' || t === null || Array.isArray(t)) throw invalid(`${field} must be a JSON object (or a JSON string of one)`);
  if (codePointLength(JSON.stringify(t)) > MAX_TEMPLATE_CHARS) throw invalid(`${field} must be at most ${MAX_TEMPLATE_CHARS} characters`);
  if (Object.keys(t).length === 0) throw invalid(`${field} must have at least one field`);
  checkTemplateNode(t, field);
  return t as Record<string, unknown>;
}

function checkTemplateNode(node: unknown, path: string): void {
  if (typeof node === 'string') {
    if (!LEAVES.has(node)) throw invalid(`${path} has unknown leaf type "${node}" (allowed: ${[...LEAVES].join(', ')}, a list of options, or a nested object or list)`);
    return;
  }
  if (Array.isArray(node)) {
    if (node.length === 0) throw invalid(`${path} must not be an empty list`);
    for (const o of node.flat()) if (typeof o === 'string' && CONTROL.test(o)) throw invalid(`${path} has an option with a control character`);
    if (node.length === 1 && Array.isArray(node[0])) {
      const opts = node[0] as unknown[];
      if (opts.length < 1 || !opts.every((o) => typeof o === 'string')) throw invalid(`${path} multi-choice list must hold option strings`);
      return;
    }
    if (node.length === 1 && typeof node[0] === 'object' && node[0] !== null) { checkTemplateNode(node[0], `${path}[0]`); return; }
    if (node.length === 1 && node[0] === 'string') return;
    if (node.every((o) => typeof o === 'string')) {
      if (node.length < 2) throw invalid(`${path} choice list needs at least 2 options`);
      return;
    }
    throw invalid(`${path} must be a list of options, [[options]], ["string"] or [ {object} ]`);
  }
  if (typeof node === 'object' && node !== null) {
    const entries = Object.entries(node);
    if (entries.length === 0) throw invalid(`${path} must not be an empty object`);
    for (const [k, v] of entries) {
      // keys and options become grammar rules (GBNF): a NUL cut the grammar short and failed the worker's whole micro-batch
      if (CONTROL.test(k)) throw invalid(`${path} has a key with a control character`);
      checkTemplateNode(v, `${path}.${k}`);
    }
    return;
  }
  throw invalid(`${path} must be a leaf type string, a list or an object`);
}

const Ajv = AjvModule.default ?? AjvModule;
const ajv = new Ajv({ coerceTypes: false, useDefaults: true, removeAdditional: false, allErrors: false, strict: false });

/** Message of ajv errors: "<prefix><path> <message>". */
export function ajvMessage(errors: ErrorObject[] | null | undefined, prefix: string): string {
  return (errors ?? []).map((e) => `${prefix}${e.instancePath} ${e.message ?? 'is invalid'}`).join(', ');
}

/**
 * Compiles a validator for batch items from the single route's body schema.
 * @returns a function that throws INVALID_REQUEST with the item's field path
 */
export function itemValidator(schema: object): (item: unknown, prefix: string) => void {
  const validate = ajv.compile(schema);
  return (item, prefix) => {
    if (!validate(item)) throw invalid(ajvMessage(validate.errors, prefix));
  };
}
