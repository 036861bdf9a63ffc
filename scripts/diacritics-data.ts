/**
 * The diacritization text of `../shared/data/corpora` (README there, sections 1–5;
 * licences per source in its SOURCES.tsv files) per language, split three ways
 * (issue 35): the news development set ({@link NEWS_DEV}, never trained on; weights are
 * tuned and models chosen on it), the seeded held-out split of the training text (one line
 * in ten, measured by bench/diacritics.ts beside the news set) and the training text.
 * Sources: Common Voice sentences (`cv/`, CC0 1.0); `extra/` (hau, ibo, yor: TaTA CC BY
 * 4.0, OpenSLR 86 and UD Yorùbá-YTB CC BY-SA 4.0; vie: UD VTB train/dev CC BY-SA 4.0,
 * Truyện Kiều public domain, Vietnamese Wikipedia CC BY-SA 3.0); `text/<label>/`
 * (Vietnamese Wikipedia 2017 CC BY-SA 3.0; LibreOffice help MPL-2.0; NTREX-128 CC BY-SA
 * 4.0; UD Bosque, Portuguese-GSD, Spanish-GSD dev, French-GSD dev and ParisStories,
 * Turkish dev treebanks CC BY-SA 4.0, French Sequoia LGPL-LR; AfriSenti tweets CC BY 4.0;
 * Common Voice yo/ig CC0); vowelled Arabic (`tashkeel/ara_train.txt`, the Fadel et al.
 * 2019 validation split, and `text/arb_Arab/tashkeela-shakkelha.txt`, Tashkeela books via
 * AliOsm/shakkelha; MIT as stated by those repositories, the upstream Tashkeela corpus is
 * GPL-2.0: see the model card). GPL-3.0-only text is not trained on
 * ({@link LEFT_OUT_FILES}). Common Voice Arabic (`cv/ar.txt`) is left out: it carries no
 * vowel marks. No evaluation split of another project is read (UD test splits, FLORES, the
 * Fadel test split are not in the folder).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fnv1a } from '../services/capabilities/language-id/features.ts';
import { formOf, stripMarks, units } from '../services/capabilities/diacritize/marks.ts';
import { words } from './diacritics-score.ts';

/** The corpora folder. */
export const CORPORA = fileURLToPath(new URL('../../shared/data/corpora/', import.meta.url));

/** The 11 languages (ISO 639-3) and their files, relative to {@link CORPORA}; a folder means every .txt in it (minus {@link LEFT_OUT_FILES}). */
export const DIACRITICS_SOURCES: Readonly<Record<string, readonly string[]>> = {
  yor: ['extra/yor.txt', 'text/yor_Latn'],
  ibo: ['extra/ibo.txt', 'text/ibo_Latn'],
  hau: ['extra/hau.txt', 'text/hau_Latn', 'cv/ha.txt'],
  vie: ['extra/vie.txt', 'cv/vi.txt', 'text/vie_Latn'],
  pol: ['cv/pl.txt', 'text/pol_Latn'],
  tur: ['cv/tr.txt', 'text/tur_Latn'],
  por: ['cv/pt.txt', 'text/por_Latn'],
  spa: ['cv/es.txt', 'text/spa_Latn'],
  fra: ['cv/fr.txt', 'text/fra_Latn'],
  ita: ['cv/it.txt', 'text/ita_Latn'],
  ara: ['tashkeel/ara_train.txt', 'text/arb_Arab'],
};

/**
 * Files of the folders above that are never trained on: text under GPL-3.0 only
 * (UD Polish-LFG dev; the Yorùbá blog and speech-prompt text of Niger-Volta-LTI/
 * yoruba-text), kept out of the models as the GPL-only Hunspell dictionaries are;
 * Arabic without vowel marks (Wikipedia, NTREX), which teaches nothing about marks.
 * UD Polish-LFG dev is still read as development text ({@link NEWS_DEV}: measuring is not
 * distributing).
 */
