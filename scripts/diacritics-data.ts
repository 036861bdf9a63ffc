/**
 * The diacritization text of `../shared/data/corpora` (README there; licences per source
 * in its SOURCES.tsv files) per language, and the seeded held-out split that
 * scripts/train-diacritics.ts leaves out and bench/diacritics.ts measures on. Sources:
 * Common Voice sentences (`cv/`, CC0 1.0), `extra/` (hau, ibo, yor: TaTA CC BY 4.0,
 * OpenSLR 86 and UD Yorùbá-YTB CC BY-SA 4.0; vie: UD VTB train/dev CC BY-SA 4.0, Truyện
 * Kiều public domain, Vietnamese Wikipedia CC BY-SA 3.0), `text/<label>/` (UD Bosque,
 * GSD dev, Sequoia; AfriSenti tweets CC BY 4.0; NTREX-128 CC BY-SA 4.0; Common Voice yo/ig
 * CC0) and vowelled Arabic (`tashkeel/ara_train.txt`, the Fadel et al. 2019 validation
 * split, and `text/arb_Arab/`, Tashkeela books via AliOsm/shakkelha; MIT as stated by
 * those repositories, the upstream Tashkeela corpus is GPL-2.0: see the model card).
 * Common Voice Arabic (`cv/ar.txt`) is left out: it carries no vowel marks. No
 * evaluation split of another project is read (UD test splits, FLORES, the Fadel test
 * split are not in the folder).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fnv1a } from '../services/capabilities/language-id/features.ts';
import { stripMarks } from '../services/capabilities/diacritize/marks.ts';

/** The corpora folder. */
export const CORPORA = fileURLToPath(new URL('../../shared/data/corpora/', import.meta.url));

/** The 11 languages (ISO 639-3) and their files, relative to {@link CORPORA}; a folder means every .txt in it. */
export const DIACRITICS_SOURCES: Readonly<Record<string, readonly string[]>> = {
  yor: ['extra/yor.txt', 'text/yor_Latn'],
  ibo: ['extra/ibo.txt', 'text/ibo_Latn'],
  hau: ['extra/hau.txt', 'text/hau_Latn', 'cv/ha.txt'],
  vie: ['extra/vie.txt', 'cv/vi.txt'],
  pol: ['cv/pl.txt'],
  tur: ['cv/tr.txt'],
  por: ['cv/pt.txt', 'text/por_Latn'],
  spa: ['cv/es.txt', 'text/spa_Latn'],
  fra: ['cv/fr.txt', 'text/fra_Latn'],
  ita: ['cv/it.txt'],
  ara: ['tashkeel/ara_train.txt', 'text/arb_Arab'],
};

/** Languages whose text without any mark is taken for text written without them, and weighs less in training. */
export const MARKED_LANGUAGES: ReadonlySet<string> = new Set(['yor', 'ibo', 'hau', 'vie', 'ara']);

/** Weight in training of a line without any mark in one of {@link MARKED_LANGUAGES} (mostly text written without marks). */
export const UNMARKED_WEIGHT = 0.2;

/** A line's weight in training: {@link UNMARKED_WEIGHT} for a line without any mark in a language of {@link MARKED_LANGUAGES}, else 1. */
export const lineWeight = (line: string, language: string): number => (MARKED_LANGUAGES.has(language) && stripMarks(line) === line.normalize('NFC') ? UNMARKED_WEIGHT : 1);

/** Seed of the held-out split. */
export const SPLIT_SEED = 0x5eed_d1ac;
/** One line in this many is held out (by a seeded hash of the line, so the split does not depend on file order). */
export const HOLD_OUT_EVERY = 10;

/** Whether a line is held out from training (and measured by bench/diacritics.ts). */
export const heldOut = (line: string): boolean => fnv1a(stripMarks(line), SPLIT_SEED) % HOLD_OUT_EVERY === 0;

/** A line of text and where it came from. */
export interface SourceLine { text: string; source: string; }

/**
 * Every line of a language's sources, in file order.
 * @throws Error when a listed file is missing
 */
export function linesOf(language: string, root = CORPORA): SourceLine[] {
  const out: SourceLine[] = [];
  for (const entry of DIACRITICS_SOURCES[language] ?? []) {
    const p = join(root, entry);
    if (!existsSync(p)) throw new Error(`missing corpus file ${p}`);
    const files = entry.endsWith('.txt') ? [p] : readdirSync(p).filter((f) => f.endsWith('.txt')).sort().map((f) => join(p, f));
    for (const f of files) {
      for (const line of readFileSync(f, 'utf8').split('\n')) if (line.trim()) out.push({ text: line.normalize('NFC'), source: f.slice(root.length) });
    }
  }
  return out;
}
