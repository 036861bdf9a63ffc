/**
 * Helpers of the extraction tests: a check that an answer has its template's shape (spec:
 * "Template leaf types"; the tiny weights' values are meaningless, but the grammar must
 * always keep the shape), and images with text rendered by sharp for OCR.
 */
import sharp from 'sharp';
import { expect } from 'vitest';

/** A white image with lines of black text (DejaVu Sans, Debian's fonts-dejavu-core). */
export async function textImage(lines: string[], width = 1000): Promise<Buffer> {
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const text = lines.map((l, i) => `<text x="24" y="${70 + i * 64}" font-family="DejaVu Sans, sans-serif" font-size="40" fill="black">${esc(l)}</text>`).join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${lines.length * 64 + 60}"><rect width="100%" height="100%" fill="white"/>${text}</svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}


/**
 * Image fields that can never be an image, each with the 400 message it gets at admission
 * (services/capabilities/extract/image-text.ts), whatever models are installed.
 */
export const NOT_IMAGES: ReadonlyArray<{ what: string; image: string; error: RegExp }> = [
  { what: 'an image link', image: 'https://example.com/a.png', error: /^image must be base64 or a data URL; image links are not fetched$/ },
  { what: 'a data URL that is not base64', image: 'data:image/png,abc', error: /^image data URL must be base64-encoded$/ },
  { what: 'text that is not base64', image: '!!!not base64', error: /^image is not valid base64$/ },
  { what: 'base64 of a GIF', image: Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1').toString('base64'), error: /^image must be a JPEG or PNG; its first bytes are neither signature$/ },
  { what: 'base64 of text', image: Buffer.alloc(1000, 7).toString('base64'), error: /^image must be a JPEG or PNG; its first bytes are neither signature$/ },
  { what: 'an empty data URL', image: 'data:image/png;base64,', error: /^image is empty$/ },
];

/** Asserts `data` follows `template` and `confidence` has the data's shape with numbers in [0, 1]. */
export function expectShape(template: unknown, data: unknown, confidence: unknown, path = 'data'): void {
  const isConf = (c: unknown) => typeof c === 'number' && c >= 0 && c <= 1;
  if (typeof template === 'string') {
    expect(isConf(confidence), `${path} confidence ${String(confidence)}`).toBe(true);
    if (data === null) return;
    const ok = {
      'verbatim-string': typeof data === 'string', string: typeof data === 'string', number: typeof data === 'number',
      integer: Number.isInteger(data), boolean: typeof data === 'boolean',
      date: typeof data === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(data), 'date-time': typeof data === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(data),
    }[template];
    expect(ok, `${path} = ${JSON.stringify(data)} is not a ${template}`).toBe(true);
    return;
  }
  if (Array.isArray(template)) {
    if (template.length >= 2) {
      expect(isConf(confidence)).toBe(true);
      expect(data === null || template.includes(data), `${path} = ${JSON.stringify(data)}`).toBe(true);
      return;
    }
    expect(Array.isArray(data), `${path} is a list`).toBe(true);
    expect(Array.isArray(confidence)).toBe(true);
    const items = data as unknown[];
    expect((confidence as unknown[]).length).toBe(items.length);
    items.forEach((item, i) => {
      const c = (confidence as unknown[])[i];
      if (Array.isArray(template[0])) { expect(template[0]).toContain(item); expect(isConf(c)).toBe(true); }
      else if (template[0] === 'string') { expect(typeof item).toBe('string'); expect(isConf(c)).toBe(true); }
      else expectShape(template[0], item, c, `${path}[${i}]`);
    });
    if (Array.isArray(template[0])) expect(new Set(items).size).toBe(items.length);
    return;
  }
  const t = template as Record<string, unknown>;
  expect(Object.keys(data as object).sort(), `${path} keys`).toEqual(Object.keys(t).sort());
  for (const k of Object.keys(t)) expectShape(t[k], (data as Record<string, unknown>)[k], (confidence as Record<string, unknown>)[k], `${path}.${k}`);
}
