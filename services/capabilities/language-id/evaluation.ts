/**
 * Metrics of a language identifier on a labelled test set: accuracy, macro-F1,
 * expected calibration error and the most frequent confusions. Used by the training
 * script (held-out split) and by `npm run bench:lid` (../shared/data/lid-eval).
 * Accuracy and expected calibration error are the service's shared metrics
 * (services/lib/evaluation.ts), re-exported here.
 */
import type { Prediction } from '../../lib/evaluation.ts';

export { accuracy, expectedCalibrationError, type Prediction } from '../../lib/evaluation.ts';

/**
 * Macro-averaged F1 over the gold labels of the set, in [0, 1]: the unweighted mean of
 * each gold label's F1 = 2·P·R / (P + R). Predictions of labels outside the gold set
 * count as false negatives of their gold label only (the usual convention for
 * language ID, where a detector may answer any of hundreds of labels).
 */
export function macroF1(preds: readonly Prediction[]): number {
  const gold = new Set(preds.map((p) => p.gold));
  if (gold.size === 0) return 0;
  const tp = new Map<string, number>(), fp = new Map<string, number>(), fn = new Map<string, number>();
  const inc = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  for (const p of preds) {
    if (p.gold === p.predicted) inc(tp, p.gold);
    else {
      inc(fn, p.gold);
      if (gold.has(p.predicted)) inc(fp, p.predicted);
    }
  }
  let sum = 0;
  for (const g of gold) {
    const t = tp.get(g) ?? 0;
    const denom = 2 * t + (fp.get(g) ?? 0) + (fn.get(g) ?? 0);
    sum += denom === 0 ? 0 : (2 * t) / denom;
  }
  return sum / gold.size;
}


/**
 * Groups of closely related languages (ISO 639-3, or labels where the script tells them
 * apart) whose confusions the model cards and `npm run bench:lid` report: the confusable
 * clusters of issue 14 (bos/hrv/srp_Latn, nob/nno/dan, zsm/ind, the Arabic varieties,
 * hin/awa/bho/mag/hne/mai, pes/prs, pbu/pbt, cmn_Hans/cmn_Hant/yue_Hant, kin/run, spa/ast/glg,
 * cat/oci, ita/vec/lij/lmo/scn), and neighbours that share a script (glg/por, bam/dyu,
 * ces/slk, the East South Slavic and East Slavic languages, the Nguni languages (zul, xho,
 * nbl, ssw and Northern Ndebele, nde), the Sotho-Tswana languages (sot/tsn/nso),
 * amh/tir, arb/pes/urd, bod/dzo, ceb/tgl).
 */
export const RELATED_LANGUAGES: readonly (readonly string[])[] = [
  ['bos', 'hrv', 'srp_Latn'], ['nob', 'nno', 'dan', 'swe'], ['zsm', 'ind'], ['arb', 'ary', 'arz', 'apc', 'ajp', 'acm', 'acq', 'aeb', 'arq', 'ars', 'afb', 'acw', 'apd', 'ayl', 'mey'],
  ['hin', 'awa', 'bho', 'mag', 'hne', 'mai'], ['pes', 'prs'], ['pbu', 'pbt'], ['kin', 'run'], ['spa', 'ast', 'glg', 'por'],
  ['cat', 'oci'], ['ita', 'vec', 'lij', 'lmo', 'scn'], ['arb', 'pes', 'urd'], ['bam', 'dyu'], ['ces', 'slk'], ['bul', 'mkd', 'rus', 'ukr', 'bel'],
  ['zul', 'xho', 'nbl', 'ssw', 'nde'], ['sot', 'tsn', 'nso'], ['amh', 'tir'], ['bod', 'dzo'], ['ceb', 'tgl'], ['cmn_Hans', 'cmn_Hant', 'yue_Hant'],
];

/** A cluster's figures on a set: its members' accuracy, and the share of their errors that stay inside the cluster. */
export interface ClusterFigures { cluster: string; members: number; texts: number; accuracy: number; errorsInside: number; }

/**
 * Per group of {@link RELATED_LANGUAGES}, the accuracy on the texts of its members present
 * in `preds` and the share of their errors answered as another member (the confusion the
 * group is about); groups with no member present are left out.
 */
export function clusterFigures(preds: readonly Prediction[]): ClusterFigures[] {
  const out: ClusterFigures[] = [];
  for (const g of RELATED_LANGUAGES) {
    const inGroup = (label: string) => g.includes(label) || g.includes(label.split('_')[0]!);
    const mine = preds.filter((p) => inGroup(p.gold));
    if (mine.length === 0) continue;
    const wrong = mine.filter((p) => p.gold !== p.predicted);
    out.push({
      cluster: g.join('/'), members: new Set(mine.map((p) => p.gold)).size, texts: mine.length,
      accuracy: (mine.length - wrong.length) / mine.length, errorsInside: wrong.length === 0 ? 0 : wrong.filter((p) => inGroup(p.predicted)).length / wrong.length,
    });
  }
  return out;
}

/** A confusion: how often `gold` was answered as `predicted`. */
export interface Confusion { gold: string; predicted: string; count: number; }

/**
 * Confusions among a group of related labels (e.g. bos/hrv/srp), most frequent first.
 * @param group labels (or ISO 639-3 codes, matched against the part before `_`)
 */
export function confusionsWithin(preds: readonly Prediction[], group: readonly string[]): Confusion[] {
  const inGroup = (label: string) => group.includes(label) || group.includes(label.split('_')[0]!);
  const counts = new Map<string, number>();
  for (const p of preds) {
    if (p.gold === p.predicted || !inGroup(p.gold) || !inGroup(p.predicted)) continue;
    const k = `${p.gold}\t${p.predicted}`;
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return [...counts].map(([k, count]) => { const [gold, predicted] = k.split('\t') as [string, string]; return { gold, predicted, count }; })
    .sort((a, b) => b.count - a.count || a.gold.localeCompare(b.gold));
}
