/**
 * POST /v1/questions/generate (+ /batch) and the legacy POST /v1/generate-questions through
 * the embedded pipeline on the tiny mist-qg-1.5b weights: n questions, the language forms
 * the spec accepts, the vendor-prefixed model, warnings, and billing per passage.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Embedded } from '../../../services/embedded.ts';
import { post, startService, until } from '../../helpers/service.ts';
import { repositoryWith, useTinyWeights } from '../../helpers/llm.ts';

useTinyWeights();
const repo = repositoryWith({ 'mist-qg-1.5b': { max_question_chars: 24 } });
let svc: Embedded;
beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_MAX: 1_000_000, MODEL_REPOSITORY: repo }, { capabilities: ['questions'] });
  await until(async () => {
    const res = await svc.gateway.app.inject({ method: 'GET', url: '/v1/models' });
    return (res.json() as { models: Array<{ name: string; status: string }> }).models.find((m) => m.name === 'mist-qg-1.5b')?.status === 'available';
  }, 20_000, 'mist-qg-1.5b available');
});
afterAll(async () => { await svc?.close(); });

const PASSAGE = 'Mlima Kilimanjaro ndio mlima mrefu zaidi barani Afrika. Uko kaskazini mwa Tanzania, karibu na mpaka wa Kenya, na una urefu wa mita 5,895 juu ya usawa wa bahari.';

describe('POST /v1/questions/generate on a llama.cpp model', () => {
  it('writes n questions, names the language by its 3-letter code and the model with its vendor', async () => {
    for (const language of ['sw', 'swa', 'Swahili', 'kiswahili']) {
      const r = await post(svc, '/v1/questions/generate', { passage: PASSAGE, n: 2, language });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ language: 'swa', model: 'lmstream/mist-qg-1.5b', warnings: [], usage: { generations: 1 } });
      expect(r.body.questions).toHaveLength(2);
    }
    const d = await post(svc, '/v1/questions/generate', { passage: PASSAGE });
    expect(d.body.questions).toHaveLength(3);
    expect(d.body.language).toBe('eng');
    expect(d.body.warnings).toEqual([expect.stringMatching(/reads as Swahili/)]);
  });

  it('answers a batch and the legacy route', async () => {
    const b = await post(svc, '/v1/questions/generate/batch', { passages: [PASSAGE, 'Habari?'], n: 1, language: 'swa' });
    expect(b.status).toBe(200);
    expect(b.body.results.map((q: string[]) => q.length)).toEqual([1, 1]);
    expect(b.body.usage).toEqual({ generations: 2 });
    expect(b.body.warnings).toEqual([expect.stringMatching(/very short/)]);
    const l = await post(svc, '/v1/generate-questions', { passage: PASSAGE, n: 1, language: 'swa' });
    expect(l.status).toBe(200);
    expect(l.body.questions).toHaveLength(1);
    expect(l.body.usage).toBeUndefined();
  });
});
