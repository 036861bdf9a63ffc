/**
 * Word-frequency stage of language ID: how often each label's training text writes each
 * word re-ranks the labels the first stage (and the second stage of confusable clusters,
 * ./clusters.ts) ranks highest.
 *
 * The first stage hashes whole words into the same buckets as character n-grams, so a word
 * it was trained on shares its weights with thousands of n-grams; a single word or a pair
 * of words gives it little to go on. Here each of the top {@link VocabularyStage.topK}
 * labels `L` gets, for each word `w` of the text (repeats counted), the bonus
 * `λ · min(B, ln(1 + S · max(c_L(w) − D, 0) / N_L · (N_L / 10⁶)^α))`, where `c_L(w)` is how often
 * `L`'s training text writes `w` and `N_L` how many words that text has: a word the label
 * never wrote adds nothing, a word it writes often adds most. A rate (`α` = 0) favours the
 * labels with little text: the words they have, they write often, and the ones they lack
 * cost nothing (a Moroccan tweet's or a Hassaniya news text's Standard Arabic word against
 * Arabic news and Wikipedia); the discount `D` (absolute discounting), `α` > 0 and the
 * limit `B` on one word's bonus weigh against that. The scores `(ln p(L) + bonus_L) / T` are renormalised over
 * the top labels, which keep their total probability, so the other labels, the script mask
 * and `candidates` are untouched, and a text with no word any of them wrote keeps the
 * earlier stages' answer. `S`, `λ`, `D`, `α`, `B` (per model, on the news development set) and the
 * temperatures `T` by text length (held-out split, negative log-likelihood: temperature
 * scaling, Guo et al. 2017) are chosen by scripts/lid-vocabulary.ts, which builds the file
 * from the training text (scripts/lid-data.ts). It is a product of experts (Hinton 2002)
 * of the classifier and a smoothed unigram word model in the manner of naive Bayes
 * language identification (Dunning 1994, "Statistical Identification of Language").
 *
 * File ({@link VOCABULARY_FILE}, Brotli-compressed UTF-8 text, read once at model load):
 * line 1 is a JSON {@link VocabularyHeader}; then blocks of a line `@<label> <N_L>` and
 * lines `<count>\t<word> <word> …` (count descending). A label may have several blocks
 * (parts of its text: parallel sources and the rest, scripts/lid-vocabulary.ts); a word
 * counts at its highest bonus among them. Words are tokens of
 * {@link vocabularyTokens}: lower case, NFC, Arabic harakat removed. Han is left to the
 * first stage and the clusters' character features: a sentence of Chinese is a run of
 * characters without spaces, not words.
 */
import { brotliDecompressSync } from 'node:zlib';
import { fnv1a } from './features.ts';
import { tokenize } from './clusters.ts';
import { temperatureFor, type TemperatureBucket } from './temperature.ts';

/** File of a language-ID model folder that holds its word-frequency stage; optional. */
export const VOCABULARY_FILE = 'vocabulary.txt.br';

/** Seed of the word hash ({@link fnv1a}); any value, fixed so that files and code agree. */
const WORD_SEED = 0x2545f491;

/** Line 1 of {@link VOCABULARY_FILE}. */
export interface VocabularyHeader {
  /** format version: 1 */
  version: 1;
  /** `S`: the word rate `c/N` is multiplied by it inside the logarithm (see the module comment) */
  scale: number;
  /** `λ`: weight of the word bonus against the earlier stages' log-probabilities */
  lambda: number;
  /** `D`: absolute discount of each count (Ney, Essen and Kneser 1994), so that a word a small text wrote once does not weigh as much as its rate says */
  discount: number;
  /** `B`: most one word adds before `λ` (null: no limit), so that two labels that both write a word often tie on it and the earlier stages decide: rates compare registers as much as languages (Nigerian Pidgin's tweets write "thank you" more often than English news and Wikipedia) */
  max_bonus: number | null;
  /** `α`: the rate is divided by `(N_L / 10⁶)^α`, between rates (0) and counts (1): a rate favours the labels with little text, which write the words they have often */
  size_power: number;
  /** how many of the highest-ranked labels are re-ranked (1–25) */
  top_k: number;
  /** longest text (characters, code points, trimmed) the stage reads; null: any. A cost cap: the stage roughly halves a model's speed on sentences, and gains most on one or two words */
  max_chars: number | null;
  /** temperatures of the re-ranked scores by text length (characters, code points, trimmed), shortest bucket first; the last has `max_chars` null */
  calibration: Array<{ max_chars: number | null; temperature: number }>;
  /** number of (label, word) entries in the file */
  entries: number;
}

