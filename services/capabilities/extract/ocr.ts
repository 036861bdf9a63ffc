/**
 * Text of an extraction image by OCR: tesseract.js (Tesseract 5 compiled to WebAssembly)
 * with the language data of Debian's `tesseract-ocr-<lang>` packages
 * (`/usr/share/tesseract-ocr/<version>/tessdata/<lang>.traineddata`, Apache-2.0; or
 * TESSDATA_PREFIX). Nothing is downloaded: a language whose data is not installed is left
 * out, and with none installed an image cannot be read (the item fails with 503). The
 * image is oriented by its EXIF tag and turned to greyscale with sharp first.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { createWorker, OEM, type Worker } from 'tesseract.js';

/** Folders searched for `<lang>.traineddata`: TESSDATA_PREFIX, then Debian's. */
export function tessdataDirs(env: NodeJS.ProcessEnv = process.env): string[] {
  const dirs: string[] = [];
  if (env.TESSDATA_PREFIX) dirs.push(env.TESSDATA_PREFIX, join(env.TESSDATA_PREFIX, 'tessdata'));
  const debian = '/usr/share/tesseract-ocr';
  if (existsSync(debian)) for (const v of readdirSync(debian).sort().reverse()) dirs.push(join(debian, v, 'tessdata'));
  return dirs;
}

/**
 * The folder that holds the data of the most of `languages`, and those languages.
 * @returns null when no language's data is installed
 */
export function findLanguageData(languages: readonly string[], dirs = tessdataDirs()): { dir: string; languages: string[] } | null {
  let best: { dir: string; languages: string[] } | null = null;
  for (const dir of dirs) {
    const have = languages.filter((l) => existsSync(join(dir, `${l}.traineddata`)));
    if (have.length > 0 && (!best || have.length > best.languages.length)) best = { dir, languages: have };
  }
  return best;
}

/** One Tesseract worker per language set, created on first use. */
export class Ocr {
  private worker?: Promise<Worker>;

  /** @param languages Tesseract language codes (ISO 639-3 in their own spelling: eng, swa, yor, amh…) */
  constructor(private readonly languages: readonly string[]) {}

  /** Languages whose data is installed (empty: images cannot be read). */
  installed(): string[] { return findLanguageData(this.languages)?.languages ?? []; }

  /**
   * The text of a JPEG or PNG (bytes the gateway checked and scaled down).
   * @throws Error when no language data is installed, or the image does not decode
   */
  async read(image: Uint8Array): Promise<string> {
    const found = findLanguageData(this.languages);
    if (!found) throw new Error(`no Tesseract language data for ${this.languages.join(', ')} (install Debian's tesseract-ocr-<lang> packages or set TESSDATA_PREFIX)`);
    this.worker ??= createWorker(found.languages.join('+'), OEM.LSTM_ONLY, { langPath: found.dir, gzip: false, cacheMethod: 'none' });
    const png = await sharp(image).rotate().greyscale().png().toBuffer();
    const { data } = await (await this.worker).recognize(png);
    return data.text.trim();
  }

  /** Stops the worker. */
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    if (w) await (await w).terminate();
  }
}
