/**
 * Feature extraction for the language-ID models: hashed character n-grams and words,
 * as in fastText (Joulin et al. 2017, "Bag of Tricks for Efficient Text
 * Classification", EACL; subword n-grams from Bojanowski et al. 2017).
 *
 * The same function is used by the training script and by the inference engine, so a
 * model is always fed the features it was trained on.
 */

/** Feature settings of one model; stored in `models/<name>/config.json` under `features`. */
export interface FeatureSpec {
  /** number of hash buckets, i.e. rows of the embedding matrix */
  buckets: number;
  /** smallest and largest character n-gram length, in characters */
  minN: number;
  maxN: number;
  /** whether whole words are features too */
  words: boolean;
  /** texts are cut to this many characters before feature extraction */
  maxChars: number;
}

/** The 32-bit FNV prime (FNV spec, Fowler/Noll/Vo): the multiplier of every FNV-1a step here and in the later stages' word hashes. */
export const FNV_PRIME = 0x01000193;

/** 32-bit FNV-1a over the UTF-16 code units of `s`, seeded by `seed` (FNV spec, Fowler/Noll/Vo). */
export function fnv1a(s: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, FNV_PRIME) >>> 0;
  }
  return h >>> 0;
}

const WORD_SEED = 0x9747b28c;

/**
 * Normalises text for features: NFC, lower case, every run of characters that are not
 * letters or marks becomes one space.
 */
export function normalise(text: string, maxChars: number): string {
  const cut = text.length > maxChars ? text.slice(0, maxChars) : text;
  return cut.normalize('NFC').toLowerCase().replace(/[^\p{L}\p{M}]+/gu, ' ').trim();
}

/** Reusable output buffer of {@link featureIds} (grown on demand). */
let buf = new Uint32Array(4096);
/** Code points of the current word with its boundary spaces. */
let cps = new Int32Array(256);

/**
 * FNV-1a step over the UTF-16 code units of one code point, on a signed 32-bit state
 * (the same bits as {@link fnv1a}'s unsigned one; int32 keeps V8 on small integers).
 */
function feed(h: number, cp: number): number {
  if (cp < 0x10000) return Math.imul(h ^ cp, FNV_PRIME);
  const v = cp - 0x10000;
  h = Math.imul(h ^ (0xd800 + (v >> 10)), FNV_PRIME);
  return Math.imul(h ^ (0xdc00 + (v & 0x3ff)), FNV_PRIME);
}

/**
 * Feature ids of one text: for every word of the normalised text ({@link normalise}),
 * the character n-grams (minN–maxN code points) of ` word ` (boundary spaces added, as
 * in fastText) and, when `spec.words`, the word itself, each hashed with FNV-1a
 * ({@link fnv1a} over the n-gram's UTF-16 code units; words with a different seed) into
 * `spec.buckets`. Hashes of the n-grams that start at one position are computed
 * incrementally and words are found in one pass over the text, so no n-gram, word or
 * normalised string is built (the result equals the n-grams of {@link normalise}'s text).
 * @returns bucket ids in [0, spec.buckets), one per n-gram occurrence or word; empty
 *   when the text has no letters. The array is a fresh copy.
 */
export function featureIds(text: string, spec: FeatureSpec): Uint32Array {
  const cut = text.length > spec.maxChars ? text.slice(0, spec.maxChars) : text;
  const norm = cut.normalize('NFC').toLowerCase();
  const { minN, maxN, buckets, words } = spec;
  // h mod buckets of the unsigned hash: a mask when buckets is a power of two
  const mask = (buckets & (buckets - 1)) === 0 ? buckets - 1 : -1;
  let out = 0;
  let len = 0; // code points in cps, the first being the leading boundary space
  let wordHash = WORD_SEED | 0;
  // one pass; the position after the end acts as a separator that ends the last word
  for (let i = 0; i <= norm.length; i++) {
    let cp = 0;
    if (i < norm.length) {
      cp = norm.codePointAt(i)!;
      if (cp > 0xffff) i++;
      if (isLetterOrMark(cp)) {
        if (len === 0) cps[len++] = 32;
        if (len + 2 > cps.length) { const c = new Int32Array(2 * cps.length); c.set(cps); cps = c; }
        cps[len++] = cp;
        wordHash = feed(wordHash, cp);
        continue;
      }
    }
    if (len === 0) continue;
    // end of a word: its n-grams, then the word
    cps[len++] = 32;
    const need = out + len * (maxN - minN + 1) + 1;
    if (need > buf.length) { const nb = new Uint32Array(2 * need); nb.set(buf.subarray(0, out)); buf = nb; }
    for (let j = 0; j < len; j++) {
      let h = 0x811c9dc5 | 0;
      for (let n = 1; n <= maxN && j + n <= len; n++) {
        const c = cps[j + n - 1]!;
        h = feed(h, c);
        if (n < minN || (n === 1 && c === 32)) continue; // a lone boundary space carries no information
        buf[out++] = mask >= 0 ? h & mask : (h >>> 0) % buckets;
      }
    }
    if (words) buf[out++] = mask >= 0 ? wordHash & mask : (wordHash >>> 0) % buckets;
    len = 0;
    wordHash = WORD_SEED | 0;
  }
  return buf.slice(0, out);
}

/** 1 = letter or mark, 2 = neither, 0 = not looked up yet; per BMP code point. */
const BMP_CLASS = new Uint8Array(0x10000);
const LETTER_OR_MARK = /[\p{L}\p{M}]/u;

/** Whether a code point is a letter (\p{L}) or a mark (\p{M}): the characters {@link normalise} keeps. */
function isLetterOrMark(cp: number): boolean {
  if (cp > 0xffff) return LETTER_OR_MARK.test(String.fromCodePoint(cp));
  let c = BMP_CLASS[cp]!;
  if (c === 0) { c = LETTER_OR_MARK.test(String.fromCharCode(cp)) ? 1 : 2; BMP_CLASS[cp] = c; }
  return c === 1;
}
