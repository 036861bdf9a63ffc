/**
 * Every limit and field rule of the spec on each route: a request that breaks one
 * gets 400 (413 for a decision state over the context length) with a JSON body
 * {error, status} naming the field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Embedded } from '../../services/embedded.ts';
import { repositoryWith } from '../helpers/repository.ts';
import { post, startService } from '../helpers/service.ts';
import { imagesDecoded } from '../../services/capabilities/extract/images.ts';
import { NOT_IMAGES } from '../capabilities/extract/helpers.ts';

let svc: Embedded;
// the language-ID models only: every other model answers 503 (not installed)
beforeAll(async () => { svc = await startService({ MODEL_REPOSITORY: repositoryWith(['lid-lite-608', 'lid-neural-608']) }); });
afterAll(async () => { await svc.close(); });

const q = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`q${i}`, { type: 'noul', instructions: 'is it spam?' }]));
const opts = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`o${i}`, `option ${i}`]));

async function expect400(url: string, body: unknown, field: RegExp) {
  const r = await post(svc, url, body);
  expect(r.status, JSON.stringify(r.body)).toBe(400);
  expect(r.body.status).toBe(400);
  expect(r.body.error).toMatch(field);
}

describe('POST /v1/decide', () => {
  it('requires state and questions', async () => {
    await expect400('/v1/decide', { questions: q(1) }, /state/);
    await expect400('/v1/decide', { state: 'x' }, /questions/);
  });
  it('rejects an empty state', async () => {
    await expect400('/v1/decide', { state: '', questions: q(1) }, /state/);
    await expect400('/v1/decide', { state: '   ', questions: q(1) }, /state must not be empty/);
    await expect400('/v1/decide', { state: {}, questions: q(1) }, /state/);
    await expect400('/v1/decide', { state: [], questions: q(1) }, /state/);
    await expect400('/v1/decide', { state: 42, questions: q(1) }, /state/);
  });
  it('takes 1 to 64 questions', async () => {
    await expect400('/v1/decide', { state: 'x', questions: {} }, /questions/);
    await expect400('/v1/decide', { state: 'x', questions: q(65) }, /questions must NOT have more than 64/);
    expect((await post(svc, '/v1/decide', { state: 'x', questions: q(64) })).status).toBe(503);
  });
  it('checks question types and criteria', async () => {
    await expect400('/v1/decide', { state: 'x', questions: { a: { type: 'maybe', instructions: 'x' } } }, /type/);
    await expect400('/v1/decide', { state: 'x', questions: { a: { type: 'noul' } } }, /instructions/);
    await expect400('/v1/decide', { state: 'x', questions: { a: { type: 'choice', instructions: 'x', criteria: opts(1) } } }, /criteria must NOT have fewer than 2/);
    await expect400('/v1/decide', { state: 'x', questions: { a: { type: 'choice', instructions: 'x', criteria: opts(256) } } }, /criteria must NOT have more than 255/);
    await expect400('/v1/decide', { state: 'x', questions: { a: { type: 'choice', instructions: 'x' } } }, /criteria/);
    await expect400('/v1/decide', { state: 'x', questions: { a: { type: 'choice', instructions: 'x', criteria: { a: 1, b: 'x' } } } }, /criteria\/a/);
    await expect400('/v1/decide', { state: 'x', questions: { a: { type: 'noul', instructions: 'x', criteria: { yes: 'x' } } } }, /criteria must NOT have additional properties/);
    await expect400('/v1/decide', { state: 'x', questions: { a: { type: 'score', instructions: 'x', criteria: ['low'] } } }, /criteria must NOT have fewer than 2/);
    await expect400('/v1/decide', { state: 'x', questions: { a: { type: 'score', instructions: 'x', criteria: Array(27).fill('l') } } }, /criteria must NOT have more than 26/);
    await expect400('/v1/decide', { state: 'x', questions: { a: { type: 'score', instructions: 'x', criteria: { a: 'x' } } } }, /criteria must be array/);
    // valid shapes pass validation and reach the (absent) model
    for (const question of [
      { type: 'choice', instructions: 'x', criteria: opts(255) },
      { type: 'choice', instructions: 'x', criteria: { a: null, b: 'desc' } },
      { type: 'noul', instructions: 'x', criteria: { true: 'yes', false: null } },
      { type: 'score', instructions: 'x', criteria: Array(26).fill('level') },
    ]) expect((await post(svc, '/v1/decide', { state: 'x', questions: { a: question } })).status).toBe(503);
  });
  it('rejects an unknown model', async () => {
    await expect400('/v1/decide', { model: 'gpt-9', state: 'x', questions: q(1) }, /model/);
  });
  it('answers 413 over the context length, mentioning the maximum context length, and never truncates', async () => {
    const r = await post(svc, '/v1/decide', { state: 'word '.repeat(30_000), questions: q(1) });
    expect(r.status).toBe(413);
    expect(r.body).toMatchObject({ status: 413 });
    expect(r.body.error).toMatch(/maximum context length of 32000 tokens/);
    const r2 = await post(svc, '/v1/systemone', { state: { log: 'x'.repeat(140_000) }, questions: q(1) });
    expect(r2.status).toBe(413);
  });
});

describe('POST /v1/decide/batch', () => {
  it('takes 1 to 32 cases', async () => {
    await expect400('/v1/decide/batch', { cases: [] }, /cases/);
    await expect400('/v1/decide/batch', { cases: Array.from({ length: 33 }, (_, i) => ({ id: i, state: 'x', questions: q(1) })) }, /cases must NOT have more than 32/);
  });
  it('fails invalid and too-long cases on their own with {id, error, status}', async () => {
    const r = await post(svc, '/v1/decide/batch', {
      cases: [
        { id: 'bad', state: '', questions: q(1) },
        { id: 'long', state: 'word '.repeat(30_000), questions: q(1) },
        { id: 'noq', state: 'x' },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body.results).toHaveLength(3);
    expect(r.body.results[0]).toMatchObject({ id: 'bad', status: 400 });
    expect(r.body.results[1]).toMatchObject({ id: 'long', status: 413 });
    expect(r.body.results[1].error).toMatch(/maximum context length/);
    expect(r.body.results[2]).toMatchObject({ id: 'noq', status: 400 });
    expect(r.body.results[2].error).toMatch(/questions/);
    expect(r.body.usage).toEqual({ decisions: 0 });
  });
  it('answers 503 when valid cases need the model that is not installed', async () => {
    const r = await post(svc, '/v1/decide/batch', { cases: [{ id: 1, state: 'x', questions: q(1) }] });
    expect(r).toEqual({ status: 503, body: { error: 'model purplemist-flash-1.0 is not installed', status: 503, code: 'MODEL_NOT_INSTALLED' } });
  });
});

describe('POST /v1/extract', () => {
  const PNG_1x1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
  it('needs a template and text or image', async () => {
    await expect400('/v1/extract', { text: 'x' }, /template/);
    await expect400('/v1/extract', { template: { a: 'string' } }, /text|image/);
  });
  it('limits template to 8,000 characters and checks it', async () => {
    await expect400('/v1/extract', { template: { a: 'string', pad: ['x'.repeat(8000), 'y'] }, text: 'x' }, /template must be at most 8000 characters/);
    await expect400('/v1/extract', { template: '{"a": ', text: 'x' }, /template is a string but not valid JSON/);
    await expect400('/v1/extract', { template: '[1]', text: 'x' }, /template must be a JSON object/);
    await expect400('/v1/extract', { template: { a: 'money' }, text: 'x' }, /template.a has unknown leaf type "money"/);
    await expect400('/v1/extract', { template: { a: ['only'] }, text: 'x' }, /choice list needs at least 2 options/);
    // keys and options become grammar rules (regression: a NUL in a key failed the worker's whole micro-batch)
    await expect400('/v1/extract', { template: { 'a\u0000b': 'string' }, text: 'x' }, /template has a key with a control character/);
    await expect400('/v1/extract', { template: { a: { 'b\n': 'string' } }, text: 'x' }, /template.a has a key with a control character/);
    await expect400('/v1/extract', { template: { a: ['x\u0007', 'y'] }, text: 'x' }, /template.a has an option with a control character/);
  });
  it('limits text to 60,000 characters', async () => {
    await expect400('/v1/extract', { template: { a: 'string' }, text: 'x'.repeat(60_001) }, /text must NOT have more than 60000 characters/);
  });
  it('refuses an image that can never be one with 400, though the model is not installed (issue 32)', async () => {
    const before = imagesDecoded();
    for (const { what, image, error } of NOT_IMAGES) {
      const r = await post(svc, '/v1/extract', { template: { a: 'string' }, image });
      expect(r.status, what).toBe(400);
      expect(r.body, what).toMatchObject({ status: 400, code: 'INVALID_REQUEST', error: expect.stringMatching(error) });
    }
    // in a batch each such document fails alone, and with no valid document left no model is needed
    const batch = await post(svc, '/v1/extract/batch', { documents: NOT_IMAGES.map(({ image }, i) => ({ id: i, template: { a: 'string' }, image })) });
    expect(batch.status).toBe(200);
    batch.body.results.forEach((r: Record<string, unknown>, i: number) => {
      expect(r).toMatchObject({ id: i, data: null, confidence: null, status: 400, code: 'INVALID_REQUEST' });
      expect(r.error).toMatch(new RegExp(NOT_IMAGES[i]!.error.source.replace('^image', `^documents\\[${i}\\]\\.image`)));
    });
    expect(batch.body.usage).toEqual({ documents: 0 });
    expect(imagesDecoded()).toBe(before);
  });
  it('answers 503 for a model that is not installed before it decodes any image (regression: PNG bombs were decoded first)', async () => {
    // a PNG signature and a header declaring 100,000 × 100,000 pixels: it passes the cheap
    // rules, and only the image threads (after admission) would read the header
    const bomb = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), Buffer.from('IHDR'), Buffer.from([0, 1, 0x86, 0xa0, 0, 1, 0x86, 0xa0, 8, 2, 0, 0, 0])]).toString('base64');
    const before = imagesDecoded();
    const r = await post(svc, '/v1/extract', { template: { a: 'string' }, image: bomb });
    expect(r).toEqual({ status: 503, body: { error: 'model mist-extract-1.0 is not installed', status: 503, code: 'MODEL_NOT_INSTALLED' } });
    const batch = await post(svc, '/v1/extract/batch', { documents: Array.from({ length: 16 }, (_, i) => ({ id: i, template: { a: 'string' }, image: `data:image/png;base64,${bomb}` })) });
    expect(batch).toEqual({ status: 503, body: { error: 'model mist-extract-1.0 is not installed', status: 503, code: 'MODEL_NOT_INSTALLED' } });
    expect(imagesDecoded()).toBe(before);
  });
  it('accepts every leaf type, a JSON-string template and a PNG data URL, then answers 503 without the model', async () => {
    const template = {
      a: 'verbatim-string', b: 'string', c: 'number', d: 'integer', e: 'date', f: 'date-time', g: 'boolean',
      h: ['x', 'y'], i: [['p', 'q', 'r']], j: ['string'], k: [{ name: 'string', amount: 'number' }], l: { nested: 'date' },
    };
    const r = await post(svc, '/v1/extract', { template: JSON.stringify(template), image: `data:image/png;base64,${PNG_1x1}`, text: 'x' });
    expect(r).toEqual({ status: 503, body: { error: 'model mist-extract-1.0 is not installed', status: 503, code: 'MODEL_NOT_INSTALLED' } });
  });
});

describe('POST /v1/extract/batch', () => {
  it('takes 1 to 16 documents', async () => {
    await expect400('/v1/extract/batch', { documents: Array.from({ length: 17 }, (_, i) => ({ id: i, template: { a: 'string' }, text: 'x' })) }, /documents must NOT have more than 16/);
  });
  it('fails invalid documents alone with data null, confidence null, error and status 400', async () => {
    const r = await post(svc, '/v1/extract/batch', { documents: [
      { id: 'd1', template: { a: 'string' } },
      { id: 'd2', template: { a: 'nope' }, text: 'x' },
    ] });
    expect(r.status).toBe(200);
    expect(r.body.results).toEqual([
      { id: 'd1', data: null, confidence: null, error: expect.stringMatching(/text|image/), status: 400, code: 'INVALID_REQUEST' },
      { id: 'd2', data: null, confidence: null, error: expect.stringMatching(/unknown leaf type/), status: 400, code: 'INVALID_REQUEST' },
    ]);
    expect(r.body.usage).toEqual({ documents: 0 });
  });
});

describe('POST /v1/language-id', () => {
  it('limits text to 8,000 characters and top_k to 1..25', async () => {
    await expect400('/v1/language-id', {}, /text/);
    await expect400('/v1/language-id', { text: '' }, /text/);
    await expect400('/v1/language-id', { text: 'é'.repeat(8001) }, /text must NOT have more than 8000 characters/);
    await expect400('/v1/language-id', { text: 'hello', top_k: 0 }, /top_k must be >= 1/);
    await expect400('/v1/language-id', { text: 'hello', top_k: 26 }, /top_k must be <= 25/);
    await expect400('/v1/language-id', { text: 'hello', top_k: 2.5 }, /top_k must be integer/);
    await expect400('/v1/language-id', { text: 'hello', mode: 'fast' }, /mode/);
    await expect400('/v1/language-id', { text: 'hello', model: 'lid-neural-25' }, /model/);
  });
  it('takes up to 256 texts in a batch', async () => {
    await expect400('/v1/language-id/batch', { texts: Array(257).fill('hello') }, /texts must NOT have more than 256/);
    await expect400('/v1/language-id/batch', { texts: ['ok', 'x'.repeat(8001)] }, /texts\/1/);
  });
});

describe('POST /v1/diacritize', () => {
  it('limits text to 20,000 characters and checks the fields', async () => {
    await expect400('/v1/diacritize', { text: 'a'.repeat(20_001) }, /text must NOT have more than 20000 characters/);
    await expect400('/v1/diacritize', { text: 'bao', language: 'deu' }, /language/);
    await expect400('/v1/diacritize', { text: 'bao', model: 'diacnet-3.0' }, /model/);
    await expect400('/v1/diacritize', { text: 'bao', min_confidence: 1.5 }, /min_confidence/);
    await expect400('/v1/diacritize', { text: 'bao', case_endings: 'yes' }, /case_endings/);
    await expect400('/v1/diacritize', { text: 'bao', hints: { bank: 3 } }, /hints/);
  });
  it('accepts 2-letter codes and ara-nocase, then answers 503 without the model', async () => {
    for (const language of ['vi', 'ara-nocase', 'auto', 'yor']) {
      const r = await post(svc, '/v1/diacritize', { text: 'bao', language, model: 'diacnet-mini-2.0' });
      expect(r).toEqual({ status: 503, body: { error: 'model diacnet-mini-2.0 is not installed', status: 503, code: 'MODEL_NOT_INSTALLED' } });
    }
  });
  it('checks batch sizes and per-text lists', async () => {
    await expect400('/v1/diacritize/batch', { texts: Array(65).fill('a') }, /texts must NOT have more than 64/);
    await expect400('/v1/diacritize/batch', { texts: ['a', 'b'], language: ['vie'] }, /language must have one entry per text \(2\), not 1/);
    await expect400('/v1/diacritize/batch', { texts: ['a', 'b'], hints: [null] }, /hints must have one entry per text/);
    await expect400('/v1/diacritize/batch', { texts: ['a', 'b'], language: ['vie', 'klingon'] }, /language/);
    expect((await post(svc, '/v1/diacritize/batch', { texts: ['a', 'b'], language: ['vie', 'pl'], hints: [null, { bank: 'river side' }] })).status).toBe(503);
  });
});

describe('POST /v1/questions/generate', () => {
  it('limits passage to 1..8,000 characters and n to 1..10', async () => {
    await expect400('/v1/questions/generate', { passage: '' }, /passage/);
    await expect400('/v1/questions/generate', { passage: 'x'.repeat(8001) }, /passage must NOT have more than 8000 characters/);
    await expect400('/v1/questions/generate', { passage: 'x', n: 0 }, /n must be >= 1/);
    await expect400('/v1/questions/generate', { passage: 'x', n: 11 }, /n must be <= 10/);
  });
  it('accepts the 25 languages by code, 2-letter code or name, and rejects others', async () => {
    await expect400('/v1/questions/generate', { passage: 'x', language: 'German' }, /language "German" is not one of the 25/);
    for (const language of ['yor', 'sw', 'Twi', 'isiZulu', 'Luganda', 'swh']) {
      expect((await post(svc, '/v1/questions/generate', { passage: 'x', language })).status).toBe(503);
    }
  });
  it('takes up to 64 passages in a batch', async () => {
    await expect400('/v1/questions/generate/batch', { passages: Array(65).fill('x') }, /passages must NOT have more than 64/);
    await expect400('/v1/generate-questions/batch', { passages: Array(65).fill('x') }, /passages must NOT have more than 64/);
    await expect400('/v1/generate-questions', { passage: 'x', n: 11 }, /n must be <= 10/);
  });
});

describe('legacy POST /v1/detect-language', () => {
  it('accepts only the legacy model names and variants', async () => {
    await expect400('/v1/detect-language', { text: 'hello', model: 'lid-neural-608' }, /model/);
    await expect400('/v1/detect-language', { text: 'hello', variant: 'traffic' }, /variant/);
    await expect400('/v1/detect-language/batch', { texts: Array(257).fill('x') }, /texts must NOT have more than 256/);
  });
});

describe('malformed requests', () => {
  it('answers 400 with a JSON body for malformed JSON', async () => {
    const res = await svc.gateway.app.inject({ method: 'POST', url: '/v1/language-id', headers: { authorization: 'Bearer test-key-0123456789', 'content-type': 'application/json' }, payload: '{"text": ' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ status: 400, error: expect.stringMatching(/JSON/) });
  });
  it('answers 404 with a JSON body for an unknown route', async () => {
    const res = await svc.gateway.app.inject({ method: 'GET', url: '/v1/nope' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'route GET /v1/nope not found', status: 404, code: 'NOT_FOUND' });
  });
});
