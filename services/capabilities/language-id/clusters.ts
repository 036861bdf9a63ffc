/**
 * Second stage of language ID for clusters of confusable languages (issue 14): a
 * log-linear classifier over word, word-pair and word-ending features, trained only on
 * the cluster's training text (scripts/lid-clusters.ts), that re-ranks the members of a
 * cluster when the first stage's best label is one of them.
 *
 * The first stage (a bag of hashed character n-grams) tells scripts and language
 * families apart well but mixes up languages that share most of their n-grams
 * (Bokmål "ikke" / Nynorsk "ikkje", Egyptian "عايز" / Moroccan "بغيت"); a cluster's own
 * classifier can give those distinctive words a weight of their own. Combination
 * (a product of experts, Hinton 2002): inside the cluster,
 * `p(m) ∝ p₁(m) · exp(λ · s_m)`, where `s_m` is the member's score (sum of the weights of
 * the text's features, no bias, so a text without known features keeps the first
 * stage's ranking), and the cluster keeps the first stage's total probability, so labels
 * outside the cluster, masks and candidate restrictions are unchanged. λ is chosen per
 * model and cluster on the held-out split; a cluster whose best λ is 0 is not shipped.
 */

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

/** A loaded cluster: member label indexes and weights by feature. */
interface LoadedCluster { members: Int32Array; lambda: number; weights: Map<string, Float32Array>; }

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
    const weights = new Map<string, Float32Array>();
    for (const [f, w] of Object.entries(c.weights)) {
      if (w.length !== members.length) throw new Error(`clusters file: feature ${f} has ${w.length} weights for ${members.length} members`);
      weights.set(f, Float32Array.from(w));
    }
    const loaded: LoadedCluster = { members, lambda: c.lambda, weights };
    for (const m of members) (byLabel[m] ??= []).push(loaded);
  }
  return { byLabel, count: file.clusters.length };
}

/** Arabic harakat, superscript alef and tatweel: written in some texts and not in others. */
const ARABIC_MARKS = /[\u064B-\u065F\u0670\u0640]/g;
const WORD = /[\p{L}\p{M}]+/gu;
const HAN = /\p{Script=Han}/u;

/**
 * The features of a text for the second stage, each once: `w:<word>` (lower case,
 * Arabic harakat removed) and `b:<word> <word>` for neighbouring words; a run of Han
 * characters (no spaces between words) gives `c:<character>` and `c:<two characters>`
 * instead.
 * @param text any text; only its first 2,000 characters are read
 */
export function clusterFeatures(text: string): string[] {
  const t = text.slice(0, 2000).normalize('NFC').toLowerCase().replace(ARABIC_MARKS, '');
  const out = new Set<string>();
  let prev: string | null = null;
  for (const m of t.matchAll(WORD)) {
    const w = m[0];
    if (HAN.test(w)) {
      const cs = [...w];
      for (let i = 0; i < cs.length; i++) { out.add(`c:${cs[i]}`); if (i + 1 < cs.length) out.add(`c:${cs[i]}${cs[i + 1]}`); }
      prev = null;
      continue;
    }
    out.add(`w:${w}`);
    if (prev !== null) out.add(`b:${prev} ${w}`);
    prev = w;
  }
  return [...out];
}

/**
 * The members' scores of one cluster for a text's features: per member, the sum of the
 * weights of the features it knows (0 for none).
 */
function scores(c: LoadedCluster, features: readonly string[]): Float64Array {
  const s = new Float64Array(c.members.length);
  for (const f of features) {
    const w = c.weights.get(f);
    if (w) for (let k = 0; k < s.length; k++) s[k]! += w[k]!;
  }
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
  let best = 0;
  for (let c = 1; c < probs.length; c++) if (probs[c]! > probs[best]!) best = c;
  const clusters = stages.byLabel[best];
  if (!clusters) return false;
  const features = clusterFeatures(text);
  for (const c of clusters) {
    const s = scores(c, features);
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
