/**
 * Second stage of language ID for clusters of confusable languages (issue 14): a
 * log-linear classifier over the members' frequent words and word pairs, trained only on
 * the cluster's training text (scripts/lid-clusters.ts), that re-ranks the members of a
 * cluster when the first stage's best label is one of them.
 *
 * The first stage (a bag of hashed character n-grams) tells scripts and language
 * families apart well but mixes up languages that share most of their n-grams
 * (Bokmål "ikke" / Nynorsk "ikkje", Croatian "tisuća" / Serbian "hiljada"); a cluster's own
 * classifier can give those distinctive words a weight of their own. Combination
 * (a product of experts, Hinton 2002): inside the cluster,
 * `p(m) ∝ p₁(m) · exp(λ · s_m)`, where `s_m` is the member's score (sum of the weights of
 * the text's features, no bias, so a text without known features keeps the first
 * stage's ranking), and the cluster keeps the first stage's total probability, so labels
 * outside the cluster, masks and candidate restrictions are unchanged. λ is chosen per
 * model and cluster on the held-out split; a cluster that does not win there, or that
 * gets fewer of the project's check sentences right, is not shipped (scripts/lid-clusters.ts).
 */

import { homeSlot, scanWords, tokenize, wordHashA, wordHashB, type WordSink } from './words.ts';

/** File of a language-ID model folder that holds its second stages (gzip JSON, {@link ClusterFile}); optional. */
export const CLUSTERS_FILE = 'clusters.json.gz';

/** A cluster's classifier as stored in a model folder's {@link CLUSTERS_FILE}. */
export interface ClusterSpec {
  /** labels of the members (ISO 639-3 + ISO 15924), in weight order */
  members: string[];
  /** weight of the second stage's scores against the first stage's log-probabilities */
  lambda: number;
  /** feature (see {@link clusterFeatures}) → one weight per member */
  weights: Record<string, number[]>;
}

/** Contents of {@link CLUSTERS_FILE}. */
export interface ClusterFile {
  /** format version: 1 */
  version: 1;
  clusters: ClusterSpec[];
}

/**
 * A loaded cluster: member label indexes and weights by feature. Words and word pairs are
 * found by their two 32-bit hashes (./words.ts: {@link wordHashA}, {@link wordHashB}; a
 * pair's from its words' by {@link pairHashes}) in an open-addressing table, so that
 * scoring makes no strings; both hashes must match, so a text's word takes another's
 * weights only if they agree in 64 bits. Han characters are keyed by their code units.
 */
interface LoadedCluster {
  members: Int32Array; lambda: number;
  /** slots of three numbers: hash a, hash b, row + 1 (0: empty); linear probing from {@link homeSlot} of hash a */
  table: Uint32Array;
  /** bits of a slot index */
  slotBits: number;
  /** Han features: a character's code unit, or first · 65,536 + second for two → row */
  han: Map<number, number>;
  /** [features × members] */
  weights: Float32Array;
  /** per row: the text generation that last counted it (each feature counts once per text) */
  seen: Uint32Array;
  generation: number;
  /** scratch: the members' scores of the current text */
  scores: Float64Array;
}

/** Mixed into a pair's hashes (any constant). */
const PAIR_KIND = 0x5f3759df;

