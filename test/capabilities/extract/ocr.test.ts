/**
 * OCR of extraction images (services/capabilities/extract/ocr.ts): text rendered into a
 * PNG with sharp is read back by tesseract.js with Debian's language data, also from a
 * JPEG whose EXIF orientation says it is rotated.
 */
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { findLanguageData, Ocr } from '../../../services/capabilities/extract/ocr.ts';
import { textImage } from './helpers.ts';

const ocr = new Ocr(['eng']);
afterAll(() => ocr.close());

describe('OCR', () => {
  it('finds the installed language data and leaves out what is missing', () => {
    expect(findLanguageData(['eng', 'xyz'])?.languages).toEqual(['eng']);
    expect(findLanguageData(['xyz'])).toBeNull();
    expect(new Ocr(['xyz']).installed()).toEqual([]);
  });
  it('reads the text of a rendered receipt', async () => {
    const png = await textImage(['NAIVAS SUPERMARKET', 'TOTAL KES 1,250.00', 'Date 2026-11-02']);
    const text = await ocr.read(png);
    expect(text).toContain('NAIVAS SUPERMARKET');
    expect(text).toContain('1,250.00');
    expect(text).toContain('2026-11-02');
  });
  it('orients a JPEG by its EXIF tag before reading it', async () => {
    const png = await textImage(['RECEIPT 4471 PAID']);
    // stored upside down, with orientation 3 (rotate 180°) telling viewers how to show it
    const jpeg = await sharp(png).rotate(180).jpeg({ quality: 95 }).withMetadata({ orientation: 3 }).toBuffer();
    expect((await sharp(jpeg).metadata()).orientation).toBe(3);
    expect(await ocr.read(jpeg)).toContain('RECEIPT 4471 PAID');
  });
});
