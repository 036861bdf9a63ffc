/**
 * A decision's answer from label log-probabilities (services/capabilities/decide/answers.ts)
 * and its prompt (prompt.ts): temperature calibration, confidence as the normalised
 * entropy's complement, the spec's answer fields, and prefix-free labels.
 */
import { describe, expect, it } from 'vitest';
import { answerOf, calibrated, confidenceOf } from '../../../services/capabilities/decide/answers.ts';
import { letterLabels, questionPrompt, type Question } from '../../../services/capabilities/decide/prompt.ts';

describe('calibration and confidence', () => {
  it('normalises log-probabilities and flattens them with a temperature above 1', () => {
    const lp = [Math.log(0.6), Math.log(0.3), Math.log(0.05)];
    const p1 = calibrated(lp);
    expect(p1.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    expect(p1[0]).toBeCloseTo(0.6 / 0.95, 12);
    const p2 = calibrated(lp, 2);
    expect(p2[0]).toBeLessThan(p1[0]!);
    expect(p2[0]! / p2[1]!).toBeCloseTo(Math.sqrt(2), 10);
    expect(calibrated([-Infinity, -Infinity])).toEqual([0.5, 0.5]);
    expect(calibrated([-Infinity, 0])).toEqual([0, 1]);
  });
  it('is 0 for a uniform distribution and 1 for a certain one', () => {
    expect(confidenceOf([0.25, 0.25, 0.25, 0.25])).toBeCloseTo(0, 12);
    expect(confidenceOf([1, 0, 0])).toBe(1);
    const c = confidenceOf([0.7, 0.2, 0.1]);
    expect(c).toBeCloseTo(1 - (-(0.7 * Math.log(0.7) + 0.2 * Math.log(0.2) + 0.1 * Math.log(0.1))) / Math.log(3), 12);
  });
});

describe('answers', () => {
  it('answers a choice with the best key, the caller\'s keys and a confidence', () => {
    const q: Question = { type: 'choice', instructions: 'Intent?', criteria: { refund: 'money back', info: null } };
    expect(answerOf(q, questionPrompt(q), [0.2, 0.8])).toEqual({ type: 'choice', choice: 'info', probabilities: { refund: 0.2, info: 0.8 }, confidence: confidenceOf([0.2, 0.8]) });
  });
  it('answers a score with the expected level and a legend', () => {
    const q: Question = { type: 'score', instructions: 'Severity?', criteria: ['low', 'mid', 'high'] };
    const a = answerOf(q, questionPrompt(q), [0.2, 0.3, 0.5]);
    expect(a).toMatchObject({ type: 'score', probabilities: { 0: 0.2, 1: 0.3, 2: 0.5 }, legend: { 0: 'low', 1: 'mid', 2: 'high' } });
    expect(a.score).toBeCloseTo(1.3, 12);
  });
  it('answers a statement with the probability that it is true', () => {
    const q: Question = { type: 'noul', instructions: 'The customer is angry', criteria: { true: 'shouting' } };
    const p = questionPrompt(q);
    expect(p.labels).toEqual(['true', 'false']);
    expect(p.text).toContain('true means: shouting');
    expect(answerOf(q, p, [0.9, 0.1])).toEqual({ type: 'noul', noul: 0.9 });
  });
});

describe('labels', () => {
  it('are one length and none starts another, up to the 255 options the spec allows', () => {
    for (const n of [2, 26, 27, 255]) {
      const l = letterLabels(n);
      expect(new Set(l).size).toBe(n);
      expect(new Set(l.map((x) => x.length)).size).toBe(1);
    }
    expect(letterLabels(3)).toEqual(['A', 'B', 'C']);
    expect(letterLabels(27).slice(0, 2)).toEqual(['AA', 'AB']);
  });
  it('show each option key and its description', () => {
    const p = questionPrompt({ type: 'choice', instructions: 'Pick', criteria: { a: 'first', b: null } });
    expect(p.text).toBe('Question: Pick\nOptions:\nA. a: first\nB. b\nAnswer with the letter of the best option.');
  });
});
