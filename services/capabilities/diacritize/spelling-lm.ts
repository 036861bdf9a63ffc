/**
 * The spelling model of the diacnet models' word-level rescoring (issue 35): per language,
 * a character n-gram model of marked word forms (lower case, NFC), which scores the
 * candidates of a word that neither the training text nor a dictionary writes
 * (word-lm.ts decodeText), and, with `known_spelling_weight`, the candidates of the word
 * model's words too. The word model has nothing to say of such a word, and the
 * character network learnt its marks from a few MB of running text; the spelling model
 * is trained on the word types of the training text, of the OpenSubtitles frequency
 * lists and of the Hunspell dictionaries expanded with their affix rules (0.4–3.5 M forms per
 * language with one; scripts/spelling-lm.ts), so it knows that Turkish writes "-laşabilir"
 * and "Gök-", Hausa "ƙw-" and "-ɓa", Polish "-ęć", where the network may not. On the news
 * development set it took diacnet-2.0 from 226 to 178 wrong Turkish words and from 227 to
 * 157 Hausa ones (docs/diacritics.md).
 *
 * Model: Witten–Bell interpolation (Witten & Bell 1991, "The zero-frequency problem";
 * as in Chen & Goodman 1999, "An empirical study of smoothing techniques for language
 * modeling", §2.4) of the symbol after up to `order` − 1 symbols, over a uniform
 * distribution of the alphabet and one symbol outside it: P(c | h) = (C(h c) + T(h) ·
 * P(c | h')) / (C(h) + T(h)), with C the (weighted) counts, T(h) the distinct symbols
 * seen after h and h' the history without its oldest symbol. A form is `^` + its code
 * points + `$` ({@link START_SYMBOL}, {@link END_SYMBOL}); its log probability is the sum
 * over its symbols after `^`.
 *
 * File (`spelling-lm.bin`): packed per language as the word model's file is
 * (word-lm-format.ts packParts, magic {@link SPELLING_PACKED_MAGIC}), each part the tables
 * of {@link SpellingArrays} (encodeTables, magic {@link SPELLING_MAGIC}), decompressed on
 * the language's first use; the two key arrays are written as the differences between
 * consecutive keys (small numbers, which gzip packs to about a third) and summed back on
 * loading. Histories and n-grams are numbers, so a lookup is a binary
 * search over a Uint32Array: symbols are ids 1 … A − 1 (0: outside the alphabet, never a
 * key's last digit); the empty history is rank 0; a history of m symbols has the key
 * rank(its m − 1 newest symbols) × A + id(its oldest symbol), histories sorted by key
 * (block by block, so that a history's rank is its index); an n-gram's key is rank(history)
 * × A + id(symbol).
 */
import { BoundedMemo } from '../../lib/bounded-memo.ts';
import { decodeTables, encodeTables, findIn, packedPartsOf, packParts, type ArrayRef } from './word-lm-format.ts';

/** A one-language part's first bytes. */
export const SPELLING_MAGIC = 'lmstream-spelling-lm-1\n';
/** The packed file's first bytes. */
export const SPELLING_PACKED_MAGIC = 'lmstream-spelling-lm-1-packed\n';
/** The symbol before a form's first letter (a history only). */
export const START_SYMBOL = '\u0002';
/** The symbol after a form's last letter (predicted like a letter). */
export const END_SYMBOL = '\u0003';

/** One language's spelling model, as built (scripts/spelling-lm.ts) and as loaded. */
export interface SpellingArrays {
  /** n of the n-grams: a symbol is predicted from up to n − 1 symbols before it */
  order: number;
  /** the code point of each symbol id from 1 (A = alphabet.length + 1 ids in all) */
  alphabet: Uint32Array;
  /** the histories' keys, ascending (module comment); index = rank, 0 the empty history */
  histKey: Uint32Array;
  /** C(h): the weighted count of the symbols seen after each history */
  histTotal: Float32Array;
  /** T(h): the distinct symbols seen after each history */
  histTypes: Uint32Array;
  /** the n-grams' keys, ascending: rank(history) × A + id(symbol) */
  gramKey: Uint32Array;
  /** C(h c): the weighted count of each n-gram */
  gramCount: Float32Array;
}

const NAMES = ['alphabet', 'histKey', 'histTotal', 'histTypes', 'gramKey', 'gramCount'] as const;
/** The arrays written as differences of consecutive elements. */
const DELTA: ReadonlySet<string> = new Set(['histKey', 'gramKey']);
interface Header { languages: Record<string, { order: number; arrays: Record<string, ArrayRef> }> }

/** Differences of consecutive elements (the first is itself), or their running sums back (`back`). */
function deltas(a: Uint32Array, back = false): Uint32Array {
  const out = new Uint32Array(a.length);
  let prev = 0;
  for (let i = 0; i < a.length; i++) {
    if (back) prev = out[i] = prev + a[i]!;
    else { out[i] = a[i]! - prev; prev = a[i]!; }
  }
  return out;
}

