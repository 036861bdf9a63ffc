/**
 * The `llama-decide` engine (services/capabilities/decide/backends/llama-decide.ts) on the
 * tiny purplemist-flash-1.0 weights: one pass over the state for all questions (tokens
 * evaluated with 1, 8 and 64 questions against evaluating the state once per question,
 * with the same answers), distributions over the caller's keys, 413 past the context,
 * items failing alone, and a case stopped while it runs (deadline, cancellation) freeing
 * its sequence.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { answerCase, createEngine, planCase, scoreCase, type DecideModel } from '../../../services/capabilities/decide/backends/llama-decide.ts';
import { runControl } from '../../../services/workers/engines/types.ts';
import { closeLlm, openLlm } from '../../../services/llm/model.ts';
import { ModelRepository } from '../../../services/models/repository.ts';
import type { Question } from '../../../services/capabilities/decide/prompt.ts';
import { MODELS, useTinyWeights } from '../../helpers/llm.ts';

useTinyWeights();
const MODEL = 'purplemist-flash-1.0';
const engine = createEngine({ repository: MODELS, executionProvider: 'cpu', intraOpThreads: 1 });
afterAll(() => engine.unload(MODEL));

const STATE = { channel: 'sms', text: 'Umepokea KES 2,500 kutoka kwa JOHN DOE 0712345678. Salio lako ni KES 7,300.', sent: '2026-11-02T09:14:00Z' };
const questionSet = (n: number): Record<string, Question> => Object.fromEntries(Array.from({ length: n }, (_, i) => [`q${i}`,
  i % 3 === 0 ? { type: 'choice', instructions: `Question ${i}: what kind of message is this?`, criteria: { payment_received: 'money came in', payment_sent: null, other: 'anything else' } }
    : i % 3 === 1 ? { type: 'noul', instructions: `Statement ${i}: the sender is a bank` }
      : { type: 'score', instructions: `Question ${i}: how urgent is a reply?`, criteria: ['not at all', 'somewhat', 'very'] }]));

describe('llama-decide engine', () => {
  it('evaluates the state once for all questions, with the answers of evaluating it per question', async () => {
    const llm = await openLlm(new ModelRepository(MODELS).config(MODEL)!, 1);
    const m: DecideModel = { llm, calibration: {} };
    try {
      for (const n of [1, 8, 64]) {
        const c = planCase(llm, STATE, questionSet(n));
        const shared = await answerCase(m, c, true);
        const perQuestion = await answerCase(m, c, false);
        expect(perQuestion.evaluated - shared.evaluated).toBe((n - 1) * c.shared.length);
        for (const id of Object.keys(shared.answers)) {
          const a = shared.answers[id] as Record<string, any>;
          const b = perQuestion.answers[id] as Record<string, any>;
          expect(a.type).toBe(b.type);
          if (a.type === 'noul') expect(a.noul).toBeCloseTo(b.noul, 2);
          else for (const k of Object.keys(a.probabilities)) expect(a.probabilities[k]).toBeCloseTo(b.probabilities[k], 2);
        }
      }
    } finally { await closeLlm(llm); }
  });

  it('answers every question with a distribution over the caller\'s keys and bills one decision each', async () => {
    const questions = {
      kind: { type: 'choice', instructions: 'Kind of message?', criteria: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, i % 2 ? null : `option ${i}`])) },
      bank: { type: 'noul', instructions: 'The sender is a bank', criteria: { true: 'a bank sent it', false: 'a person sent it' } },
      urgency: { type: 'score', instructions: 'Urgency?', criteria: ['low', 'medium', 'high', 'critical'] },
    };
    const [r] = await engine.run(MODEL, [{ model: MODEL, state: JSON.stringify(STATE), questions: JSON.stringify(questions) }]);
    expect(r!.failure).toBeNull();
    expect(r!.output!.decisions).toBe(3);
    const answers = JSON.parse(r!.output!.answers) as Record<string, any>;
    expect(Object.keys(answers).sort()).toEqual(['bank', 'kind', 'urgency']);
    expect(Object.keys(answers.kind.probabilities)).toEqual(Object.keys(questions.kind.criteria));
    for (const a of [answers.kind, answers.urgency]) {
      const p = Object.values(a.probabilities as Record<string, number>);
      expect(p.reduce((s, x) => s + x, 0)).toBeCloseTo(1, 9);
      expect(a.confidence).toBeGreaterThanOrEqual(0);
      expect(a.confidence).toBeLessThanOrEqual(1);
    }
    expect(answers.kind.probabilities[answers.kind.choice]).toBe(Math.max(...Object.values(answers.kind.probabilities as Record<string, number>)));
    expect(answers.bank.noul).toBeGreaterThan(0);
    expect(answers.bank.noul).toBeLessThan(1);
    expect(answers.urgency.score).toBeCloseTo(Object.entries(answers.urgency.probabilities as Record<string, number>).reduce((s, [k, p]) => s + Number(k) * p, 0), 12);
    expect(answers.urgency.legend).toEqual({ 0: 'low', 1: 'medium', 2: 'high', 3: 'critical' });
  });

  it('fails a case past the model\'s context with 413 and the limit in tokens, alone', async () => {
    const q = JSON.stringify({ a: { type: 'noul', instructions: 'It is long' } });
    const rs = await engine.run(MODEL, [
      // a character outside the tiny vocabulary: 3 byte tokens each, 6,000 in all
      { model: MODEL, state: JSON.stringify('漢'.repeat(2000)), questions: q },
      { model: MODEL, state: JSON.stringify('short'), questions: q },
      { model: MODEL, state: 'not json', questions: q },
    ]);
    expect(rs[0]!.failure).toMatchObject({ status: 413, code: 'CONTEXT_TOO_LONG' });
    expect(rs[0]!.failure!.error).toMatch(/maximum context length of 4096 tokens/);
    expect(rs[1]!.output!.decisions).toBe(1);
    expect(rs[2]!.failure).toMatchObject({ status: 400, code: 'INVALID_REQUEST' });
  });

  it('stops a case when its check throws, and frees and clears its sequence', async () => {
    const llm = await openLlm(new ModelRepository(MODELS).config(MODEL)!, 1);
    try {
      const c = planCase(llm, STATE, questionSet(16));
      let checks = 0;
      await expect(scoreCase(llm, c, true, () => { if (++checks === 5) throw new Error('stop'); })).rejects.toThrow('stop');
      expect(checks).toBe(5);
      // the only sequence is free again, with nothing left of the stopped case
      expect(await llm.sequences.use(async (seq) => seq.nextTokenIndex)).toBe(0);
      expect(Object.keys((await answerCase({ llm, calibration: {} }, c)).answers)).toHaveLength(16);
    } finally { await closeLlm(llm); }
  });

  it('stops a running case when its request is cancelled or its deadline passes (499, 504), and the others go on', async () => {
    // a state of about 3,000 tokens and 64 questions: about a second of work here, stopped after 50 ms
    const long = { model: MODEL, state: JSON.stringify({ ...STATE, history: Array(24).fill(STATE.text).join(' ') }), questions: JSON.stringify(questionSet(64)) };
    const control = runControl([Infinity, Date.now() + 50, Infinity]);
    setTimeout(() => Atomics.store(control.cancelled, 0, 1), 50);
    const rs = await engine.run(MODEL, [long, long, { ...long, questions: JSON.stringify(questionSet(2)) }], control);
    expect(rs[0]!.failure).toMatchObject({ status: 499, code: 'CANCELLED' });
    expect(rs[1]!.failure).toMatchObject({ status: 504, code: 'DEADLINE_EXCEEDED' });
    expect(rs[2]!.output!.decisions).toBe(2);
  });

  it('answers at the spec\'s limits: 255 options (two-letter labels) and 26 levels', async () => {
    const keys = Array.from({ length: 255 }, (_, i) => `option-${i}`);
    const questions = {
      many: { type: 'choice', instructions: 'Which option?', criteria: Object.fromEntries(keys.map((k) => [k, null])) },
      levels: { type: 'score', instructions: 'Which level?', criteria: Array.from({ length: 26 }, (_, i) => `level ${i}`) },
    };
    const [r] = await engine.run(MODEL, [{ model: MODEL, state: JSON.stringify(STATE), questions: JSON.stringify(questions) }]);
    const answers = JSON.parse(r!.output!.answers) as Record<string, any>;
    expect(Object.keys(answers.many.probabilities)).toEqual(keys);
    expect(Object.values(answers.many.probabilities as Record<string, number>).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
    expect(Object.keys(answers.levels.probabilities)).toEqual(Array.from({ length: 26 }, (_, i) => String(i)));
    expect(answers.levels.score).toBeGreaterThanOrEqual(0);
    expect(answers.levels.score).toBeLessThanOrEqual(25);
  });
});