/** A loaded stage: words by hash, each with the labels that write it and their bonus. */
export interface VocabularyStage {
  lambda: number; scale: number; topK: number;
  /** longest text read (characters), Infinity for any */
  maxChars: number;
  calibration: readonly TemperatureBucket[];
  /** distinct word hashes, ascending */
  keys: Uint32Array;
  /** keys whose top {@link VocabularyStage.prefixBits} bits are p are keys[prefix[p]] … keys[prefix[p + 1] − 1] */
  prefix: Uint32Array;
  /** bits of a hash that index {@link VocabularyStage.prefix} */
  prefixBits: number;
  /** entries of keys[i]: start[i] ≤ e < start[i + 1] */
  start: Uint32Array;
  /** label index (labels.json order) per entry */
  labels: Uint16Array;
  /** `λ · ln(1 + S · c/N)` per entry */
  bonus: Float32Array;
  /** scratch: per label its place in the current top list, or -1 */
  slot: Int16Array;
}

/** Calls `each` for every word of a text as the stage reads it (lower case, NFC, harakat removed; Han characters skipped); the first 2,000 UTF-16 code units only. */
export function vocabularyTokens(text: string, each: (word: string) => void): void {
  tokenize(text, { word: (w) => each(w), han: () => {} });
}

/** The hash a word is stored and looked up under. */
export function wordKey(word: string): number {
  return fnv1a(word, WORD_SEED);
}

/**
 * Sorts `keys` ascending by LSD radix sort (two passes of 16 bits), carrying `order`
 * along; both arrays are replaced by their sorted copies in the result.
 */
function radixSort(keys: Uint32Array, order: Uint32Array): { keys: Uint32Array; order: Uint32Array } {
  const n = keys.length;
  let k: Uint32Array = keys, o: Uint32Array = order;
  let k2: Uint32Array = new Uint32Array(n), o2: Uint32Array = new Uint32Array(n);
  for (const shift of [0, 16]) {
    const count = new Uint32Array(65537);
    for (let i = 0; i < n; i++) count[((k[i]! >>> shift) & 0xffff) + 1]!++;
    for (let d = 0; d < 65536; d++) count[d + 1]! += count[d]!;
    for (let i = 0; i < n; i++) { const d = (k[i]! >>> shift) & 0xffff; const p = count[d]!++; k2[p] = k[i]!; o2[p] = o[i]!; }
    [k, k2] = [k2, k];
    [o, o2] = [o2, o];
  }
  return { keys: k, order: o };
}

/** `N_L` at which the size power `α` leaves a rate as it is (words). */
const REFERENCE_TOTAL = 1e6;

/** The entries of a {@link VOCABULARY_FILE}, sorted by word hash, before the stage's parameters are applied. */
export interface VocabularyCounts {
  header: VocabularyHeader;
  /** distinct word hashes, ascending; entries of keys[i] are start[i] ≤ e < start[i + 1] */
  keys: Uint32Array; start: Uint32Array;
  /** per entry: label index (labels.json order), the word's count, the word total `N_L` of its block */
  labels: Uint16Array; counts: Uint32Array; totals: Float64Array;
}

/**
 * Reads a {@link VOCABULARY_FILE} into its entries ({@link loadVocabulary} adds the bonus).
 * @param data the file's bytes (Brotli)
 * @param labels the model's labels (labels.json order)
 * @throws Error on an unknown version, a label the model does not have, a malformed line,
 *   or more or fewer entries than the header says
 */