/** MurmurHash3's 32-bit finaliser (Appleby): every input bit moves every output bit. */
function fmix32(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** The two hashes of the pair (first word, second word), from the words' hashes; `out` gets [a, b]. */
function pairHashes(a1: number, b1: number, a2: number, b2: number, out: Uint32Array): Uint32Array {
  out[0] = fmix32(fmix32(a1 ^ PAIR_KIND) ^ a2);
  out[1] = fmix32(fmix32(b1 + PAIR_KIND) ^ b2);
  return out;
}

/** Row of the key (a, b) in a cluster's table, or -1. */
function lookup(c: LoadedCluster, a: number, b: number): number {
  const t = c.table, mask = (1 << c.slotBits) - 1;
  for (let s = homeSlot(a, c.slotBits); ; s = (s + 1) & mask) {
    const row = t[3 * s + 2]!;
    if (row === 0) return -1;
    if (t[3 * s] === a && t[3 * s + 1] === b) return row - 1;
  }
}

/** Puts the key (a, b) → row into a table with free slots. */
function insert(t: Uint32Array, bits: number, a: number, b: number, row: number): void {
  const mask = (1 << bits) - 1;
  let s = homeSlot(a, bits);
  while (t[3 * s + 2] !== 0) s = (s + 1) & mask;
  t[3 * s] = a; t[3 * s + 1] = b; t[3 * s + 2] = row + 1;
}

/** The second stages of one model, indexed by the label whose top rank triggers them. */
export interface ClusterStages {
  /** per label: the clusters containing it, in file order */
  byLabel: ReadonlyArray<readonly LoadedCluster[] | undefined>;
  /** clusters loaded */
  count: number;
}

/**
 * Builds the second stages of a model.
 * @param labels the model's labels (labels.json)
 * @throws when a cluster names a label the model does not have, or a weight row has the
 *   wrong length
 */
export function loadClusterStages(file: ClusterFile, labels: readonly string[]): ClusterStages {
  if (file.version !== 1) throw new Error(`clusters file: unknown version ${String(file.version)}`);
  const index = new Map(labels.map((l, i) => [l, i]));
  const byLabel: Array<LoadedCluster[] | undefined> = new Array(labels.length);
  for (const c of file.clusters) {
    const members = Int32Array.from(c.members, (l) => {
      const i = index.get(l);
      if (i === undefined) throw new Error(`clusters file: label ${l} is not one of the model's labels`);
      return i;
    });
    const entries = Object.entries(c.weights);
    const M = members.length;
    // at most half of the slots full
    const slotBits = Math.max(4, Math.ceil(Math.log2(2 * entries.length + 1)));
    const loaded: LoadedCluster = {
      members, lambda: c.lambda, table: new Uint32Array(3 << slotBits), slotBits, han: new Map(),
      weights: new Float32Array(entries.length * M), seen: new Uint32Array(entries.length), generation: 0, scores: new Float64Array(M),
    };
    const pair = new Uint32Array(2);
    for (const [row, [f, w]] of entries.entries()) {
      if (w.length !== M) throw new Error(`clusters file: feature ${f} has ${w.length} weights for ${M} members`);
      loaded.weights.set(w, row * M);
      const key = f.slice(2);
      if (f.startsWith('w:')) insert(loaded.table, slotBits, wordHashA(key), wordHashB(key), row);
      else if (f.startsWith('c:') && (key.length === 1 || key.length === 2)) loaded.han.set(key.length === 1 ? key.charCodeAt(0) : key.charCodeAt(0) * 65536 + key.charCodeAt(1), row);
      else if (f.startsWith('b:') && key.includes(' ')) {
        const [first, second] = [key.slice(0, key.indexOf(' ')), key.slice(key.indexOf(' ') + 1)];
        pairHashes(wordHashA(first), wordHashB(first), wordHashA(second), wordHashB(second), pair);
        insert(loaded.table, slotBits, pair[0]!, pair[1]!, row);
      } else throw new Error(`clusters file: unknown feature ${f}`);
    }
    for (const m of members) (byLabel[m] ??= []).push(loaded);
  }
  return { byLabel, count: file.clusters.length };
}

/**
 * The features of a text for the second stage, each once: `w:<word>`, `b:<word> <word>`
 * for neighbouring words, and for Han `c:<character>` and `c:<two characters>` (see
 * {@link tokenize}); what the trainer (scripts/lid-clusters.ts) counts and learns weights
 * for.
 * @param text any text; only its first 2,000 UTF-16 code units are read
 */
export function clusterFeatures(text: string): string[] {
  const out = new Set<string>();
  tokenize(text, {
    word(w, prev) { out.add(`w:${w}`); if (prev !== null) out.add(`b:${prev} ${w}`); },
    han(ch, prevHan) { out.add(`c:${ch}`); if (prevHan) out.add(`c:${prevHan}${ch}`); },
  });
  return [...out];
}

/**
 * The members' scores of one cluster for a text: per member, the sum of the weights of the
 * distinct features of the text that the cluster knows (0 for none); the same features as
 * {@link clusterFeatures}, looked up by hash ({@link scanWords}) without making strings.
 * @returns the cluster's scratch array (valid until its next call)
 */
function scores(c: LoadedCluster, text: string): Float64Array {
  sink.cluster = c;
  c.scores.fill(0);
  c.generation = (c.generation + 1) >>> 0 || 1;
  sink.hasPrev = false;
  scanWords(text, sink);
  return c.scores;
}

/** The scan's sink of {@link scores}: adds each feature's weights once per text (no closure per call). */
const sink: WordSink & { cluster: LoadedCluster | null; hasPrev: boolean; prevA: number; prevB: number; pair: Uint32Array; add(row: number): void } = {
  cluster: null, hasPrev: false, prevA: 0, prevB: 0, pair: new Uint32Array(2),
  add(row: number): void {
    const c = this.cluster!;
    if (row < 0 || c.seen[row] === c.generation) return;
    c.seen[row] = c.generation;
    const M = c.members.length, s = c.scores, w = c.weights;
    for (let k = 0, o = row * M; k < M; k++) s[k]! += w[o + k]!;
  },
  word(a: number, b: number): void {
    const c = this.cluster!;
    this.add(lookup(c, a, b));
    if (this.hasPrev) {
      pairHashes(this.prevA, this.prevB, a, b, this.pair);
      this.add(lookup(c, this.pair[0]!, this.pair[1]!));
    }
    this.hasPrev = true; this.prevA = a; this.prevB = b;
  },
  han(code: number, prevCode: number): void {
    const c = this.cluster!;
    this.hasPrev = false; // a Han character ends the word pairs (tokenize: prev = null)
    this.add(c.han.get(code) ?? -1);
    if (prevCode !== 0) this.add(c.han.get(prevCode * 65536 + code) ?? -1);
  },
};

/**
 * Re-ranks, in place, the members of every cluster that contains the best label of a
 * probability row (see the module comment). Members the first stage excluded (mask,
 * candidates: probability 0) stay at 0.
 * @param probs probabilities per label (length = labels), summing to 1; changed in place
 * @param text the text the row belongs to
 * @returns whether a cluster was applied
 */
export function refineWithClusters(probs: Float32Array | Float64Array, stages: ClusterStages, text: string): boolean {
  if (stages.count === 0) return false;
  let best = 0, top = probs[0]!;
  for (let c = 1, n = probs.length; c < n; c++) { const v = probs[c]!; if (v > top) { top = v; best = c; } }
  const clusters = stages.byLabel[best];
  if (!clusters) return false;
  for (const c of clusters) {
    const s = scores(c, text);
    let mass = 0, max = -Infinity;
    for (let k = 0; k < c.members.length; k++) {
      const p = probs[c.members[k]!]!;
      mass += p;
      if (p > 0) { s[k] = Math.log(p) + c.lambda * s[k]!; if (s[k]! > max) max = s[k]!; }
    }
    if (!(mass > 0)) continue;
    let sum = 0;
    for (let k = 0; k < c.members.length; k++) {
      if (probs[c.members[k]!]! > 0) { s[k] = Math.exp(s[k]! - max); sum += s[k]!; } else s[k] = 0;
    }
    for (let k = 0; k < c.members.length; k++) probs[c.members[k]!] = (mass * s[k]!) / sum;
  }
  return true;
}
