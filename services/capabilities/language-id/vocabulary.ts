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
 *
 * In memory ({@link VocabularyStage}) the words are an open-addressing hash table by word
 * hash, each with one list of `(label, bonus)` entries, the bonus in 16 bits (steps of
 * the largest bonus / 65,535, rounded: under 0.0001 nats a word for both models, whose
 * largest bonuses are 8 and 13); the
 * text is scanned for word hashes without making strings ({@link scanWords}) and the
 * top labels are found from a histogram of the probabilities' exponents
 * ({@link topLabels}). All three were chosen by `npm run bench:lid` (the stage's share of
 * the batch route's time) and answer as the straightforward forms do (tests).
 */
import { brotliDecompressSync } from 'node:zlib';
import { HOME_MIX, homeSlot, scanWords, tokenize, wordHashA, WORD_SEED_A } from './words.ts';
import { FNV_PRIME } from './features.ts';
import { temperatureFor, type TemperatureBucket } from './temperature.ts';

/** File of a language-ID model folder that holds its word-frequency stage; optional. */
export const VOCABULARY_FILE = 'vocabulary.txt.br';


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

/**
 * A loaded stage: an open-addressing hash table of words (by hash) to the labels that
 * write them and their bonus. Laid out for the batch route's hot path: a word the text
 * has costs two reads from memory (its slot, its entry list), not five (prefix index,
 * keys, starts, labels, bonuses) as with sorted parallel arrays.
 */
export interface VocabularyStage {
  lambda: number; scale: number; topK: number;
  /** longest text read (characters), Infinity for any */
  maxChars: number;
  calibration: readonly TemperatureBucket[];
  /** distinct words (hashes) with at least one entry */
  words: number;
  /** (label, word) entries with a bonus */
  entries: number;
  /** `2^slotBits` slots of two numbers: a word's hash, and the offset of its list in {@link VocabularyStage.lists} or, for a word one label writes, {@link INLINE} | its entry (0: empty slot); linear probing from {@link homeSlot} */
  table: Uint32Array;
  /** bits of a slot index */
  slotBits: number;
  /** per word that two or more labels write, from its offset: the number of entries `n`, then `n` entries `label << 16 | q` (label < 32,768), the bonus being `q · unit`; offset 0 unused */
  lists: Uint32Array;
  /** bonus of one step of `q` (`λ · ln …` of the largest entry / 65,535) */
  unit: number;
  /** scratch: per label its place in the current top list plus one, or 0 */
  slot: Uint8Array;
}

/** Flag of a table value that is a word's only entry rather than the offset of its list. */
const INLINE = 0x80000000;


/** Calls `each` for every word of a text as the stage reads it (lower case, NFC, harakat removed; Han characters skipped); the first 2,000 UTF-16 code units only. */
export function vocabularyTokens(text: string, each: (word: string) => void): void {
  tokenize(text, { word: (w) => each(w), han: () => {} });
}

/**
 * {@link wordHashA} of the word whose UTF-8 is `bytes[from … to − 1]`: the FNV-1a of its
 * UTF-16 code units (a code point above U+FFFF as its surrogate pair), as `wordHashA` of the
 * decoded string. The bytes must be well-formed UTF-8 (the file is written by
 * scripts/lid-vocabulary.ts from JavaScript strings).
 */
function utf8WordKey(bytes: Uint8Array, from: number, to: number): number {
  let h = WORD_SEED_A;
  for (let i = from; i < to;) {
    const b = bytes[i]!;
    let cp: number;
    if (b < 0x80) { cp = b; i += 1; }
    else if (b < 0xe0) { cp = ((b & 0x1f) << 6) | (bytes[i + 1]! & 0x3f); i += 2; }
    else if (b < 0xf0) { cp = ((b & 0x0f) << 12) | ((bytes[i + 1]! & 0x3f) << 6) | (bytes[i + 2]! & 0x3f); i += 3; }
    else {
      cp = ((b & 0x07) << 18) | ((bytes[i + 1]! & 0x3f) << 12) | ((bytes[i + 2]! & 0x3f) << 6) | (bytes[i + 3]! & 0x3f);
      i += 4;
      const hi = 0xd800 + ((cp - 0x10000) >> 10);
      h = Math.imul(h ^ hi, FNV_PRIME) >>> 0;
      cp = 0xdc00 + ((cp - 0x10000) & 0x3ff);
    }
    h = Math.imul(h ^ cp, FNV_PRIME) >>> 0;
  }
  return h;
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

/** `[0, 1, …, n − 1]` (a loop: `Uint32Array.from` with a function is several times slower on millions). */
function iota(n: number): Uint32Array {
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) out[i] = i;
  return out;
}

/** `N_L` at which the size power `α` leaves a rate as it is (words). */
const REFERENCE_TOTAL = 1e6;

/** The entries of a {@link VOCABULARY_FILE}, grouped by word (in home-slot order), before the stage's parameters are applied. */
export interface VocabularyCounts {
  header: VocabularyHeader;
  /** distinct word hashes, in the order of their home slots (ascending `key · HOME_MIX` mod 2³²); entries of keys[i] are start[i] ≤ e < start[i + 1] */
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
  // read as bytes: the words are hashed from their UTF-8 as they are met, without a string
  // per word (4.4 million for lid-neural-608) or a string of the whole 56 MB text
  const bytes = brotliDecompressSync(data);
  const firstBreak = bytes.indexOf(10);
  const header = JSON.parse(bytes.toString('utf8', 0, firstBreak < 0 ? bytes.length : firstBreak)) as VocabularyHeader;
  if (header.version !== 1) throw new Error(`vocabulary file: unknown version ${String(header.version)}`);
  const index = new Map(labels.map((l, i) => [l, i]));
  const n = header.entries;
  const keys = new Uint32Array(n), labelOf = new Uint16Array(n), countOf = new Uint32Array(n);
  const totalOf = new Float64Array(n);
  let e = 0, label = -1, total = 0;
  let pos = firstBreak < 0 ? bytes.length : firstBreak + 1;
  const len = bytes.length;
  while (pos < len) {
    let end = bytes.indexOf(10, pos);
    if (end < 0) end = len;
    if (bytes[pos] === 64 /* @ */) {
      const sp = bytes.indexOf(32, pos);
      const name = bytes.toString('utf8', pos + 1, sp < 0 || sp > end ? end : sp);
      const l = index.get(name);
      if (l === undefined) throw new Error(`vocabulary file: label ${name} is not one of the model's labels`);
      label = l;
      total = sp < 0 || sp > end ? NaN : Number(bytes.toString('latin1', sp + 1, end));
      if (!(total > 0)) throw new Error(`vocabulary file: label ${name} has no word count`);
    } else if (end > pos) {
      const tab = bytes.indexOf(9, pos);
      if (label < 0 || tab < 0 || tab > end) throw new Error(`vocabulary file: malformed line at byte ${pos}`);
      let count = 0;
      for (let i = pos; i < tab; i++) {
        const d = bytes[i]! - 48;
        if (d < 0 || d > 9) { count = 0; break; }
        count = count * 10 + d;
      }
      if (!(count >= 1)) throw new Error(`vocabulary file: bad count at byte ${pos}`);
      let w = tab + 1;
      while (w < end) {
        let sp = bytes.indexOf(32, w);
        if (sp < 0 || sp > end) sp = end;
        if (e >= n) throw new Error(`vocabulary file: more entries than the header's ${n}`);
        keys[e] = utf8WordKey(bytes, w, sp);
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
  // sorted by the mixed hash, a bijection of the key: equal keys are neighbours, and the
  // words come in the order of their home slots in the stage's table (homeSlot), which it
  // then fills front to back instead of at random
  const mixed = new Uint32Array(n);
  for (let i = 0; i < n; i++) mixed[i] = Math.imul(keys[i]!, HOME_MIX) >>> 0;
  const sorted = radixSort(mixed, iota(n));
  let distinct = 0;
  for (let i = 0; i < n; i++) if (i === 0 || sorted.keys[i] !== sorted.keys[i - 1]) distinct++;
  const out: VocabularyCounts = {
    header, keys: new Uint32Array(distinct), start: new Uint32Array(distinct + 1),
    labels: new Uint16Array(n), counts: new Uint32Array(n), totals: new Float64Array(n),
  };
  let d = -1;
  for (let i = 0; i < n; i++) {
    const from = sorted.order[i]!;
    if (i === 0 || sorted.keys[i] !== sorted.keys[i - 1]) { d++; out.keys[d] = keys[from]!; out.start[d] = i; }
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
  // a word in two blocks of one label (its two parts of text) counts at its higher bonus:
  // per word, each label's first entry keeps the larger and the others go to 0
  const firstOf = new Int32Array(labelCount).fill(-1);
  for (let i = 0; i + 1 < v.start.length; i++) {
    const from = v.start[i]!, end = v.start[i + 1]!;
    for (let e = from; e < end; e++) {
      const l = v.labels[e]!, f = firstOf[l]!;
      if (f < from) { firstOf[l] = e; continue; }
      bonus[f] = Math.max(bonus[f]!, bonus[e]!);
      bonus[e] = 0;
    }
  }
  let largest = 0, kept = 0;
  for (let e = 0; e < n; e++) if (bonus[e]! > 0) { kept++; if (bonus[e]! > largest) largest = bonus[e]!; }
  const unit = largest > 0 ? largest / 0xffff : 1;
  const words = v.keys.length;
  if (labelCount > 0x8000) throw new Error(`vocabulary stage: ${labelCount} labels, at most 32,768 fit an entry`);
  // lists in order of length, longest first: the words many labels write are the words most
  // texts have, and their lists then share a few megabytes that stay in the caches; a word
  // one label writes (most words) keeps its entry in its slot, and a word none does is left out
  const length = new Uint16Array(words);
  for (let i = 0; i < words; i++) for (let e = v.start[i]!, end = v.start[i + 1]!; e < end; e++) if (bonus[e]! > 0) length[i]!++;
  const shortness = new Uint32Array(words);
  let listed = 0, inTable = 0;
  for (let i = 0; i < words; i++) {
    shortness[i] = 0xffff - length[i]!;
    if (length[i]! > 1) listed += 1 + length[i]!;
    if (length[i]! > 0) inTable++;
  }
  const byLength = radixSort(shortness, iota(words)).order;
  const offset = new Uint32Array(words);
  let o = 1;
  for (const i of byLength) if (length[i]! > 1) { offset[i] = o; o += 1 + length[i]!; }
  // at most 0.8 of the slots full: a lookup reads one or two cache lines of the table
  const slotBits = Math.max(4, Math.ceil(Math.log2(inTable / 0.8 + 1)));
  const mask = (1 << slotBits) - 1;
  const table = new Uint32Array(2 << slotBits);
  const lists = new Uint32Array(1 + listed);
  // words in home-slot order (readVocabulary): the table fills front to back
  for (let i = 0; i < words; i++) {
    if (length[i] === 0) continue;
    let s = homeSlot(v.keys[i]!, slotBits);
    while (table[2 * s + 1] !== 0) s = (s + 1) & mask;
    table[2 * s] = v.keys[i]!;
    let at = offset[i]!;
    if (length[i]! > 1) { table[2 * s + 1] = at; lists[at++] = length[i]!; }
    for (let e = v.start[i]!, end = v.start[i + 1]!; e < end; e++) {
      if (!(bonus[e]! > 0)) continue;
      const entry = (v.labels[e]! << 16) | Math.round(bonus[e]! / unit);
      if (length[i] === 1) table[2 * s + 1] = (INLINE | entry) >>> 0;
      else lists[at++] = entry;
    }
  }
  return {
    lambda: params.lambda, scale: params.scale, topK: Math.max(1, Math.min(25, params.top_k)), maxChars: params.max_chars ?? Infinity,
    calibration: params.calibration.map((c) => ({ maxChars: c.max_chars, temperature: c.temperature })),
    words: inTable, entries: kept, table, slotBits, lists, unit, slot: new Uint8Array(labelCount),
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

/** A word hash's table value (the offset of its list, or {@link INLINE} | its only entry), or 0 when no label writes it. */
function find(stage: VocabularyStage, key: number): number {
  const { table } = stage;
  const mask = (1 << stage.slotBits) - 1;
  for (let s = homeSlot(key, stage.slotBits); ; s = (s + 1) & mask) {
    const o = table[2 * s + 1]!;
    if (o === 0) return 0;
    if (table[2 * s] === key) return o;
  }
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
  // the words of the text (hashes, repeats kept), then the table values of those the file
  // knows, before any per-label work. Each read of the table and of the lists is a miss to
  // memory (tens of megabytes); in loops of their own, with no read depending on the one
  // before, the processor overlaps them (11.4–13.4 against 17.1–19.4 µs a text when each word
  // was looked up during the scan; lid-neural-608, lid-eval sentences of 80–120 characters)
  scan.count = 0;
  scanWords(text, scan);
  const found = scan.found;
  const { table, slotBits, lists } = stage;
  let touched = 0;
  for (let w = 0, nw = scan.count; w < nw; w++) touched |= table[2 * homeSlot(found[w]! >>> 0, slotBits) + 1]!;
  let nFound = 0;
  for (let w = 0, nw = scan.count; w < nw; w++) { const o = find(stage, found[w]! >>> 0); if (o !== 0) found[nFound++] = o; }
  if (nFound === 0) return false;
  for (let f = 0; f < nFound; f++) { const o = found[f]!; if (o > 0) touched |= lists[o]!; }
  touchedSink = touched;
  const K = stage.topK;
  const top = topScratch;
  const nTop = topLabels(probs, K, top);
  if (nTop < 2) return false;
  const { slot } = stage;
  for (let k = 0; k < nTop; k++) slot[top[k]!] = k + 1;
  // score[k + 1]: the k-th top label's bonus in steps of `unit`; the other labels' entries
  // go to score[0], so that the loop over a word's entries has no branch
  const score = scoreScratch.fill(0);
  for (let f = 0; f < nFound; f++) {
    const o = found[f]!;
    if (o < 0) { const entry = o & 0x7fffffff; score[slot[entry >>> 16]!]! += entry & 0xffff; continue; } // INLINE, read as int32
    for (let e = o + 1, end = o + 1 + lists[o]!; e < end; e++) {
      const entry = lists[e]!;
      score[slot[entry >>> 16]!]! += entry & 0xffff;
    }
  }
  for (let k = 0; k < nTop; k++) slot[top[k]!] = 0;
  let known = false;
  for (let k = 1; k <= nTop; k++) if (score[k]! > 0) known = true;
  if (!known) return false;
  const inv = 1 / temperatureFor(stage.calibration, chars);
  const z = zScratch;
  let mass = 0, max = -Infinity;
  for (let k = 0; k < nTop; k++) {
    const p = probs[top[k]!]!;
    mass += p;
    z[k] = (Math.log(p) + score[k + 1]! * stage.unit) * inv;
    if (z[k]! > max) max = z[k]!;
  }
  let sum = 0;
  for (let k = 0; k < nTop; k++) { z[k] = Math.exp(z[k]! - max); sum += z[k]!; }
  for (let k = 0; k < nTop; k++) probs[top[k]!] = (mass * z[k]!) / sum;
  return true;
}

/**
 * Inserts the labels `from[0 … count − 1]` (in that order) into the list `top` of the `K`
 * largest positive probabilities, largest first, ties to the label inserted first; the
 * smallest of a full list is kept in a local, so most labels cost one comparison.
 * @returns the length of the list (at most K)
 */
function insertTop(probs: Float32Array | Float64Array, K: number, top: Int32Array, from: Int32Array, count: number): number {
  let nTop = 0, least = 0;
  for (let j = 0; j < count; j++) {
    const c = from[j]!;
    const v = probs[c]!;
    if (v <= least) continue;
    let i = nTop === K ? K - 1 : nTop++;
    while (i > 0 && probs[top[i - 1]!]! < v) { top[i] = top[i - 1]!; i--; }
    top[i] = c;
    if (nTop === K) least = probs[top[K - 1]!]!;
  }
  return nTop;
}

/**
 * The `K` largest positive probabilities of a row into `top`, largest first, ties to the
 * lower label index. A histogram of the values' binary exponents (the bits of a positive
 * IEEE 754 single order as its value) finds the exponent of the `K`-th largest; only the
 * labels at or above it (about 25 of the 600 on the batch route's rows) go through the
 * insertion ({@link insertTop}), in label order: the same list as inserting every label,
 * at about two thirds of the cost.
 * @returns the length of the list (at most K; fewer when fewer are positive)
 */
export function topLabels(probs: Float32Array | Float64Array, K: number, top: Int32Array): number {
  // a Float64Array row (decode(), scripts, tests) is rounded for its exponents only: rounding
  // keeps the order (never reverses it), so the labels at or above the cut still hold the K largest
  const row = probs instanceof Float32Array ? probs : Float32Array.from(probs);
  const n = row.length;
  const bits = new Uint32Array(row.buffer, row.byteOffset, n);
  const hist = exponentScratch.fill(0);
  for (let c = 0; c < n; c++) hist[bits[c]! >>> 23]!++; // 1–254: positive normal; 0: zero, subnormal; 255: Inf, NaN; ≥ 256: negative
  let cut = 254, above = hist[254]!;
  while (above < K && cut > 0) above += hist[--cut]!;
  if (candidateScratch.length < n) candidateScratch = new Int32Array(n);
  const candidates = candidateScratch;
  let m = 0;
  for (let c = 0; c < n; c++) { const e = bits[c]! >>> 23; if (e >= cut && e < 255) candidates[m++] = c; }
  return insertTop(probs, K, top, candidates, m);
}

const exponentScratch = new Uint32Array(512);
let candidateScratch = new Int32Array(1024);

/** Scratch of {@link refineWithVocabulary} (it runs to the end without yielding, so one set serves every stage). */
const topScratch = new Int32Array(25);
/** Where {@link refineWithVocabulary} stores what its touching reads gave, so that the compiler keeps those reads. */
let touchedSink = 0;
/** bonuses in steps of `unit`: at most 1,000 words (MAX_WORD_TEXT code units) × 65,535 fit in 32 bits */
const scoreScratch = new Int32Array(26);
const zScratch = new Float64Array(25);
/**
 * The word scan's sink: collects the hash of every word of the text (int32 bits of the
 * unsigned hash); {@link refineWithVocabulary} then replaces them, in place, with the
 * table values of the words the file knows (a list offset, or INLINE | entry, negative as int32).
 */
const scan = {
  found: new Int32Array(64),
  count: 0,
  word(hash: number): void {
    if (this.count === this.found.length) { const grown = new Int32Array(2 * this.count); grown.set(this.found); this.found = grown; }
    this.found[this.count++] = hash;
  },
  han(): void {},
};
