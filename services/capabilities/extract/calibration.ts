/**
 * Fitting the temperature of extraction field confidences (`npm run calibrate -- --model
 * mist-extract-1.0`): a field's confidence is c^(1/T) (./fill.ts), and T is chosen to
 * minimise the negative log-likelihood of whether each predicted value is right (a
 * Bernoulli outcome) on a labelled set. With β = 1/T and l = ln c ≤ 0, the NLL
 * −[y·βl + (1−y)·ln(1 − e^(βl))] is convex in β, so a golden-section search finds it.
 */
import { expectedCalibrationError } from '../../lib/evaluation.ts';
import { minimizeOnInterval } from '../../lib/minimize.ts';

/** A predicted value: its uncalibrated confidence (T = 1) and whether it is right. */
export interface FieldOutcome { confidence: number; correct: boolean; }

const EPS = 1e-9;
/** Temperatures searched: [1/20, 20]. */
const BETA_MIN = 0.05, BETA_MAX = 20;

/** Mean Bernoulli negative log-likelihood (nats) of the outcomes at temperature T. */
export function fieldNll(items: readonly FieldOutcome[], temperature: number): number {
  if (items.length === 0) return 0;
  let sum = 0;
  for (const it of items) {
    const c = Math.min(1 - EPS, Math.max(EPS, Math.pow(Math.max(it.confidence, EPS), 1 / temperature)));
    sum -= it.correct ? Math.log(c) : Math.log(1 - c);
  }
  return sum / items.length;
}

/** The temperature in [0.05, 20] minimising {@link fieldNll}; 1 for no items. */
export function fitFieldTemperature(items: readonly FieldOutcome[]): number {
  if (items.length === 0) return 1;
  return 1 / minimizeOnInterval((beta) => fieldNll(items, 1 / beta), BETA_MIN, BETA_MAX);
}

/** Expected calibration error (15 bins) of the outcomes at temperature T. */
export function fieldEce(items: readonly FieldOutcome[], temperature: number): number {
  return expectedCalibrationError(items.map((it) => ({ gold: '1', predicted: it.correct ? '1' : '0', confidence: Math.pow(Math.max(it.confidence, EPS), 1 / temperature) })));
}
