/**
 * Fitting a decision model's calibration temperatures (`npm run calibrate`): temperature
 * scaling (Guo et al., "On Calibration of Modern Neural Networks", ICML 2017), one
 * temperature per question type, chosen to minimise the negative log-likelihood of the
 * correct answers on a labelled set. With β = 1/T the NLL, mean over items of
 * logsumexp(β·l) − β·l_gold, is convex in β (a log-sum-exp of linear functions minus a
 * linear one), so a golden-section search over β finds its minimum.
 */
import { calibrated } from './answers.ts';
import { minimizeOnInterval } from '../../lib/minimize.ts';
import { expectedCalibrationError, type Prediction } from '../../lib/evaluation.ts';

/** One labelled question: the model's label log-probabilities (natural log) and the index of the correct answer. */
export interface ScoredItem { logProbs: readonly number[]; gold: number; }

/** Smallest log-probability used (a label the model gives probability 0 would make the NLL infinite). */
const FLOOR = -50;
/** Temperatures searched: [1/20, 20]. */
const BETA_MIN = 0.05, BETA_MAX = 20;

/** Mean negative log-likelihood (nats) of the correct answers at temperature T. */
export function nll(items: readonly ScoredItem[], temperature: number): number {
  let sum = 0;
  for (const it of items) {
    const l = it.logProbs.map((x) => Math.max(FLOOR, x) / temperature);
    const max = Math.max(...l);
    const lse = max + Math.log(l.reduce((s, x) => s + Math.exp(x - max), 0));
    sum += lse - l[it.gold]!;
  }
  return items.length > 0 ? sum / items.length : 0;
}

/**
 * The temperature in [0.05, 20] that minimises {@link nll} (golden-section search over
 * β = 1/T to a relative precision of 1e-4).
 * @returns 1 for an empty set
 */
export function fitTemperature(items: readonly ScoredItem[]): number {
  if (items.length === 0) return 1;
  return 1 / minimizeOnInterval((beta) => nll(items, 1 / beta), BETA_MIN, BETA_MAX);
}

/** Top-1 predictions of items at temperature T (the confidence is the top answer's calibrated probability), for accuracy and ECE. */
export function predictionsAt(items: readonly ScoredItem[], temperature: number): Prediction[] {
  return items.map((it) => {
    const p = calibrated(it.logProbs, temperature);
    let best = 0;
    p.forEach((x, i) => { if (x > p[best]!) best = i; });
    return { gold: String(it.gold), predicted: String(best), confidence: p[best]! };
  });
}

/** Expected calibration error (15 bins) of items at temperature T. */
export const eceAt = (items: readonly ScoredItem[], temperature: number): number => expectedCalibrationError(predictionsAt(items, temperature));
