/**
 * Auth, rate limits, info routes, warm-up, the OpenAPI document, metrics and usage.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Embedded } from '../../services/embedded.ts';
import { MODEL_CATALOG } from '../../services/capabilities/index.ts';
import { topicsFor } from '../../services/events/topics.ts';
import { AUTH, post, startService, until } from '../helpers/service.ts';

let svc: Embedded;
beforeAll(async () => { svc = await startService({ RATE_LIMIT_MAX: 1000, METRICS_TOKEN: 'scrape-token' }); });
afterAll(async () => { await svc.close(); });

const POST_ROUTES = [
  '/v1/decide', '/v1/decide/batch', '/v1/systemone', '/v1/extract', '/v1/extract/batch', '/v1/language-id', '/v1/language-id/batch',
  '/v1/diacritize', '/v1/diacritize/batch', '/v1/questions/generate', '/v1/questions/generate/batch', '/v1/generate-questions',
  '/v1/generate-questions/batch', '/v1/detect-language', '/v1/detect-language/batch', '/v1/warmup',
];

describe('auth', () => {
  it('answers 401 on every POST route without a key or with an unknown one', async () => {
    for (const url of POST_ROUTES) {
      const none = await post(svc, url, {}, {});
      expect(none, url).toEqual({ status: 401, body: { error: 'missing API key: send Authorization: Bearer <API_KEY>', status: 401, code: 'UNAUTHORIZED' } });
      const bad = await post(svc, url, {}, { authorization: 'Bearer nope' });
      expect(bad, url).toEqual({ status: 401, body: { error: 'unknown or revoked API key', status: 401, code: 'UNAUTHORIZED' } });
    }
  });
  it('accepts a key made by the key store and refuses it once revoked', async () => {
    const { key } = await svc.keys.create('alice');
    const ok = await post(svc, '/v1/warmup', null, { authorization: `Bearer ${key}` });
    expect(ok.status).toBe(202);
    expect(await svc.keys.revoke('alice')).toBe(1);
    const after = await post(svc, '/v1/warmup', null, { authorization: `Bearer ${key}` });
    expect(after.status).toBe(401);
  });
  it('needs no key for GET /v1/models, /v1/languages and /health', async () => {
    for (const url of ['/v1/models', '/v1/languages', '/health', '/v1/lid/models']) {
      expect((await svc.gateway.app.inject({ method: 'GET', url })).statusCode, url).toBe(200);
    }
    expect((await svc.gateway.app.inject({ method: 'GET', url: '/v1/usage' })).statusCode).toBe(401);
  });
});

describe('rate limit', () => {
  it('answers 429 with a JSON body when a key exceeds its request rate', async () => {
    const small = await startService({ RATE_LIMIT_MAX: 3, RATE_LIMIT_WINDOW_MS: 60_000 });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await post(small, '/v1/warmup', null)).status);
      expect(statuses).toEqual([202, 202, 202, 429, 429]);
      const r = await post(small, '/v1/warmup', null);
      expect(r.body).toMatchObject({ status: 429, error: expect.stringMatching(/rate limit exceeded/) });
    } finally { await small.close(); }
  });
});

describe('info routes', () => {
  it('lists every model of the spec with endpoint, status, billing unit and languages', async () => {
    await until(() => svc.gateway.liveWorkers.canServe('language-id', 'lid-lite-608'), 5000, 'worker heartbeat');
    const body = (await svc.gateway.app.inject({ method: 'GET', url: '/v1/models' })).json();
    expect(body.models.map((m: { name: string }) => m.name)).toEqual(MODEL_CATALOG.map((m) => m.name));
    const byName = Object.fromEntries(body.models.map((m: { name: string }) => [m.name, m]));
    expect(byName['lid-neural-608']).toMatchObject({ endpoint: '/v1/language-id', status: 'available', billing_unit: 'texts' });
    expect(byName['lid-lite-608'].status).toBe('available');
    expect(byName['mist-extract-1.0']).toMatchObject({ endpoint: '/v1/extract', status: 'coming soon', billing_unit: 'documents' });
    expect(byName['diacnet-2.0']).toMatchObject({ billing_unit: 'characters', status: 'available' });
    expect(byName['diacnet-2.0'].languages).toHaveLength(11);
    expect(byName['mist-qg-1.5b'].languages).toHaveLength(25);
    expect(byName['purplemist-flash-1.0'].billing_unit).toBe('decisions');
  });
  it('lists the 25 question-generation languages with codes and names', async () => {
    const body = (await svc.gateway.app.inject({ method: 'GET', url: '/v1/languages' })).json();
    expect(body.languages.map((l: { code: string }) => l.code)).toEqual(['eng', 'fra', 'por', 'ara', 'swa', 'hau', 'yor', 'ibo', 'amh', 'zul', 'xho', 'som', 'orm', 'tir', 'kin', 'sna', 'afr', 'aka', 'wol', 'lin', 'lug', 'sot', 'tsn', 'nya', 'mlg']);
    expect(body.languages.find((l: { code: string }) => l.code === 'aka')).toEqual({ code: 'aka', code2: 'ak', name: 'Twi' });
  });
  it('lists the language-ID models with language counts', async () => {
    const body = (await svc.gateway.app.inject({ method: 'GET', url: '/v1/lid/models' })).json();
    const lite = body.models.find((m: { name: string }) => m.name === 'lid-lite-608');
    expect(lite.status).toBe('available');
    expect(lite.languages).toBeGreaterThan(400);
  });
  it('answers /health with status ok and the package version', async () => {
    const body = (await svc.gateway.app.inject({ method: 'GET', url: '/health' })).json();
    expect(body).toMatchObject({ status: 'ok', version: '0.1.0' });
  });
  it('serves the OpenAPI document generated from the route schemas, and /docs', async () => {
    const doc = (await svc.gateway.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/v1/decide', '/v1/language-id/batch', '/v1/detect-language', '/v1/warmup']));
    expect(doc.paths['/v1/language-id'].post.requestBody.content['application/json'].schema.properties.top_k).toMatchObject({ minimum: 1, maximum: 25 });
    const page = await svc.gateway.app.inject({ method: 'GET', url: '/docs/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/html/);
  });
});

describe('POST /v1/warmup', () => {
  it('answers 202 at once and loads question generation and language ID by default', async () => {
    const r = await post(svc, '/v1/warmup', null);
    expect(r).toEqual({ status: 202, body: { status: 'accepted', services: ['questions', 'language-id'] } });
    await until(() => svc.gateway.liveWorkers.isLoaded('language-id', 'lid-neural-608') || !svc.gateway.liveWorkers.canServe('language-id', 'lid-neural-608'), 20_000, 'model load');
  });
  it('accepts an empty JSON body as no body', async () => {
    const res = await svc.gateway.app.inject({ method: 'POST', url: '/v1/warmup', headers: { ...AUTH, 'content-type': 'application/json' }, payload: '' });
    expect(res.statusCode).toBe(202);
    const lid = await svc.gateway.app.inject({ method: 'POST', url: '/v1/language-id', headers: { ...AUTH, 'content-type': 'application/json' }, payload: '' });
    expect(lid.statusCode).toBe(400);
    expect(lid.json()).toMatchObject({ status: 400, error: expect.stringMatching(/body/) });
  });
  it('loads the named services and rejects unknown names', async () => {
    expect((await post(svc, '/v1/warmup', { services: ['extract', 'decide'] })).body.services).toEqual(['extract', 'decide']);
    const bad = await post(svc, '/v1/warmup', { services: ['extract', 'teleport'] });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/services\/1/);
  });
  it('limits the body, the number of names and the control messages (regression: 600,000 names made 600,000 messages)', async () => {
    const control = () => [0].flatMap((p) => svc.transport.read(topicsFor('lmstream').control, p, 0, 1_000_000)).length;
    const huge = await svc.gateway.app.inject({ method: 'POST', url: '/v1/warmup', headers: { ...AUTH, 'content-type': 'application/json' }, payload: JSON.stringify({ services: Array(600_000).fill('extract') }) });
    expect(huge.statusCode).toBe(413);
    const six = await post(svc, '/v1/warmup', { services: ['extract', 'extract', 'extract', 'extract', 'extract', 'extract'] });
    expect(six.status).toBe(400);
    expect(six.body.error).toMatch(/must NOT have more than 5 items/);
    const before = control();
    const dup = await post(svc, '/v1/warmup', { services: ['extract', 'extract', 'decide'] });
    expect(dup.body).toEqual({ status: 'accepted', services: ['extract', 'decide'] });
    expect(control() - before).toBe(2);
  });
});

describe('GET /metrics', () => {
  it('exposes requests by route and status, latency, micro-batch sizes, queue depth and pending replies', async () => {
    await post(svc, '/v1/language-id', { text: 'good morning to all of you', model: 'lid-lite-608' });
    const text = (await svc.gateway.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer scrape-token' } })).body;
    expect(text).toMatch(/lmstream_http_requests_total\{route="\/v1\/language-id",method="POST",status="200"\} \d+/);
    expect(text).toMatch(/lmstream_http_request_duration_seconds_bucket/);
    expect(text).toMatch(/lmstream_microbatch_size_count\{model="lid-lite-608"\} \d+/);
    expect(text).toMatch(/lmstream_queue_depth/);
    expect(text).toMatch(/lmstream_pending_replies 0/);
  });
  it('passes promtool check metrics (regression: three gauges were named like counters, exit 3)', async (ctx) => {
    if (spawnSync('promtool', ['--version'], { stdio: 'ignore' }).status !== 0) {
      if (process.env.CI) throw new Error('CI needs promtool: apt-get install prometheus');
      ctx.skip();
    }
    await post(svc, '/v1/language-id', { text: 'good morning to all of you', model: 'lid-lite-608' });
    const text = (await svc.gateway.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer scrape-token' } })).body;
    const check = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(`${check.status} ${check.stdout}${check.stderr}`).toBe('0 ');
  });
  it('is served only with METRICS_TOKEN, and is off without one (regression: /metrics was public)', async () => {
    const none = await svc.gateway.app.inject({ method: 'GET', url: '/metrics' });
    expect(none.statusCode).toBe(401);
    expect(none.json()).toEqual({ status: 401, code: 'UNAUTHORIZED', error: '/metrics needs Authorization: Bearer <METRICS_TOKEN>' });
    const key = await svc.gateway.app.inject({ method: 'GET', url: '/metrics', headers: AUTH });
    expect(key.statusCode).toBe(401);
    const off = await startService();
    try {
      const r = await off.gateway.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer anything' } });
      expect(r.statusCode).toBe(403);
      expect(r.json().error).toMatch(/set METRICS_TOKEN/);
    } finally { await off.close(); }
  });
});

describe('GET /v1/usage', () => {
  it("reports the caller's usage per capability, model and unit", async () => {
    await post(svc, '/v1/language-id/batch', { texts: ['one text here', 'and another one'], model: 'lid-lite-608' });
    await until(async () => (await svc.ledger.report()).some((r) => r.model === 'lid-lite-608' && r.quantity >= 3), 5000, 'ledger');
    const res = await svc.gateway.app.inject({ method: 'GET', url: '/v1/usage', headers: AUTH });
    const body = res.json();
    expect(res.statusCode).toBe(200);
    const row = body.usage.find((u: { model: string }) => u.model === 'lid-lite-608');
    expect(row).toMatchObject({ capability: 'language-id', unit: 'texts' });
    expect(row.quantity).toBeGreaterThanOrEqual(3);
    const none = await svc.gateway.app.inject({ method: 'GET', url: '/v1/usage?to=2000-01-01T00:00:00Z', headers: AUTH });
    expect(none.json().usage).toEqual([]);
  });
});
