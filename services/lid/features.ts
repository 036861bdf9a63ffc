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

/** 32-bit FNV-1a over the UTF-16 code units of `s`, seeded by `seed` (FNV spec, Fowler/Noll/Vo). */
export function fnv1a(s: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
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

/**
 * Feature ids of one text.
 * @returns bucket ids in [0, spec.buckets), one per n-gram occurrence or word; empty
 *   when the text has no letters
 */
export function featureIds(text: string, spec: FeatureSpec): Uint32Array {
  const norm = normalise(text, spec.maxChars);
  if (norm.length === 0) return new Uint32Array(0);
  const out: number[] = [];
  for (const word of norm.split(' ')) {
    const chars = Array.from(` ${word} `);
    for (let n = spec.minN; n <= spec.maxN; n++) {
      for (let i = 0; i + n <= chars.length; i++) {
        // a lone boundary space carries no information
        if (n === 1 && chars[i] === ' ') continue;
        out.push(fnv1a(chars.slice(i, i + n).join('')) % spec.buckets);
      }
    }
    if (spec.words) out.push(fnv1a(word, WORD_SEED) % spec.buckets);
  }
  return Uint32Array.from(out);
}
