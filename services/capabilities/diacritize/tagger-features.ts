/**
 * Features of diactag-2.0 (issue 13): for each letter that may take a mark (a slot), the
 * hashed ids of its context in the text without marks, lower case. The model
 * (scripts/train-diacritics.ts, graph scripts/lid-onnx.ts) averages their embeddings and
 * picks the letter's marked form among those the training text has for that letter in
 * that language. Features (Mihalcea 2002 and Náplava et al. 2018 use the same kinds of
 * context): the letter; each character at offsets ±1…±4; the character 2-, 3- and
 * 4-grams that contain the letter; the word with the letter's position in it; the word
 * with the previous and with the next word. Every feature is hashed with the language
 * (FNV-1a, services/capabilities/language-id/features.ts), so languages share no weights.
 */
import { fnv1a } from '../language-id/features.ts';
import type { Unit } from './marks.ts';

/** Settings of the features (stored in the model's config.json). */
export interface TaggerFeatureSpec {
  /** hash buckets (rows of the embedding table) */
  buckets: number;
  /** characters of context on each side (the single-character features) */
  window: number;
}

/** A text prepared for features: one character per unit, and its words. */
export interface Prepared {
  /** per unit: its base (letters lower case), digits as `0`, white space as ` ` */
  chars: string[];
  /** per unit: index of its word in `words`, or -1 outside words */
  wordOf: Int32Array;
  /** per unit: position of the unit in its word */
  posOf: Int32Array;
  /** the words, lower case, without marks */
  words: string[];
}

/**
 * Longest word (UTF-16 code units) that its word features name; a longer one is named
 * {@link LONG_WORD}. Hashing a word costs its length and each of its letters hashes it,
 * so without this cap a 20,000-letter "word" cost 4.5 s of an inference thread
 * (quadratic); no word of the training text is this long.
 */
export const MAX_WORD_CHARS = 64;
/** The name word features give a word longer than {@link MAX_WORD_CHARS}. */
const LONG_WORD = '\u0000long';

/** Prepares units for {@link slotFeatures}. */
export function prepare(us: readonly Unit[]): Prepared {
  const n = us.length;
  const chars = new Array<string>(n);
  const wordOf = new Int32Array(n).fill(-1);
  const posOf = new Int32Array(n);
  const words: string[] = [];
  let cur = '';
  let start = -1;
  for (let i = 0; i <= n; i++) {
    const u = us[i];
    if (u) chars[i] = u.context;
    if (u?.letter) {
      if (start < 0) { start = i; cur = ''; }
      wordOf[i] = words.length; posOf[i] = i - start; cur += u.base;
    } else if (start >= 0) {
      words.push(cur.length > MAX_WORD_CHARS ? LONG_WORD : cur); start = -1;
    }
  }
  return { chars, wordOf, posOf, words };
}

const ch = (p: Prepared, i: number) => (i < 0 || i >= p.chars.length ? '^' : p.chars[i]!);

/** FNV-1a seeds of the languages. */
const SEEDS = new Map<string, number>();
/** The offset tags `-k` and `+k`, and the n-gram tags `<n><start>` by n and start + n - 1, built once. */
const MINUS = Array.from({ length: 9 }, (_, o) => `-${o}`);
const PLUS = Array.from({ length: 9 }, (_, o) => `+${o}`);
const NGRAM = Array.from({ length: 5 }, (_, n) => Array.from({ length: n }, (_, k) => `${n}${k - n + 1}`));

/** FNV-1a (as {@link fnv1a}) continued over the code units of `s`: hashing pieces in turn equals hashing their concatenation. */
function more(h: number, s: string): number {
  for (let i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 0x01000193) >>> 0; }
  return h;
}

/** The most features {@link slotFeatures} gives a slot: the letter, 2 × window offsets, nine n-grams and four word features. */
export const maxSlotFeatures = (spec: TaggerFeatureSpec): number => 1 + 2 * spec.window + 9 + 4;

/**
 * Feature ids of the slot at unit `i` (ids < spec.buckets). Each feature is the FNV-1a
 * hash, seeded with the language's hash, of a tag and its content (`l` + the letter,
 * `-k`/`+k` + the character at that offset, `<n><start>` + the n-gram, `w<pos>|word`,
 * `p<pos>|prev|word`, `n<pos>|word|next`, `x<pos>|prev|word|next`), computed piece by
 * piece without building the strings.
 * @param language ISO 639-3 code (`ara` for both Arabic settings)
 */
export function slotFeatures(p: Prepared, i: number, language: string, spec: TaggerFeatureSpec): Uint32Array {
  const out = new Uint32Array(maxSlotFeatures(spec));
  return out.slice(0, slotFeaturesInto(p, i, language, spec, out, 0));
}

/**
 * {@link slotFeatures} written into `out` from index `at` (no array per slot: the
 * backends fill one batch matrix, {@link maxSlotFeatures} per row).
 * @returns the number of ids written (4 fewer for a letter outside a word)
 */
export function slotFeaturesInto(p: Prepared, i: number, language: string, spec: TaggerFeatureSpec, out: Uint32Array | Int32Array, at: number): number {
  let seed = SEEDS.get(language);
  if (seed === undefined) { seed = fnv1a(language); SEEDS.set(language, seed); }
  const w = p.wordOf[i]!;
  const B = spec.buckets;
  // each hash reduced to a bucket in place (no closure per call: this runs for every letter)
  let k = at;
  out[k++] = (more(more(seed, 'l'), ch(p, i)) >>> 0) % B;
  for (let o = 1; o <= spec.window; o++) {
    out[k++] = (more(more(seed, MINUS[o] ?? `-${o}`), ch(p, i - o)) >>> 0) % B;
    out[k++] = (more(more(seed, PLUS[o] ?? `+${o}`), ch(p, i + o)) >>> 0) % B;
  }
  for (let n = 2; n <= 4; n++) {
    for (let s = i - n + 1; s <= i; s++) {
      let h = more(seed, NGRAM[n]![s - i + n - 1]!);
      for (let j = s; j < s + n; j++) h = more(h, ch(p, j));
      out[k++] = (h >>> 0) % B;
    }
  }
  if (w >= 0) {
    const word = p.words[w]!;
    const pos = String(p.posOf[i]!);
    const prev = p.words[w - 1] ?? '^'; const next = p.words[w + 1] ?? '$';
    out[k++] = (more(more(more(more(seed, 'w'), pos), '|'), word) >>> 0) % B;
    out[k++] = (more(more(more(more(more(more(seed, 'p'), pos), '|'), prev), '|'), word) >>> 0) % B;
    out[k++] = (more(more(more(more(more(more(seed, 'n'), pos), '|'), word), '|'), next) >>> 0) % B;
    out[k++] = (more(more(more(more(more(more(more(more(seed, 'x'), pos), '|'), prev), '|'), word), '|'), next) >>> 0) % B;
  }
  return k - at;
}
