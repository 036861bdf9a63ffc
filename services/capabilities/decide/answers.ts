/**
 * A decision's answer from the model's label log-probabilities (services/llm/labels.ts):
 * normalised over the question's answers, calibrated by temperature scaling (Guo et al.,
 * "On Calibration of Modern Neural Networks", ICML 2017: p_i ∝ p_i^(1/T), one T per
 * question type, fitted by `npm run calibrate`), and shaped as the spec's answer fields.
 * `confidence` = 1 − H(p) / ln K, the normalised entropy's complement over the K answers:
 * 0 for a uniform distribution, 1 for a certain one (spec: "how peaked the distribution
 * is; it is not a probability").
 */
import type { Question, QuestionPrompt } from './prompt.ts';

/** Calibration temperatures per question type (config.json `calibration`); 1 = the model's own probabilities. */
export interface DecideCalibration { choice?: number; noul?: number; score?: number; }

/**
 * Softmax of log-probabilities divided by a temperature (labels the model gives no
 * probability at all get 0; when none has any, the distribution is uniform).
 * @param temperature > 0
 */
export function calibrated(logProbs: readonly number[], temperature = 1): number[] {
  const scaled = logProbs.map((l) => l / temperature);
  const max = Math.max(...scaled);
  if (max === -Infinity) return scaled.map(() => 1 / scaled.length);
  const e = scaled.map((l) => Math.exp(l - max));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / sum);
}

/** 1 − H(p)/ln K for a distribution over K ≥ 2 answers (natural logarithms), in [0, 1]. */
export function confidenceOf(p: readonly number[]): number {
  if (p.length < 2) return 1;
  const h = p.reduce((s, x) => (x > 0 ? s - x * Math.log(x) : s), 0);
  return Math.min(1, Math.max(0, 1 - h / Math.log(p.length)));
}

/** The spec's answer object of one question from its calibrated distribution over `prompt.keys`. */
export function answerOf(q: Question, prompt: QuestionPrompt, p: readonly number[]): Record<string, unknown> {
  const probabilities = Object.fromEntries(prompt.keys.map((k, i) => [k, p[i]!]));
  switch (q.type) {
    case 'noul':
      return { type: 'noul', noul: p[0]! };
    case 'choice': {
      let best = 0;
      p.forEach((x, i) => { if (x > p[best]!) best = i; });
      return { type: 'choice', choice: prompt.keys[best]!, probabilities, confidence: confidenceOf(p) };
    }
    case 'score':
      return {
        type: 'score', score: p.reduce((s, x, i) => s + x * i, 0), probabilities,
        legend: Object.fromEntries(q.criteria.map((d, i) => [String(i), d])), confidence: confidenceOf(p),
      };
  }
}