export const LEFT_OUT_FILES: ReadonlySet<string> = new Set([
  'text/pol_Latn/ud-lfg-dev.txt', 'text/yor_Latn/yoruba-text-gpl.txt', 'text/arb_Arab/arabic-wikipedia.txt', 'text/arb_Arab/ntrex128.txt',
]);

/**
 * The news development set of each language (issue 35): text from another source and
 * domain than most of the training text, never trained on; every weight is tuned and every
 * model chosen on it, and bench:diacritics reports it beside the held-out split of the
 * training text. `ntrex`: the first half of each translation of the NTREX-128 news file
 * (WMT19 newstest, CC BY-SA 4.0; by position in its translation, so that whole
 * documents fall on one side); `whole`: Universal Dependencies dev text read whole (UD
 * Polish-LFG dev GPL-3.0, Turkish BOUN/Kenet/Penn/Tourism dev and Spanish-GSD dev
 * CC BY-SA 4.0; French-GSD dev with ParisStories, CC BY-SA 4.0). Arabic has no news text
 * with vowel marks in ../shared, so no news set: its development lines are half of its
 * held-out split ({@link HELD_OUT_DEV_LANGUAGES}).
 */
export const NEWS_DEV: Readonly<Record<string, { ntrex?: string; whole?: readonly string[] }>> = {
  yor: { ntrex: 'text/yor_Latn/ntrex.txt' },
  ibo: { ntrex: 'text/ibo_Latn/ntrex128.txt' },
  hau: { ntrex: 'text/hau_Latn/ntrex128.txt' },
  vie: { ntrex: 'text/vie_Latn/ntrex.txt' },
  pol: { ntrex: 'text/pol_Latn/ntrex.txt', whole: ['text/pol_Latn/ud-lfg-dev.txt'] },
  tur: { ntrex: 'text/tur_Latn/ntrex.txt', whole: ['text/tur_Latn/ud-turkish-dev.txt'] },
  por: { ntrex: 'text/por_Latn/ntrex.txt' },
  spa: { ntrex: 'text/spa_Latn/ntrex.txt', whole: ['text/spa_Latn/ud-gsd-dev.txt'] },
  fra: { ntrex: 'text/fra_Latn/ntrex.txt', whole: ['text/fra_Latn/ud-french.txt'] },
  ita: { ntrex: 'text/ita_Latn/ntrex.txt' },
};

/**
 * Where each translation of a multi-translation NTREX file starts (0-based line), found by
 * its first document (the Welsh Assembly article; the third Spanish one has lost its title) and checked by {@link ntrexRoles}: the
 * files merge the translations (spa, spa-MX, ref-2.spa; fra, fra-CA; por, por-BR) and drop
 * lines already seen, so each translation holds the same sentences in the same order.
 */
export const NTREX_TRANSLATION_STARTS: Readonly<Record<string, readonly number[]>> = {
  'text/spa_Latn/ntrex.txt': [0, 1972, 3928],
  'text/fra_Latn/ntrex.txt': [0, 1993],
  'text/por_Latn/ntrex.txt': [0, 1974],
};
/** A line in the first this share of its translation is development text. */
export const NTREX_DEV_SHARE = 0.5;
/** A line from this share of its translation on is training text; the lines between are read by neither (a margin for translations that dropped different lines). */
export const NTREX_TRAIN_FROM = 0.55;

/** What a line is for: training, the held-out split of the training text, the news development set, or nothing. */
export type LineRole = 'train' | 'heldout' | 'dev' | 'unused';

/**
 * The role of each line of an NTREX file by its position in its translation ({@link NTREX_DEV_SHARE}, {@link NTREX_TRAIN_FROM}).
 * @throws Error when a listed translation start is not the Welsh Assembly article's title (the file changed)
 */
