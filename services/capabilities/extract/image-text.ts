/**
 * The cheap rules of an extraction image's text, checked on the event loop at admission,
 * before the route's model is looked up (so an image that can never be one is a 400
 * whatever models are installed) and before any image thread is asked: a link (the spec:
 * images are not fetched), a data URL that is not base64, and a payload whose first
 * bytes are not a JPEG or PNG signature. Each costs time independent of the image's size:
 * only the first {@link SNIFF_CHARS} characters of the payload are looked at. The image
 * threads (./image-decode.ts) apply the same rules, then the rest: the whole payload is
 * base64, its size, the pixels its header declares, and that it decodes.
 *
 * Signatures: JPEG starts with the SOI marker and a marker byte, FF D8 FF (ITU-T T.81,
 * annex B); PNG with its 8-byte signature 89 50 4E 47 0D 0A 1A 0A (ISO/IEC 15948, 5.2).
 */

/** Characters of the payload's start that are decoded to read its signature (16 characters = 12 bytes). */
export const SNIFF_CHARS = 16;
const JPEG = Buffer.from([0xff, 0xd8, 0xff]);
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const DATA_URL = /^data:([^;,]{0,100})?(;base64)?,/i;
const BASE64_CHARS = /^[A-Za-z0-9+/_\-]*={0,2}$/;

/** An image's base64 payload, or why its text is refused (a 400 message naming the field). */
export type ImagePayload = { ok: true; base64: string } | { ok: false; error: string };

/**
 * The base64 payload of an image's text (a data URL's prefix taken off, surrounding space
 * trimmed), or why the text cannot be an image: a link, or a data URL that is not base64.
 * @param field the field's path for messages, e.g. `documents[3].image`
 */
export function imagePayload(image: string, field: string): ImagePayload {
  const text = image.trim();
  if (/^https?:\/\//i.test(text)) return { ok: false, error: `${field} must be base64 or a data URL; image links are not fetched` };
  const m = DATA_URL.exec(text);
  if (!m) return { ok: true, base64: text };
  if (!m[2]) return { ok: false, error: `${field} data URL must be base64-encoded` };
  return { ok: true, base64: text.slice(m[0].length) };
}

/**
 * Why an image's text is refused by the cheap rules of the module comment, or null.
 * @param field the field's path for messages
 */
export function imageTextError(image: string, field: string): string | null {
  const p = imagePayload(image, field);
  if (!p.ok) return p.error;
  // the payload's start without the line breaks MIME base64 puts in it
  let head = '';
  for (let i = 0; i < p.base64.length && head.length < SNIFF_CHARS; i++) {
    const c = p.base64[i]!;
    if (c !== '\n' && c !== '\r' && c !== ' ' && c !== '\t') head += c;
  }
  if (head.length === 0) return `${field} is empty`;
  if (!BASE64_CHARS.test(head)) return `${field} is not valid base64`;
  const bytes = Buffer.from(head, 'base64');
  const starts = (sig: Buffer) => bytes.length >= sig.length && bytes.subarray(0, sig.length).equals(sig);
  if (!starts(JPEG) && !starts(PNG)) return `${field} must be a JPEG or PNG; its first bytes are neither signature`;
  return null;
}
