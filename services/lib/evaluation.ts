/**
 * Metrics of a classifier on a labelled set, shared by the language-ID reports and the
 * decision calibration (`npm run calibrate`, `npm run eval:generative`): accuracy and
 * expected calibration error.
 */

/** One prediction: the gold label, the predicted label and its confidence in [0, 1]. */
export interface Prediction {
  gold: string;
  predicted: string;
  confidence: number;
}

/** Share of predictions equal to the gold label, in [0, 1]; 0 for an empty list. */
export function accuracy(preds: readonly Prediction[]): number {
  if (preds.length === 0) return 0;
  let ok = 0;
  for (const p of preds) if (p.gold === p.predicted) ok++;
  return ok / preds.length;
}

/**
 * Expected calibration error (Naeini et al. 2015; the 15 equal-width confidence bins of
 * Guo et al. 2017, "On Calibration of Modern Neural Networks"): the sample-weighted mean
 * over bins of |accuracy − mean confidence|, in [0, 1].
 * @param bins number of equal-width bins over [0, 1], default 15
 */
export function expectedCalibrationError(preds: readonly Prediction[], bins = 15): number {
  if (preds.length === 0) return 0;
  const n = new Array<number>(bins).fill(0), conf = new Array<number>(bins).fill(0), ok = new Array<number>(bins).fill(0);
  for (const p of preds) {
    const b = Math.min(bins - 1, Math.max(0, Math.ceil(p.confidence * bins) - 1));
    n[b]!++;
    conf[b]! += p.confidence;
    if (p.gold === p.predicted) ok[b]!++;
  }
  let ece = 0;
  for (let b = 0; b < bins; b++) if (n[b]! > 0) ece += Math.abs(ok[b]! - conf[b]!) / preds.length;
  return ece;
}