export function ntrexRoles(file: string, lines: readonly string[]): LineRole[] {
  const starts = NTREX_TRANSLATION_STARTS[file] ?? [0];
  const welsh = /Gales|Galles|gallois|Asamblea|Assembl/i;
  for (const s of starts) if (s > 0 && !lines.slice(s, s + 2).some((l) => welsh.test(l))) throw new Error(`${file}: line ${s} does not start a translation (NTREX_TRANSLATION_STARTS)`);
  return lines.map((_, i) => {
    let k = starts.length - 1;
    while (starts[k]! > i) k--;
    const from = starts[k]!; const to = starts[k + 1] ?? lines.length;
    const at = (i - from) / (to - from);
    return at < NTREX_DEV_SHARE ? 'dev' : at >= NTREX_TRAIN_FROM ? 'train' : 'unused';
  });
}

/** Languages whose text without any mark is taken for text written without them, and weighs less in training. */
export const MARKED_LANGUAGES: ReadonlySet<string> = new Set(['yor', 'ibo', 'hau', 'vie', 'ara']);

/** Weight in training of a line without any mark in one of {@link MARKED_LANGUAGES} (mostly text written without marks). */
export const UNMARKED_WEIGHT = 0.2;

/** A line's weight in training: {@link UNMARKED_WEIGHT} for a line without any mark in a language of {@link MARKED_LANGUAGES}, else 1. */
export const lineWeight = (line: string, language: string): number => (MARKED_LANGUAGES.has(language) && stripMarks(line) === line.normalize('NFC') ? UNMARKED_WEIGHT : 1);

/**
 * How much a line of a source counts in the word language model: LibreOffice help text
 * (menu paths, UI labels, function names: a narrow software-help register, 1–4 MB per
 * language) counts half; every other source (news, Wikipedia, treebanks, Common Voice
 * sentences, tweets, books) counts fully.
 */
export const registerWeight = (source: string): number => (source.includes('libreoffice-help') ? 0.5 : 1);

/**
 * Text only the diacnet word model reads, not diactag-2.0's per-letter classifier: the 2017
 * Vietnamese Wikipedia (52 M characters of one register would fill most of the 1.5 M
 * letters a language gets there, and everyday words suffer: "đi ăn cơm" → "ẩn").
 */
export const wordModelOnly = (source: string): boolean => source.includes('viwiki');

/** Seed of the held-out split. */
export const SPLIT_SEED = 0x5eed_d1ac;
/** One line in this many is held out (by a seeded hash of the line, so the split does not depend on file order). */
export const HOLD_OUT_EVERY = 10;

/** Whether a line is held out from training (and measured by bench/diacritics.ts). */
export const heldOut = (line: string): boolean => fnv1a(stripMarks(line), SPLIT_SEED) % HOLD_OUT_EVERY === 0;

/**
 * Languages without a news development set ({@link NEWS_DEV}) whose held-out split gives
 * half its lines to development instead: Arabic, whose only vowelled text is classical
 * (Tashkeela: the Fadel et al. 2019 validation split and the shakkelha books); no
 * vowelled news exists in ../shared. Its settings are chosen on that half, and the
 * held-out figure is measured on the other, so neither is a set the settings were tuned on
 * and both are lines no model trained on. Both halves are the training text's own domain.
 */
export const HELD_OUT_DEV_LANGUAGES: ReadonlySet<string> = new Set(['ara']);

/** Seed of the hash that halves the held-out split of the languages of {@link HELD_OUT_DEV_LANGUAGES}. */
export const DEV_HALF_SEED = 0xa2ab_de01;

/**
 * Whether a held-out line of a language of {@link HELD_OUT_DEV_LANGUAGES} is development
 * text: one in two, by the top bit of a seeded FNV-1a hash of the line without marks (its
 * low bit is no use: FNV-1a's parity is the seed's and the characters' whatever the seed,
 * so it is the same for every line {@link heldOut} picks).
 */
export const devHalf = (line: string): boolean => fnv1a(stripMarks(line), DEV_HALF_SEED) >>> 31 === 0;

/** A line of text, where it came from and what it is for. */
export interface SourceLine { text: string; source: string; role: LineRole; }

