/**
 * The spelling models of the diacnet models (services/capabilities/diacritize/
 * spelling-lm.ts: a character n-gram model of marked word forms per language, which
 * scores the candidates of words that neither the training text nor a dictionary writes),
 * counted at training time from weighted word types ({@link spellingForms}): the forms of
 * the training text (scripts/diacritics-data.ts role `train`), of the OpenSubtitles
 * frequency lists and of the Hunspell dictionaries expanded with their affix rules
 * (scripts/diacritics-lexicons.ts; licences there and in the model cards). Written by
 * scripts/word-lm.ts `--spelling-out`.
 */
import { END_SYMBOL, START_SYMBOL, type SpellingArrays } from '../services/capabilities/diacritize/spelling-lm.ts';
import type { WeightedLine } from './word-lm.ts';

/** n of the spelling models' n-grams (a letter after up to four letters). */
export const SPELLING_ORDER = 5;

/**
 * Least weight of a dictionary form. A type's weight is otherwise the log of one plus its
 * (weighted) count in the training text, plus the log of one plus its count per million in
 * the frequency list: by types, not tokens, so that the model learns how words are spelt
 * rather than which words are frequent; by the log of the counts, so that the forms people
 * write count for more than those an affix rule makes. Counting every dictionary form
 * once (weight 1, without the logs) made verb endings the model's rule: Spanish has the
 * conditional "-ría" and the preterite "-ió" in every verb's paradigm, and the model
 * wrote "ferroviaría", "estadió" (news development set, Spanish: 532 wrong words against
 * 462 with these weights, Turkish 206 against 200, both with the settings of then).
 */
export const DICTIONARY_FORM_WEIGHT = 0.3;

/** N-gram counts are kept in steps of this (so that the file's counts repeat and compress: about a fifth smaller); a history's count is the sum of its rounded n-grams'. */
export const COUNT_STEP = 1 / 16;

/**
 * The weighted word types of a language's spelling model ({@link DICTIONARY_FORM_WEIGHT}).
 * @param textForms the forms of the training text with their weighted counts
 * @param frequencyShares the frequency list's forms with their share of its total count
 * @param dictionaryForms every form of the language's Hunspell dictionary (marked or not)
 */
export function spellingForms(textForms: ReadonlyMap<string, number>, frequencyShares: ReadonlyMap<string, number>, dictionaryForms: Iterable<string>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [f, c] of textForms) out.set(f, Math.log1p(c));
  for (const [f, share] of frequencyShares) out.set(f, (out.get(f) ?? 0) + Math.log1p(share * 1e6));
  for (const f of dictionaryForms) out.set(f, Math.max(out.get(f) ?? 0, DICTIONARY_FORM_WEIGHT));
  return out;
}

/** The forms of weighted lines with their weighted counts (`tokenize`: scripts/word-lm.ts formsOfLine). */
export function textFormCounts(lines: Iterable<WeightedLine>, language: string, tokenize: (line: string, language: string) => string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const l of lines) for (const f of tokenize(l.text, language)) out.set(f, (out.get(f) ?? 0) + l.weight);
  return out;
}

/**
 * The arrays of one language's spelling model (services/capabilities/diacritize/
 * spelling-lm.ts, module comment) from weighted forms: every n-gram of `^form$` up to
 * `order` symbols, weighted by its form's weight (forms of weight 0 or less are skipped).
 * @throws RangeError when the keys would not fit 32 bits (more than about 2 M histories with a large alphabet)
 */
export function buildSpellingArrays(forms: ReadonlyMap<string, number>, order = SPELLING_ORDER): SpellingArrays {
  // the alphabet, in order of first appearance
  const ids = new Map<number, number>();
  const idOf = (cp: number) => { let id = ids.get(cp); if (id === undefined) ids.set(cp, (id = ids.size + 1)); return id; };
  idOf(START_SYMBOL.codePointAt(0)!); idOf(END_SYMBOL.codePointAt(0)!);
  // counts by history (its symbols, newest first, joined) and symbol
  const grams = new Map<string, Map<number, number>>();
  for (const [form, w] of forms) {
    if (!(w > 0)) continue;
    const seq = [idOf(START_SYMBOL.codePointAt(0)!), ...[...form].map((ch) => idOf(ch.codePointAt(0)!)), idOf(END_SYMBOL.codePointAt(0)!)];
    for (let i = 1; i < seq.length; i++) {
      let h = '';
      for (let m = 0; m < order && i - m >= 0; m++) {
        if (m > 0) h = h ? `${h},${seq[i - m]}` : `${seq[i - m]}`;
        let row = grams.get(h);
        if (!row) grams.set(h, (row = new Map()));
        row.set(seq[i]!, (row.get(seq[i]!) ?? 0) + w);
      }
    }
  }
  const base = ids.size + 1;
  // histories block by block (by length), each block sorted by key = rank(newer part) × base + oldest
  const rank = new Map<string, number>([['', 0]]);
  const hist: Array<{ h: string; key: number }> = [{ h: '', key: 0 }];
  const byLength = new Map<number, string[]>();
  for (const h of grams.keys()) if (h) { const n = h.split(',').length; let l = byLength.get(n); if (!l) byLength.set(n, (l = [])); l.push(h); }
  for (let n = 1; n < order; n++) {
    const block = (byLength.get(n) ?? []).map((h) => {
      const parts = h.split(',');
      const oldest = Number(parts[parts.length - 1]);
      const parent = rank.get(parts.slice(0, -1).join(','));
      if (parent === undefined) throw new Error(`spelling model: history ${h} without its parent`);
      return { h, key: parent * base + oldest };
    }).sort((x, y) => x.key - y.key);
    for (const e of block) { rank.set(e.h, hist.length); hist.push(e); }
  }
  if ((hist.length + 1) * base >= 2 ** 32) throw new RangeError(`spelling model: ${hist.length} histories × ${base} symbols do not fit 32-bit keys`);
  const histKey = Uint32Array.from(hist, (e) => e.key);
  const histTotal = new Float32Array(hist.length);
  const histTypes = new Uint32Array(hist.length);
  const keys: number[] = []; const counts: number[] = [];
  hist.forEach((e, r) => {
    const row = grams.get(e.h)!;
    let total = 0;
    for (const [c, n] of row) {
      const q = Math.max(COUNT_STEP, Math.round(n / COUNT_STEP) * COUNT_STEP);
      keys.push(r * base + c); counts.push(q); total += q;
    }
    histTotal[r] = total; histTypes[r] = row.size;
  });
  const order2 = keys.map((_, i) => i).sort((x, y) => keys[x]! - keys[y]!);
  const alphabet = new Uint32Array(ids.size);
  for (const [cp, id] of ids) alphabet[id - 1] = cp;
  return { order, alphabet, histKey, histTotal, histTypes, gramKey: Uint32Array.from(order2, (i) => keys[i]!), gramCount: Float32Array.from(order2, (i) => counts[i]!) };
}