export function readVocabulary(data: Uint8Array, labels: readonly string[]): VocabularyCounts {
  const text = brotliDecompressSync(data).toString('utf8');
  const firstBreak = text.indexOf('\n');
  const header = JSON.parse(text.slice(0, firstBreak)) as VocabularyHeader;
  if (header.version !== 1) throw new Error(`vocabulary file: unknown version ${String(header.version)}`);
  const index = new Map(labels.map((l, i) => [l, i]));
  const n = header.entries;
  const keys = new Uint32Array(n), labelOf = new Uint16Array(n), countOf = new Uint32Array(n);
  const totalOf = new Float64Array(n);
  let e = 0, label = -1, total = 0;
  let pos = firstBreak + 1;
  while (pos < text.length) {
    let end = text.indexOf('\n', pos);
    if (end < 0) end = text.length;
    if (text.charCodeAt(pos) === 64 /* @ */) {
      const sp = text.indexOf(' ', pos);
      const name = text.slice(pos + 1, sp);
      const l = index.get(name);
      if (l === undefined) throw new Error(`vocabulary file: label ${name} is not one of the model's labels`);
      label = l;
      total = Number(text.slice(sp + 1, end));
      if (!(total > 0)) throw new Error(`vocabulary file: label ${name} has no word count`);
    } else if (end > pos) {
      const tab = text.indexOf('\t', pos);
      if (label < 0 || tab < 0 || tab > end) throw new Error(`vocabulary file: malformed line at byte ${pos}`);
      const count = Number(text.slice(pos, tab));
      if (!(count >= 1)) throw new Error(`vocabulary file: bad count at byte ${pos}`);
      let w = tab + 1;
      while (w < end) {
        let sp = text.indexOf(' ', w);
        if (sp < 0 || sp > end) sp = end;
        if (e >= n) throw new Error(`vocabulary file: more entries than the header's ${n}`);
        keys[e] = wordKey(text.slice(w, sp));
        labelOf[e] = label;
        countOf[e] = count;
        totalOf[e] = total;
        e++;
        w = sp + 1;
      }
    }
    pos = end + 1;
  }
  if (e !== n) throw new Error(`vocabulary file: ${e} entries, the header says ${n}`);
  const sorted = radixSort(keys, Uint32Array.from({ length: n }, (_, i) => i));
  let distinct = 0;
  for (let i = 0; i < n; i++) if (i === 0 || sorted.keys[i] !== sorted.keys[i - 1]) distinct++;
  const out: VocabularyCounts = {
    header, keys: new Uint32Array(distinct), start: new Uint32Array(distinct + 1),
    labels: new Uint16Array(n), counts: new Uint32Array(n), totals: new Float64Array(n),
  };
  let d = -1;
  for (let i = 0; i < n; i++) {
    const key = sorted.keys[i]!;
    if (d < 0 || key !== out.keys[d]) { d++; out.keys[d] = key; out.start[d] = i; }
    const from = sorted.order[i]!;
    out.labels[i] = labelOf[from]!;
    out.counts[i] = countOf[from]!;
    out.totals[i] = totalOf[from]!;
  }
  out.start[distinct] = n;
  return out;
}

/**
 * The stage of read entries with parameters (by default the file's own): each entry's
 * bonus `λ · min(B, ln(1 + S · max(c − D, 0) / N_L · (N_L / 10⁶)^α))`.
 * @param labelCount the model's number of labels
 */
export function vocabularyStage(v: VocabularyCounts, labelCount: number, params: Pick<VocabularyHeader, 'scale' | 'lambda' | 'discount' | 'size_power' | 'max_bonus' | 'top_k' | 'max_chars' | 'calibration'> = v.header): VocabularyStage {
  const n = v.labels.length;
  const bonus = new Float32Array(n);
  const most = params.max_bonus ?? Infinity;
  for (let e = 0; e < n; e++) {
    const total = v.totals[e]!;
    bonus[e] = params.lambda * Math.min(most, Math.log1p((params.scale * Math.max(v.counts[e]! - params.discount, 0) * (total / REFERENCE_TOTAL) ** params.size_power) / total));
  }
  // a word in two blocks of one label (its two parts of text) counts at its higher bonus
  for (let i = 0; i + 1 < v.start.length; i++) {
    const end = v.start[i + 1]!;
    for (let e = v.start[i]!; e < end; e++) {
      for (let f = e + 1; f < end; f++) {
        if (v.labels[f] !== v.labels[e]) continue;
        bonus[e] = Math.max(bonus[e]!, bonus[f]!);
        bonus[f] = 0;
      }
    }
  }
  // an index by the top bits of the hash, about two keys per slot: a lookup reads one slot
  // and a few neighbouring keys instead of binary-searching megabytes (a cache miss a step)
  const prefixBits = Math.max(4, Math.min(24, Math.ceil(Math.log2(Math.max(1, v.keys.length / 2)))));
  const prefix = new Uint32Array((1 << prefixBits) + 1);
  const shift = 32 - prefixBits;
  for (let i = 0, p = 0; p <= 1 << prefixBits; p++) {
    while (i < v.keys.length && v.keys[i]! >>> shift < p) i++;
    prefix[p] = i;
  }
  return {
    lambda: params.lambda, scale: params.scale, topK: Math.max(1, Math.min(25, params.top_k)), maxChars: params.max_chars ?? Infinity,
    calibration: params.calibration.map((c) => ({ maxChars: c.max_chars, temperature: c.temperature })),
    keys: v.keys, prefix, prefixBits, start: v.start, labels: v.labels, bonus, slot: new Int16Array(labelCount).fill(-1),
  };
}