/** The .txt files of a source entry (a file, or every .txt of a folder), relative to the root, sorted. */
function filesOf(entry: string, root: string): string[] {
  const p = join(root, entry);
  if (!existsSync(p)) throw new Error(`missing corpus file ${p}`);
  return entry.endsWith('.txt') ? [entry] : readdirSync(p).filter((f) => f.endsWith('.txt')).sort().map((f) => `${entry}/${f}`);
}

const readLines = (file: string): string[] => readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => l.normalize('NFC'));

/**
 * Every line of a language's sources and of its news development set, in file order, with
 * its role: news development lines ({@link NEWS_DEV}) are `dev`; of the rest, one line in
 * {@link HOLD_OUT_EVERY} is `heldout` (in a language of {@link HELD_OUT_DEV_LANGUAGES}, half
 * of those are `dev`) and the others `train`; {@link LEFT_OUT_FILES} give
 * only their development lines. A development file missing from `root` is skipped (tests
 * build small corpora folders).
 * @throws Error when a listed source file is missing
 */
export function linesOf(language: string, root = CORPORA): SourceLine[] {
  const out: SourceLine[] = [];
  const dev = NEWS_DEV[language] ?? {};
  const seen = new Set<string>();
  /** Adds a file's lines with the roles `rolesOf` gives them (default: held out by hash, else training). */
  const add = (file: string, rolesOf?: (lines: readonly string[]) => readonly LineRole[]) => {
    if (seen.has(file)) return;
    seen.add(file);
    const lines = readLines(join(root, file));
    const roles = rolesOf?.(lines);
    lines.forEach((text, i) => {
      const role = roles?.[i] ?? (!heldOut(text) ? 'train' : HELD_OUT_DEV_LANGUAGES.has(language) && devHalf(text) ? 'dev' : 'heldout');
      if (role !== 'unused') out.push({ text, source: file, role });
    });
  };
  for (const file of dev.whole ?? []) if (existsSync(join(root, file))) add(file, (lines) => lines.map(() => 'dev'));
  if (dev.ntrex && existsSync(join(root, dev.ntrex))) add(dev.ntrex, (lines) => ntrexRoles(dev.ntrex!, lines));
  for (const entry of DIACRITICS_SOURCES[language] ?? []) for (const f of filesOf(entry, root)) if (!LEFT_OUT_FILES.has(f)) add(f);
  return out;
}

/** The lines of a language with the given role (text only). */
export const linesWithRole = (language: string, role: LineRole, root = CORPORA): string[] => linesOf(language, root).filter((l) => l.role === role).map((l) => l.text);

/**
 * How often the training text (role `train`) writes each form of each word: per key (the
 * word lower case, marks stripped), per form (lower case, NFC, Turkish with its dotted and
 * dotless i), the count. The "most frequent form" baseline of bench:diacritics and
 * diactag-2.0's lexicon (scripts/diactag-lexicon.ts) are both read from it.
 */
export function formCounts(language: string, root = CORPORA): Map<string, Map<string, number>> {
  const counts = new Map<string, Map<string, number>>();
  for (const l of linesOf(language, root)) {
    if (l.role !== 'train') continue;
    for (const w of words(l.text)) {
      const form = units(w).map((u) => formOf(u, language)).join('').normalize('NFC');
      const key = stripMarks(form);
      let m = counts.get(key);
      if (!m) counts.set(key, (m = new Map()));
      m.set(form, (m.get(form) ?? 0) + 1);
    }
  }
  return counts;
}

/**
 * Each word's most frequent form in the training text ({@link formCounts}; the first
 * written of equally frequent ones), with its share of the word's occurrences and their number.
 */
export function mostFrequentForms(language: string, root = CORPORA): Map<string, { form: string; share: number; count: number }> {
  const out = new Map<string, { form: string; share: number; count: number }>();
  for (const [key, forms] of formCounts(language, root)) {
    let form = ''; let best = 0; let total = 0;
    for (const [f, c] of forms) { total += c; if (c > best) { best = c; form = f; } }
    out.set(key, { form, share: best / total, count: total });
  }
  return out;
}
