/** Metrics of services/capabilities/language-id/evaluation.ts on hand-computed cases. */
import { describe, expect, it } from 'vitest';
import { accuracy, clusterFigures, confusionsWithin, expectedCalibrationError, macroF1, type Prediction } from '../../../services/capabilities/language-id/evaluation.ts';

const p = (gold: string, predicted: string, confidence = 1): Prediction => ({ gold, predicted, confidence });

describe('language-ID metrics', () => {
  it('accuracy counts exact label matches', () => {
    expect(accuracy([p('a', 'a'), p('a', 'b'), p('b', 'b'), p('b', 'b')])).toBe(0.75);
    expect(accuracy([])).toBe(0);
  });

  it('macro-F1 averages per-gold-label F1; answers outside the gold set cost recall only', () => {
    // a: tp 1, fn 1 (answered b), fp 0 → F1 = 2/3; b: tp 2, fp 1, fn 0 → F1 = 4/5;
    // c: tp 0, fn 1 (answered zzz, not a gold label) → 0
    const preds = [p('a', 'a'), p('a', 'b'), p('b', 'b'), p('b', 'b'), p('c', 'zzz')];
    expect(macroF1(preds)).toBeCloseTo((2 / 3 + 4 / 5 + 0) / 3, 10);
  });

  it('ECE is the weighted gap between confidence and accuracy per bin', () => {
    // bin of 0.9: 2 right of 2 → gap 0.1; bin of 0.5: 1 right of 2 → gap 0
    const preds = [p('a', 'a', 0.9), p('a', 'a', 0.9), p('a', 'a', 0.5), p('a', 'b', 0.5)];
    expect(expectedCalibrationError(preds)).toBeCloseTo((2 / 4) * 0.1, 10);
    expect(expectedCalibrationError([p('a', 'b', 1)])).toBeCloseTo(1, 10);
    expect(expectedCalibrationError([p('a', 'a', 1), p('a', 'b', 0)])).toBeCloseTo(0, 10);
  });

  it('confusions are counted within a group of related languages only', () => {
    const preds = [p('bos_Latn', 'hrv_Latn'), p('bos_Latn', 'hrv_Latn'), p('hrv_Latn', 'srp_Latn'), p('bos_Latn', 'eng_Latn'), p('hrv_Latn', 'hrv_Latn')];
    expect(confusionsWithin(preds, ['bos', 'hrv', 'srp'])).toEqual([
      { gold: 'bos_Latn', predicted: 'hrv_Latn', count: 2 },
      { gold: 'hrv_Latn', predicted: 'srp_Latn', count: 1 },
    ]);
  });

  it('gives each confusable cluster present its accuracy and the share of its errors that stay inside it', () => {
    const preds = [p('bos_Latn', 'hrv_Latn'), p('bos_Latn', 'eng_Latn'), p('hrv_Latn', 'hrv_Latn'), p('srp_Cyrl', 'bos_Cyrl'), p('nno_Latn', 'nob_Latn'), p('nob_Latn', 'nob_Latn')];
    const byCluster = Object.fromEntries(clusterFigures(preds).map((c) => [c.cluster, c]));
    // srp_Cyrl is outside bos/hrv/srp_Latn (the Latin-script cluster)
    expect(byCluster['bos/hrv/srp_Latn']).toEqual({ cluster: 'bos/hrv/srp_Latn', members: 2, texts: 3, accuracy: 1 / 3, errorsInside: 1 / 2 });
    expect(byCluster['nob/nno/dan/swe']).toMatchObject({ members: 2, texts: 2, accuracy: 0.5, errorsInside: 1 });
    expect(byCluster['kin/run']).toBeUndefined();
  });
});
