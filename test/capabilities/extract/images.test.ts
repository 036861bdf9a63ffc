import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_IMAGE_SIDE } from '../../../services/capabilities/extract/image-decode.ts';
import { closeImageThreads, decodeImage } from '../../../services/capabilities/extract/images.ts';

afterAll(async () => { await closeImageThreads(); });

/** CRC-32 of PNG chunks (ISO 3309 / ITU-T V.42, the PNG specification's section 5.5). */
function crc32(buf: Buffer): number {
  let c = ~0;
  for (const b of buf) { c ^= b; for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1)); }
  return ~c >>> 0;
}

/** A PNG whose IHDR declares another width and height (pixel data unchanged, so it no longer decodes in full). */
function withSize(png: Buffer, width: number, height: number): Buffer {
  const out = Buffer.from(png);
  // signature (8), IHDR length (4), "IHDR" (4), width (4), height (4), 5 more bytes, CRC over type + data (17 bytes)
  out.writeUInt32BE(width, 16);
  out.writeUInt32BE(height, 20);
  out.writeUInt32BE(crc32(out.subarray(12, 29)), 29);
  return out;
}

describe('decodeImage', () => {
  it('scales a large photo down to 2048 px on the longest side, keeping the format', async () => {
    const big = await sharp({ create: { width: 4000, height: 1000, channels: 3, background: '#88aa33' } }).jpeg().toBuffer();
    const out = await decodeImage(`data:image/jpeg;base64,${big.toString('base64')}`);
    const meta = await sharp(out).metadata();
    expect(meta).toMatchObject({ format: 'jpeg', width: MAX_IMAGE_SIDE, height: 512 });
  });
  it('passes a small PNG through unchanged', async () => {
    const png = await sharp({ create: { width: 20, height: 10, channels: 4, background: '#000000' } }).png().toBuffer();
    expect((await decodeImage(png.toString('base64'))).equals(png)).toBe(true);
  });
  it('refuses a WebP image', async () => {
    const webp = await sharp({ create: { width: 5, height: 5, channels: 3, background: '#fff' } }).webp().toBuffer();
    await expect(decodeImage(webp.toString('base64'))).rejects.toMatchObject({ status: 400, message: 'image must be a JPEG or PNG, not webp' });
  });
  it('refuses a PNG whose header declares more pixels than the limit, before decoding it (regression: a 20000×13000 PNG bomb)', async () => {
    // a small PNG whose IHDR chunk says 20,000 × 13,000 (and whose IHDR CRC is redone):
    // a few hundred bytes that would take gigabytes to decode
    const cut = withSize(await sharp({ create: { width: 16, height: 16, channels: 3, background: '#000' } }).png().toBuffer(), 20_000, 13_000);
    const t0 = performance.now();
    await expect(decodeImage(cut.toString('base64'), 'documents[0].image')).rejects.toMatchObject({
      status: 400, message: 'documents[0].image declares 20000 × 13000 pixels, over the limit of 50000000 pixels',
    });
    expect(performance.now() - t0).toBeLessThan(5000);
  });
  it('refuses a truncated PNG under the pixel limit with 400, not 500 (regression: the resize error escaped)', async () => {
    const png = withSize(await sharp({ create: { width: 300, height: 250, channels: 3, background: '#123456' } }).png().toBuffer(), 3000, 2500);
    await expect(decodeImage(png.subarray(0, Math.floor(png.length / 2)).toString('base64'))).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/^image could not be decoded/) });
    const small = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#123456' } }).png({ compressionLevel: 0 }).toBuffer();
    await expect(decodeImage(small.subarray(0, Math.floor(small.length / 2)).toString('base64'))).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/^image could not be decoded/) });
  });
  it('refuses links, data URLs without base64 and text that is not base64', async () => {
    await expect(decodeImage('https://example.com/a.png')).rejects.toMatchObject({ status: 400, message: 'image must be base64 or a data URL; image links are not fetched' });
    await expect(decodeImage('data:image/png,abc')).rejects.toMatchObject({ status: 400, message: 'image data URL must be base64-encoded' });
    await expect(decodeImage('not base64 at all!')).rejects.toMatchObject({ status: 400, message: 'image is not valid base64' });
  });
});