/** The packed file of the languages' spelling models (each part gzip-compressed on its own). */
export function packSpellingLm(langs: ReadonlyMap<string, SpellingArrays>): Buffer {
  return packParts(SPELLING_PACKED_MAGIC, new Map([...langs].map(([lang, a]) => {
    const arrays = Object.fromEntries(NAMES.map((n) => [n, DELTA.has(n) ? deltas(a[n] as Uint32Array) : a[n]]));
    return [lang, encodeTables(SPELLING_MAGIC, [arrays], (refs) => ({ languages: { [lang]: { order: a.order, arrays: refs[0]! } } }) satisfies Header)];
  })));
}

/**
 * The languages of a packed spelling-model file, each with a function that decompresses
 * and decodes its part (callers keep the result).
 * @throws Error when `data` is not a packed spelling-model file (the function: when its part cannot be read)
 */
export function openSpellingLm(data: Buffer): Map<string, () => SpellingArrays> {
  return new Map([...packedPartsOf(SPELLING_PACKED_MAGIC, data, 'spelling model')].map(([lang, [from, to]]) => [lang, () => {
    const { header, view } = decodeTables<Header>(SPELLING_MAGIC, data.subarray(from, to), 'spelling model', ' (rebuild it with scripts/word-lm.ts --spelling-out)');
    const l = header.languages[lang];
    if (!l) throw new Error(`spelling model: the packed part of ${lang} holds no ${lang}`);
    return Object.assign({ order: l.order }, Object.fromEntries(NAMES.map((n) => [n, DELTA.has(n) ? deltas(view(l.arrays[n]!) as Uint32Array, true) : view(l.arrays[n]!)]))) as unknown as SpellingArrays;
  }]));
}

/** Index of `x` in the ascending `arr`, or -1. */
const find = (arr: Uint32Array, x: number): number => findIn(arr, 0, arr.length, x);

/** Forms whose log probability a {@link SpellingLm} keeps (a text's words repeat; with `known_spelling_weight` every candidate of every word is scored). */
export const SPELLING_CACHE_MAX = 16_384;
/** Longest form (UTF-16 code units) whose log probability is kept: a client's long words are computed every time, not kept. */
export const SPELLING_CACHE_KEY_MAX = 40;

/** One language's spelling model. */
export class SpellingLm {
  private readonly memo = new BoundedMemo<number>(SPELLING_CACHE_MAX, SPELLING_CACHE_KEY_MAX);
  /** A: the alphabet's ids and one for a symbol outside it */
  private readonly base: number;
  private readonly ids = new Map<number, number>();
  private readonly start: number;
  private readonly end: number;

  constructor(readonly a: SpellingArrays) {
    this.base = a.alphabet.length + 1;
    a.alphabet.forEach((cp, i) => this.ids.set(cp, i + 1));
    this.start = this.ids.get(START_SYMBOL.codePointAt(0)!) ?? 0;
    this.end = this.ids.get(END_SYMBOL.codePointAt(0)!) ?? 0;
  }

  /**
   * Natural log of P(form) (module comment): the sum over its code points and the end
   * symbol of log P(symbol | up to order − 1 symbols before it). Time linear in the form's
   * length (at most 2 × order binary searches a symbol); kept for forms of up to
   * {@link SPELLING_CACHE_KEY_MAX} code units, {@link SPELLING_CACHE_MAX} at most.
   * @param form lower case, NFC (word-lm.ts formWith)
   */
  logProb(form: string): number {
    return this.memo.get(form, () => this.compute(form));
  }

  /** {@link logProb} computed. */
  private compute(form: string): number {
    const seq = this.symbols(form);
    seq.push(this.end);
    let lp = 0;
    for (let i = 1; i < seq.length; i++) lp += Math.log(this.prob(seq, i));
    return lp;
  }

  /**
   * P(symbol | the start symbol and `before`): one term of {@link logProb}; `symbol` one
   * code point, {@link END_SYMBOL} for the end of the form.
   */
  probAfter(before: string, symbol: string): number {
    const seq = this.symbols(before);
    seq.push(this.ids.get(symbol.codePointAt(0)!) ?? 0);
    return this.prob(seq, seq.length - 1);
  }

  /** The start symbol's id and the ids of a string's code points (0: outside the alphabet). */
  private symbols(text: string): number[] {
    const seq = [this.start];
    for (const ch of text) seq.push(this.ids.get(ch.codePointAt(0)!) ?? 0);
    return seq;
  }

  /** P(seq[i] | the symbols before it), Witten–Bell from the empty history up. */
  private prob(seq: readonly number[], i: number): number {
    const { a, base } = this;
    const c = seq[i]!;
    let p = 1 / base;
    let h = 0; // the empty history's rank
    for (let m = 0; ; m++) {
      const total = a.histTotal[h]!;
      if (total > 0) {
        const types = a.histTypes[h]!;
        const g = c === 0 ? -1 : find(a.gramKey, h * base + c);
        p = ((g < 0 ? 0 : a.gramCount[g]!) + types * p) / (total + types);
      }
      if (m + 1 >= a.order || i - m - 1 < 0) break;
      const older = seq[i - m - 1]!;
      if (older === 0) break;
      const next = find(a.histKey, h * base + older);
      if (next < 0) break;
      h = next;
    }
    return p;
  }
}
