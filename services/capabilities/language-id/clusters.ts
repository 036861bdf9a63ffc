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

import { tokenize } from './words.ts';

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
 * A loaded cluster: member label indexes and weights by feature, split by kind so that
 * scoring looks words up without building feature strings: `words` (w:), `pairs` (b:,
 * first word → second word), `han` (c:, one or two characters).
 */
interface LoadedCluster {
  members: Int32Array; lambda: number;
  /** feature → row of `weights` */
  words: Map<string, number>; pairs: Map<string, Map<string, number>>; han: Map<string, number>;
  /** [features × members] */
  weights: Float32Array;
  /** per row: the text generation that last counted it (each feature counts once per text) */
  seen: Uint32Array;
  generation: number;
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
    const loaded: LoadedCluster = {
      members, lambda: c.lambda, words: new Map(), pairs: new Map(), han: new Map(),
      weights: new Float32Array(entries.length * M), seen: new Uint32Array(entries.length), generation: 0,
    };
    for (const [row, [f, w]] of entries.entries()) {
      if (w.length !== M) throw new Error(`clusters file: feature ${f} has ${w.length} weights for ${M} members`);
      loaded.weights.set(w, row * M);
      const key = f.slice(2);
      if (f.startsWith('w:')) loaded.words.set(key, row);
      else if (f.startsWith('c:')) loaded.han.set(key, row);
      else if (f.startsWith('b:') && key.includes(' ')) {
        const [first, second] = [key.slice(0, key.indexOf(' ')), key.slice(key.indexOf(' ') + 1)];
        let m = loaded.pairs.get(first);
        if (!m) loaded.pairs.set(first, (m = new Map()));
        m.set(second, row);
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
 * {@link clusterFeatures}, looked up without building their strings.
 */
function scores(c: LoadedCluster, text: string): Float64Array {
  const M = c.members.length;
  const s = new Float64Array(M);
  const gen = (c.generation = (c.generation + 1) >>> 0 || 1);
  const add = (row: number | undefined) => {
    if (row === undefined || c.seen[row] === gen) return;
    c.seen[row] = gen;
    for (let k = 0, o = row * M; k < M; k++) s[k]! += c.weights[o + k]!;
  };
  tokenize(text, {
    word(w, prev) { add(c.words.get(w)); if (prev !== null) add(c.pairs.get(prev)?.get(w)); },
    han(ch, prevHan) { add(c.han.get(ch)); if (prevHan) add(c.han.get(prevHan + ch)); },
  });
  return s;
}

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