/**
 * Reads a {@link VOCABULARY_FILE} and makes its stage ({@link readVocabulary}, {@link vocabularyStage}).
 * @param data the file's bytes (Brotli)
 * @param labels the model's labels (labels.json order)
 * @throws Error as {@link readVocabulary}
 */
export function loadVocabulary(data: Uint8Array, labels: readonly string[]): VocabularyStage {
  return vocabularyStage(readVocabulary(data, labels), labels.length);
}

/** Index of `key` in the stage's keys, or -1: the keys of its prefix slot, scanned. */
function find(stage: VocabularyStage, key: number): number {
  const p = key >>> (32 - stage.prefixBits);
  const { keys } = stage;
  for (let i = stage.prefix[p]!, end = stage.prefix[p + 1]!; i < end; i++) {
    const k = keys[i]!;
    if (k === key) return i;
    if (k > key) return -1;
  }
  return -1;
}


/**
 * Re-ranks, in place, the {@link VocabularyStage.topK} most probable labels of a
 * probability row by the words of the text (see the module comment). Labels at 0 stay at 0.
 * @param probs probabilities per label (length = labels), summing to 1; changed in place
 * @param text the text of the row
 * @param chars characters of the trimmed text (code points), for the temperature
 * @returns whether a word of the text was known to one of the top labels (and the row
 *   changed); false for a text longer than the stage's `max_chars`
 */
export function refineWithVocabulary(probs: Float32Array | Float64Array, stage: VocabularyStage, text: string, chars: number): boolean {
  if (chars > stage.maxChars) return false;
  // the words of the text the file knows (index into keys, repeats kept), before any per-label work
  scan.stage = stage;
  scan.count = 0;
  tokenize(text, scan);
  const nFound = scan.count;
  if (nFound === 0) return false;
  const K = stage.topK;
  // the K largest positive probabilities, largest first (insertion into a K-list)
  const top = topScratch;
  let nTop = 0;
  for (let c = 0, n = probs.length; c < n; c++) {
    const v = probs[c]!;
    if (v <= 0 || (nTop === K && v <= probs[top[K - 1]!]!)) continue;
    let i = nTop === K ? K - 1 : nTop++;
    while (i > 0 && probs[top[i - 1]!]! < v) { top[i] = top[i - 1]!; i--; }
    top[i] = c;
  }
  if (nTop < 2) return false;
  const { slot, start, labels, bonus } = stage;
  for (let k = 0; k < nTop; k++) slot[top[k]!] = k;
  const score = scoreScratch.fill(0, 0, nTop);
  let known = false;
  for (let f = 0; f < nFound; f++) {
    const i = scan.found[f]!;
    for (let e = start[i]!, end = start[i + 1]!; e < end; e++) {
      const k = slot[labels[e]!]!;
      if (k >= 0) { score[k]! += bonus[e]!; known = true; }
    }
  }
  for (let k = 0; k < nTop; k++) slot[top[k]!] = -1;
  if (!known) return false;
  const inv = 1 / temperatureFor(stage.calibration, chars);
  let mass = 0, max = -Infinity;
  for (let k = 0; k < nTop; k++) {
    const p = probs[top[k]!]!;
    mass += p;
    score[k] = (Math.log(p) + score[k]!) * inv;
    if (score[k]! > max) max = score[k]!;
  }
  let sum = 0;
  for (let k = 0; k < nTop; k++) { score[k] = Math.exp(score[k]! - max); sum += score[k]!; }
  for (let k = 0; k < nTop; k++) probs[top[k]!] = (mass * score[k]!) / sum;
  return true;
}

/** Scratch of {@link refineWithVocabulary} (it runs to the end without yielding, so one set serves every stage). */
const topScratch = new Int32Array(25);
const scoreScratch = new Float64Array(25);
/** The tokenizer's sink: collects the key index of every known word of the text. */
const scan = {
  stage: null as VocabularyStage | null,
  found: new Int32Array(64),
  count: 0,
  word(w: string): void {
    const i = find(this.stage!, wordKey(w));
    if (i < 0) return;
    if (this.count === this.found.length) { const grown = new Int32Array(2 * this.count); grown.set(this.found); this.found = grown; }
    this.found[this.count++] = i;
  },
  han(): void {},
};
