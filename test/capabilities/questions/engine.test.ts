/**
 * The `llama-questions` engine (services/capabilities/questions/backends/llama-questions.ts)
 * on the tiny mist-qg-1.5b weights: exactly n distinct non-empty questions (the grammar,
 * then retries for repeats), the warnings (short passage, a passage language ID reads as
 * another language than declared, a language the model is less reliable in), and a
 * cancelled passage stopping.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine, passageWarnings, userMessage } from '../../../services/capabilities/questions/backends/llama-questions.ts';
import { runControl } from '../../../services/workers/engines/types.ts';
import { repositoryWith, useTinyWeights } from '../../helpers/llm.ts';

useTinyWeights();
const MODEL = 'mist-qg-1.5b';
const repo = repositoryWith({ [MODEL]: { max_question_chars: 24 } });
const engine = createEngine({ repository: repo, executionProvider: 'cpu', intraOpThreads: 1 });
// one-character questions: the greedy answer repeats itself, so the retries must find the rest
const oneChar = createEngine({ repository: repositoryWith({ [MODEL]: { max_question_chars: 1 } }), executionProvider: 'cpu', intraOpThreads: 1 });
afterAll(async () => { await engine.unload(MODEL); await oneChar.unload(MODEL); });

const SWAHILI = 'Mlima Kilimanjaro ndio mlima mrefu zaidi barani Afrika. Uko kaskazini mwa Tanzania, karibu na mpaka wa Kenya, na una urefu wa mita 5,895 juu ya usawa wa bahari.';

describe('llama-questions engine', () => {
  it('writes exactly n distinct non-empty questions', async () => {
    const rs = await engine.run(MODEL, [1, 3, 5].map((n) => ({ model: MODEL, passage: SWAHILI, n, language: 'swa' })));
    rs.forEach((r, i) => {
      expect(r.failure).toBeNull();
      const q = r.output!.questions;
      expect(q).toHaveLength([1, 3, 5][i]!);
      expect(new Set(q.map((x) => x.toLowerCase().replace(/\s+/g, ' ').trim())).size).toBe(q.length);
      for (const x of q) { expect(x.trim().length).toBeGreaterThan(0); expect(Array.from(x).length).toBeLessThanOrEqual(24); }
      expect(r.output!.language).toBe('swa');
    });
    expect(rs[1]!.output!.warnings).toEqual([]);
  });

  it('asks again for questions that repeat others until there are n distinct ones', async () => {
    const [r] = await oneChar.run(MODEL, [{ model: MODEL, passage: SWAHILI, n: 6, language: 'swa' }]);
    expect(r!.failure).toBeNull();
    const q = r!.output!.questions;
    expect(q).toHaveLength(6);
    expect(new Set(q.map((x) => x.toLowerCase())).size).toBe(6);
  });

  it('warns of a short passage, another language than declared, and a less reliable language', async () => {
    const [r] = await engine.run(MODEL, [{ model: MODEL, passage: SWAHILI, n: 1, language: 'eng' }]);
    expect(r!.output!.warnings).toEqual([expect.stringMatching(/reads as Swahili \(swh_Latn\), not English/)]);
    expect(passageWarnings('Habari yako?', 'tir', new Set(['tir']), null)).toEqual([
      'the passage is very short (2 words); questions work best from a paragraph',
      'mist-qg-1.5b is less reliable in Tigrinya',
    ]);
    expect(userMessage('P', 'swa', 2, ['Q1'])).toBe('Passage (Swahili):\nP\n\nQuestions already written (do not repeat them):\n- Q1\n\nWrite exactly 2 more questions in Swahili.');
  });

  it('stops a passage whose request is cancelled', async () => {
    const control = runControl([Infinity, Infinity]);
    Atomics.store(control.cancelled, 0, 1);
    const rs = await engine.run(MODEL, [{ model: MODEL, passage: SWAHILI, n: 2, language: 'swa' }, { model: MODEL, passage: SWAHILI, n: 1, language: 'swa' }], control);
    expect(rs[0]!.failure).toMatchObject({ status: 499, code: 'CANCELLED' });
    expect(rs[1]!.output!.questions).toHaveLength(1);
  });
});
