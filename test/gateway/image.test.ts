import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { MAX_IMAGE_SIDE, decodeImage } from '../../services/gateway/validation.ts';

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
});
