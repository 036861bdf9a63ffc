/**
 * Validation rules that a JSON Schema cannot state, one function per rule, and the
 * compiled item validators of batch routes (same schemas as the single routes).
 * Each function throws ServiceError INVALID_REQUEST (400) with a message naming the
 * field and the rule, unless stated otherwise.
 */
import AjvModule, { type ErrorObject } from 'ajv';
import sharp from 'sharp';
import { ServiceError, invalid } from '../lib/errors.ts';

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

/**
 * Rules: the template is an object (or a JSON string of one), at most 8,000
 * characters, and each leaf is one of the spec's leaf types.
 * @returns the template as an object
 */
export function parseTemplate(template: unknown, field = 'template'): Record<string, unknown> {
  let t = template;
  if (typeof t === 'string') {
    if ([...t].length > MAX_TEMPLATE_CHARS) throw invalid(`${field} must be at most ${MAX_TEMPLATE_CHARS} characters`);
    try { t = JSON.parse(t); } catch { throw invalid(`${field} is a string but not valid JSON`); }
  }
  if (typeof t !== 'object' || t === null || Array.isArray(t)) throw invalid(`${field} must be a JSON object (or a JSON string of one)`);
  if ([...JSON.stringify(t)].length > MAX_TEMPLATE_CHARS) throw invalid(`${field} must be at most ${MAX_TEMPLATE_CHARS} characters`);
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
    for (const [k, v] of entries) checkTemplateNode(v, `${path}.${k}`);
    return;
  }
  throw invalid(`${path} must be a leaf type string, a list or an object`);
}

/** Largest image, bytes after base64 decoding (spec: 10 MB). */
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;
/** Longest side of an image sent to the extraction model, pixels ("large photos are scaled down automatically"). */
export const MAX_IMAGE_SIDE = 2048;

/**
 * Rules: the image is base64 or a data URL (links are not fetched), at most 10 MB,
 * and a JPEG or PNG (checked by decoding its header with sharp). Larger photos are
 * scaled down to {@link MAX_IMAGE_SIDE} pixels on the longest side.
 * @returns the image bytes to send on
 */
export async function decodeImage(image: string, field = 'image'): Promise<Buffer> {
  let b64 = image.trim();
  if (/^https?:\/\//i.test(b64)) throw invalid(`${field} must be base64 or a data URL; image links are not fetched`);
  const m = /^data:([^;,]+)?(;base64)?,/i.exec(b64);
  if (m) {
    if (!m[2]) throw invalid(`${field} data URL must be base64-encoded`);
    b64 = b64.slice(m[0].length);
  }
  if (!/^[A-Za-z0-9+/_\-\s]*={0,2}\s*$/.test(b64)) throw invalid(`${field} is not valid base64`);
  const bytes = Buffer.from(b64, 'base64');
  if (bytes.length === 0) throw invalid(`${field} is empty`);
  if (bytes.length > MAX_IMAGE_BYTES) throw invalid(`${field} is ${bytes.length} bytes, over the limit of ${MAX_IMAGE_BYTES} bytes (10 MB)`);
  let meta: sharp.Metadata;
  try { meta = await sharp(bytes).metadata(); } catch { throw invalid(`${field} is not a readable image`); }
  if (meta.format !== 'jpeg' && meta.format !== 'png') throw invalid(`${field} must be a JPEG or PNG, not ${meta.format ?? 'unknown'}`);
  if ((meta.width ?? 0) <= MAX_IMAGE_SIDE && (meta.height ?? 0) <= MAX_IMAGE_SIDE) return bytes;
  const resized = sharp(bytes).rotate().resize({ width: MAX_IMAGE_SIDE, height: MAX_IMAGE_SIDE, fit: 'inside', withoutEnlargement: true });
  return meta.format === 'png' ? resized.png().toBuffer() : resized.jpeg({ quality: 90 }).toBuffer();
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
