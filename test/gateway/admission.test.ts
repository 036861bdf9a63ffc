/**
 * The order of refusals (issue 11, finding 4): auth, rate limit, body size, schema, model
 * availability, then the work; each check answers before the next one is paid for.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Embedded } from '../../services/embedded.ts';
import { BODY_LIMITS } from '../../services/route-kit/limits.ts';
import { AUTH, KEY_B, post, startService } from '../helpers/service.ts';

let svc: Embedded;
beforeAll(async () => { svc = await startService({ RATE_LIMIT_MAX: 10 }); });
afterAll(async () => { await svc.close(); });

const big = (bytes: number) => JSON.stringify({ text: 'x'.repeat(bytes) });

describe('order of refusals', () => {
  it('auth before body size: an oversized body without a key is 401', async () => {
    const r = await svc.gateway.app.inject({ method: 'POST', url: '/v1/language-id', headers: { 'content-type': 'application/json' }, payload: big(BODY_LIMITS.languageId * 2) });
    expect(r.statusCode).toBe(401);
  });
  it('body size before schema, schema before model availability', async () => {
    const tooBig = await svc.gateway.app.inject({ method: 'POST', url: '/v1/extract', headers: { ...AUTH, 'content-type': 'application/json' }, payload: big(BODY_LIMITS.extract + 10) });
    expect(tooBig.statusCode).toBe(413);
    // the extraction model is not installed: a broken request is still 400, a valid one 503
    expect((await post(svc, '/v1/extract', { template: { a: 'nope' }, text: 'x' })).status).toBe(400);
    expect((await post(svc, '/v1/decide', { state: '  ', questions: { q: { type: 'noul', instructions: '?' } } })).status).toBe(400);
    expect((await post(svc, '/v1/questions/generate', { passage: 'x', language: 'Klingon' })).status).toBe(400);
    expect((await post(svc, '/v1/diacritize/batch', { texts: ['a', 'b'], language: ['yor'] })).status).toBe(400);
    expect((await post(svc, '/v1/extract', { template: { a: 'string' }, text: 'x' })).status).toBe(503);
  });
  it('a batch whose every item is broken is answered item by item without a model', async () => {
    const r = await post(svc, '/v1/decide/batch', { cases: [{ id: 'a', state: '   ', questions: { q: { type: 'noul', instructions: '?' } } }] }, { authorization: `Bearer ${KEY_B}` });
    expect(r).toEqual({ status: 200, body: { model: 'purplemist-flash-1.0', results: [{ id: 'a', error: 'cases[0].state must not be empty', status: 400, code: 'INVALID_REQUEST' }], usage: { decisions: 0 } } });
  });
  it('rate limit before body size: a spent key is 429 whatever its body', async () => {
    for (let i = 0; i < 11; i++) await post(svc, '/v1/warmup', null);
    const r = await svc.gateway.app.inject({ method: 'POST', url: '/v1/language-id', headers: { ...AUTH, 'content-type': 'application/json' }, payload: big(BODY_LIMITS.languageId * 2) });
    expect(r.statusCode).toBe(429);
  });
});
