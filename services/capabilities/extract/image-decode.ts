/**
 * Checks and decodes one extraction image. It runs in an image thread (piscina; see
 * ./images.ts), never on the thread that serves HTTP: checking the base64
 * text, decoding it and resizing with sharp take tens of milliseconds to seconds.
 *
 * Rules, each refused with a message naming the field: base64 or a base64 data URL
 * (links are not fetched; ./image-text.ts, whose cheap rules the gateway has already
 * checked at admission), at most {@link FIELD_LIMITS.imageBytes} bytes decoded, a JPEG
 * or PNG by its header, at most {@link MAX_IMAGE_PIXELS} pixels as the header declares
 * them (checked before any pixel is decoded), and an image that decodes. A side longer
 * than {@link MAX_IMAGE_SIDE} pixels is scaled down.
 */
import sharp from 'sharp';
import { FIELD_LIMITS, MAX_IMAGE_PIXELS } from '../../route-kit/limits.ts';
import { imagePayload } from './image-text.ts';

/** Longest side of an image sent to the extraction model, pixels ("large photos are scaled down automatically"). */
export const MAX_IMAGE_SIDE = 2048;

/** A task of the image threads. */
export interface ImageTask { image: string; field: string; }
/** Its outcome: the bytes to send on, or why the image is refused (a 400 message). */
export type ImageOutcome = { ok: true; bytes: Uint8Array } | { ok: false; error: string };

/** See the module comment. Never throws: a refusal is an outcome. */
export async function decodeImageTask({ image, field }: ImageTask): Promise<ImageOutcome> {
  const refuse = (error: string): ImageOutcome => ({ ok: false, error });
  const payload = imagePayload(image, field);
  if (!payload.ok) return refuse(payload.error);
  const b64 = payload.base64;
  if (!/^[A-Za-z0-9+/_\-\s]*={0,2}\s*$/.test(b64)) return refuse(`${field} is not valid base64`);
  const bytes = Buffer.from(b64, 'base64');
  if (bytes.length === 0) return refuse(`${field} is empty`);
  if (bytes.length > FIELD_LIMITS.imageBytes) return refuse(`${field} is ${bytes.length} bytes, over the limit of ${FIELD_LIMITS.imageBytes} bytes (10 MB)`);
  let meta: sharp.Metadata;
  try { meta = await sharp(bytes).metadata(); } catch { return refuse(`${field} is not a readable image`); }
  if (meta.format !== 'jpeg' && meta.format !== 'png') return refuse(`${field} must be a JPEG or PNG, not ${meta.format ?? 'unknown'}`);
  const width = meta.width ?? 0;
  const height = meta.height ?? 0;
  if (width * height > MAX_IMAGE_PIXELS) return refuse(`${field} declares ${width} × ${height} pixels, over the limit of ${MAX_IMAGE_PIXELS} pixels`);
  try {
    const pipeline = sharp(bytes, { limitInputPixels: MAX_IMAGE_PIXELS, failOn: 'error' });
    if (width <= MAX_IMAGE_SIDE && height <= MAX_IMAGE_SIDE) {
      // decode it in full once, so a truncated or corrupt image is refused here and not by the model
      await pipeline.raw().toBuffer();
      return { ok: true, bytes };
    }
    const resized = pipeline.rotate().resize({ width: MAX_IMAGE_SIDE, height: MAX_IMAGE_SIDE, fit: 'inside', withoutEnlargement: true });
    const out = meta.format === 'png' ? await resized.png().toBuffer() : await resized.jpeg({ quality: 90 }).toBuffer();
    return { ok: true, bytes: out };
  } catch (err) {
    return refuse(`${field} could not be decoded (${(err as Error).message.split('\n')[0]!.slice(0, 200)})`);
  }
}

export default decodeImageTask;
