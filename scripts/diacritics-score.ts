/**
 * How diacritic restoration is scored (bench/diacritics.ts, scripts/tune-word-lm.ts):
 * alpha-word accuracy (words, i.e. maximal runs of letters, restored exactly, position by
 * position; Náplava et al. 2018, "Diacritics Restoration Using Neural Networks", LREC)
 * and, for Arabic, the diacritic error rate (DER: Arabic letters whose marks differ from
 * the reference, with case endings and without, i.e. without each word's last letter).
 * Vietnamese is compared in one tone placement on both sides
 * (vietnameseToneOnFirstVowel): "hòa" and "hoà" are the same restoration, since both are
 * in use and the reference texts mix them (docs/api-choices.md).
 */
import { stripMarks, units, vietnameseToneOnFirstVowel } from '../services/capabilities/diacritize/marks.ts';
import { slotsOf, type TaggerCandidates } from '../services/capabilities/diacritize/tagger.ts';
import type { PlannedText } from '../services/capabilities/diacritize/backends/common.ts';

/** The words (maximal runs of letter units) of a text, NFC. */
export function words(text: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (const u of units(text)) {
    if (u.letter) cur += u.text;
    else if (cur) { out.push(cur); cur = ''; }
  }
  if (cur) out.push(cur);
  return out;
}

/** Alpha-word accuracy counts of `got` against `want`: [words equal, words of `want`]. */
export function wordScore(want: string, got: string, language = ''): [number, number] {
  const style = (s: string) => (language === 'vie' ? vietnameseToneOnFirstVowel(s) : s);
  const a = words(style(want)); const b = words(style(got));
  let ok = 0;
  for (let i = 0; i < a.length; i++) if (a[i]!.normalize('NFC') === b[i]?.normalize('NFC')) ok++;
  return [ok, a.length];
}

/** DER counts over Arabic letters, [errors, letters], with case endings (`all`) and without (`noCase`); texts of different lengths in units count nothing. */
export function der(want: string, got: string): { all: [number, number]; noCase: [number, number] } {
  const a = units(want); const b = units(got);
  const r = { all: [0, 0] as [number, number], noCase: [0, 0] as [number, number] };
  if (a.length !== b.length) return r;
  for (let i = 0; i < a.length; i++) {
    if (!a[i]!.letter || !/\p{Script=Arabic}/u.test(a[i]!.base)) continue;
    const wrong = a[i]!.text !== b[i]!.text ? 1 : 0;
    r.all[0] += wrong; r.all[1]++;
    if (a[i + 1]?.letter) { r.noCase[0] += wrong; r.noCase[1]++; }
  }
  return r;
}

/** A count pair as a percentage with `decimals` decimals (default one), or — when nothing was counted. */
export const pctOf = (x: readonly [number, number], decimals = 1): string => (x[1] === 0 ? '—' : (100 * x[0] / x[1]).toFixed(decimals));

/**
 * Reference lines as the texts a diacnet model is asked to restore: each line without its
 * marks, in `language`, with case endings, every letter with a choice of marks a slot
 * (tagger.ts slotsOf), no hints and no confidence floor (bench and tuning scripts).
 * @param candidates the model's candidates.json (classes per letter, per language)
 */
export function plannedLines(lines: readonly string[], model: string, language: string, candidates: TaggerCandidates): PlannedText[] {
  return lines.map((want, i) => {
    const text = stripMarks(want);
    const us = units(text);
    return { i, input: { text, model, language, caseEndings: true, hints: null, aligned: true, minConfidence: 0 }, language, us, slots: slotsOf(us, text, candidates[language]) };
  });
}
