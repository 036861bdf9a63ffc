/**
 * The OpenAPI document is the contract (issue 36): it is what the gateway serves, generated
 * from the route schemas (clients/openapi.json and its openapi-typescript types are current),
 * it passes @redocly/openapi-core's recommended rules with no error, and every operation's
 * real answers, success and error, over real HTTP through the typed openapi-fetch client
 * (clients/typescript/client.ts, type-checked by `tsc` in `npm test`), validate against the
 * document's response schema for their status.
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_TYPES_FILE, OPENAPI_FILE, clientTypes, documentText } from '../../scripts/gen-openapi.ts';
import { lmstreamClient, type LmstreamClient } from '../../clients/typescript/client.ts';
import type { Embedded } from '../../services/embedded.ts';
import { KEY, KEY_B, startService, until } from '../helpers/service.ts';
import { repositoryWith, useTinyWeights } from '../helpers/llm.ts';

useTinyWeights();
const repo = repositoryWith({ 'mist-extract-1.0': { max_value_chars: 40, max_list_items: 3 }, 'mist-extract-flash-1.0': { max_value_chars: 40, max_list_items: 3 }, 'mist-qg-1.5b': { max_question_chars: 24 } });
const NEEDED = ['purplemist-flash-1.0', 'mist-extract-flash-1.0', 'lid-lite-608', 'diactag-2.0', 'mist-qg-1.5b'];

interface Operation { responses: Record<string, { content?: { 'application/json'?: { schema?: object } } }>; operationId?: string; security?: unknown[] }
type Doc = { paths: Record<string, Record<string, Operation>>; components: object; servers?: unknown[]; info: { license?: unknown } };

let svc: Embedded;
let doc: Doc;
let api: LmstreamClient;
let anonymous: LmstreamClient;
let other: LmstreamClient;
beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_MAX: 1_000_000, MODEL_REPOSITORY: repo, API_ADMIN_KEYS: KEY });
  await svc.gateway.app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(svc.gateway.app.server.address() as AddressInfo).port}`;
  api = lmstreamClient(base, KEY);
  anonymous = lmstreamClient(base);
  other = lmstreamClient(base, KEY_B);
  doc = (await (await fetch(`${base}/openapi.json`)).json()) as Doc;
  await until(async () => {
    const { data } = await anonymous.GET('/v1/models');
    return NEEDED.every((n) => data?.models.find((m) => m.name === n)?.status === 'available');
  }, 20_000, 'models available');
});
afterAll(async () => { await svc?.close(); });

describe('the OpenAPI document', () => {
  it('is clients/openapi.json, and clients/typescript/schema.ts is what openapi-typescript makes of it (run npm run gen:openapi after changing a route)', async () => {
    expect(readFileSync(OPENAPI_FILE, 'utf8')).toBe(documentText(doc));
    expect(readFileSync(CLIENT_TYPES_FILE, 'utf8')).toBe(await clientTypes(doc));
  });

  it("passes redocly's recommended rules with no error; the warnings left are the two routes without a 4xx (docs/api-choices.md)", async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: 'openapi.json', config });
    expect(problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(problems.map((p) => `${p.ruleId} ${p.location[0]?.pointer}`).sort()).toEqual([
      'operation-4xx-response #/paths/~1health/get/responses',
      'operation-4xx-response #/paths/~1ready/get/responses',
    ]);
  });

  it('gives every operation an operationId, a 2xx answer with its schema, and a security requirement (none on the public routes)', () => {
    const ids = new Set<string>();
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        expect(op.operationId, `${method} ${path}`).toMatch(/^[a-z][A-Za-z]+$/);
        ids.add(op.operationId!);
        const ok = Object.keys(op.responses).filter((s) => s.startsWith('2'));
        expect(ok.length, `${method} ${path}`).toBe(1);
        expect(op.responses[ok[0]!]!.content?.['application/json']?.schema, `${method} ${path}`).toBeDefined();
        expect(op.security, `${method} ${path}`).toEqual(['/v1/models', '/v1/languages', '/v1/lid/models', '/health', '/ready'].includes(path) ? [] : [{ bearer: [] }]);
      }
    }
    expect(ids.size).toBe(Object.values(doc.paths).reduce((n, ops) => n + Object.keys(ops).length, 0));
    expect(doc.servers).toHaveLength(1);
    expect(doc.info.license).toEqual({ name: 'Apache-2.0', identifier: 'Apache-2.0' });
  });
});

describe('real answers against the document', () => {
  const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
  const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));
  const validators = new Map<string, ValidateFunction>();
  /** Operations (method and path) answered with a 2xx, and with an error. */
  const seen = { ok: new Set<string>(), error: new Set<string>() };

  /** Checks an answer against the document's schema for its operation and status. */
  function conforms(method: string, path: string, r: { response: Response; data?: unknown; error?: unknown }): void {
    const status = String(r.response.status);
    const op = doc.paths[path]?.[method];
    expect(op, `${method} ${path} is in the document`).toBeDefined();
    expect(Object.keys(op!.responses), `${method} ${path} documents status ${status}`).toContain(status);
    const key = `${method} ${path} ${status}`;
    let validate = validators.get(key);
    if (!validate) validators.set(key, validate = ajv.compile({ ...op!.responses[status]!.content!['application/json']!.schema, components: doc.components }));
    const body = r.response.ok ? r.data : r.error;
    expect(validate(body), `${key}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`).toBe(true);
    seen[r.response.ok ? 'ok' : 'error'].add(`${method} ${path}`);
  }

  const STATE = 'Nimetuma pesa jana lakini hazijafika. Naomba mnirudishie haraka!';
  const QUESTIONS = {
    intent: { type: 'choice' as const, instructions: 'What does the customer want?', criteria: { refund: 'their money back', other: null } },
    angry: { type: 'noul' as const, instructions: 'The customer is angry' },
    urgency: { type: 'score' as const, instructions: 'How urgent is a reply?', criteria: ['can wait', 'today', 'within the hour'] },
  };
  const RECEIPT = 'Receipt from NAIVAS SUPERMARKET. Total KES 1,250.00 paid 2 Nov 2026.';
  const PASSAGE = 'Mlima Kilimanjaro ndio mlima mrefu zaidi barani Afrika. Uko kaskazini mwa Tanzania.';

  it('decide, its alias and its batch (one case failing alone)', async () => {
    const one = await api.POST('/v1/decide', { body: { state: STATE, questions: QUESTIONS } });
    conforms('post', '/v1/decide', one);
    expect(one.data?.answers.intent?.type).toBe('choice');
    expect(one.data?.usage.decisions).toBe(3);
    conforms('post', '/v1/systemone', await api.POST('/v1/systemone', { body: { state: { message: STATE }, questions: { angry: QUESTIONS.angry } } }));
    const batch = await api.POST('/v1/decide/batch', { body: { cases: [{ id: 'a', state: STATE, questions: QUESTIONS }, { id: 'blank', state: '   ', questions: QUESTIONS }] } });
    conforms('post', '/v1/decide/batch', batch);
    expect(batch.data?.results.map((r) => ('status' in r ? r.status : 200))).toEqual([200, 400]);
    conforms('post', '/v1/decide', await api.POST('/v1/decide', { body: { state: STATE, questions: {} } }));
  });

  it('extract and its batch (one document failing alone)', async () => {
    const one = await api.POST('/v1/extract', { body: { template: { total: 'number', shop: 'verbatim-string' }, text: RECEIPT, model: 'mist-extract-flash-1.0' } });
    conforms('post', '/v1/extract', one);
    expect(one.data?.usage.documents).toBe(1);
    const batch = await api.POST('/v1/extract/batch', { body: { model: 'mist-extract-flash-1.0', documents: [{ id: 1, template: { total: 'number' }, text: RECEIPT }, { id: 'none', template: { total: 'number' } }] } });
    conforms('post', '/v1/extract/batch', batch);
    expect(batch.data?.usage.documents).toBe(1);
    conforms('post', '/v1/extract', await api.POST('/v1/extract', { body: { template: { total: 'number' } } as never }));
  });

  it('language ID, its batch and the legacy detect-language routes', async () => {
    const one = await api.POST('/v1/language-id', { body: { text: 'Habari za asubuhi, rafiki yangu', model: 'lid-lite-608', top_k: 2 } });
    conforms('post', '/v1/language-id', one);
    expect(one.data?.top).toHaveLength(2);
    conforms('post', '/v1/language-id/batch', await api.POST('/v1/language-id/batch', { body: { texts: ['Bonjour à tous', '12345'], model: 'lid-lite-608' } }));
    conforms('post', '/v1/language-id', await api.POST('/v1/language-id', { body: { text: 'x', top_k: 99 } }));
    conforms('post', '/v1/language-id/batch', await api.POST('/v1/language-id/batch', { body: { texts: [] } }));
    const legacy = await api.POST('/v1/detect-language', { body: { text: 'Habari za asubuhi, rafiki yangu', model: 'lid-lite-25' } });
    conforms('post', '/v1/detect-language', legacy);
    expect(legacy.data?.language).toBe('swa');
    conforms('post', '/v1/detect-language/batch', await api.POST('/v1/detect-language/batch', { body: { texts: ['Good morning', 'Bom dia'], model: 'lid-lite-25', variant: 'passages' } }));
    conforms('post', '/v1/detect-language', await api.POST('/v1/detect-language', { body: { text: 'x', model: 'lid-huge' } as never }));
    conforms('post', '/v1/detect-language/batch', await api.POST('/v1/detect-language/batch', { body: {} as never }));
  });

  it('diacritize and its batch', async () => {
    const one = await api.POST('/v1/diacritize', { body: { text: 'Zazolc gesla jazn', model: 'diactag-2.0', language: 'pol' } });
    conforms('post', '/v1/diacritize', one);
    expect(one.data?.usage.billable_units).toBe(1);
    conforms('post', '/v1/diacritize/batch', await api.POST('/v1/diacritize/batch', { body: { texts: ['Ca phe sua da', 'Ou est la gare'], model: 'diactag-2.0', language: ['vie', 'fra'] } }));
    conforms('post', '/v1/diacritize', await api.POST('/v1/diacritize', { body: { text: 'abc', language: 'xx' } as never }));
    conforms('post', '/v1/diacritize/batch', await api.POST('/v1/diacritize/batch', { body: { texts: ['a', 'b'], language: ['pol'] } }));
  });

  it('question generation, its batch and the legacy generate-questions routes', async () => {
    const one = await api.POST('/v1/questions/generate', { body: { passage: PASSAGE, n: 1, language: 'sw' } });
    conforms('post', '/v1/questions/generate', one);
    expect(one.data?.language).toBe('swa');
    conforms('post', '/v1/questions/generate/batch', await api.POST('/v1/questions/generate/batch', { body: { passages: [PASSAGE, PASSAGE], n: 1, language: 'swa' } }));
    conforms('post', '/v1/generate-questions', await api.POST('/v1/generate-questions', { body: { passage: PASSAGE, n: 1, language: 'Swahili' } }));
    conforms('post', '/v1/generate-questions/batch', await api.POST('/v1/generate-questions/batch', { body: { passages: [PASSAGE], n: 1, language: 'sw' } }));
    for (const path of ['/v1/questions/generate', '/v1/generate-questions'] as const) conforms('post', path, await api.POST(path, { body: { passage: PASSAGE, language: 'Klingon' } }));
    for (const path of ['/v1/questions/generate/batch', '/v1/generate-questions/batch'] as const) conforms('post', path, await api.POST(path, { body: { passages: [PASSAGE], n: 11 } }));
  });

  it('the public routes, warm-up, usage and analytics', async () => {
    const models = await anonymous.GET('/v1/models');
    conforms('get', '/v1/models', models);
    conforms('get', '/v1/languages', await anonymous.GET('/v1/languages'));
    conforms('get', '/v1/lid/models', await anonymous.GET('/v1/lid/models'));
    const health = await anonymous.GET('/health');
    conforms('get', '/health', health);
    expect(health.data?.status).toBe('ok');
    conforms('get', '/ready', await anonymous.GET('/ready'));
    conforms('post', '/v1/warmup', await api.POST('/v1/warmup', { body: { services: ['language-id'] } }));
    conforms('post', '/v1/warmup', await api.POST('/v1/warmup', { body: { services: ['teleport'] } as never }));
    conforms('get', '/v1/usage', await api.GET('/v1/usage', { params: { query: { from: '2026-01-01T00:00:00Z' } } }));
    conforms('get', '/v1/usage', await api.GET('/v1/usage', { params: { query: { from: '2026-01-02T00:00:00Z', to: '2026-01-01T00:00:00Z' } } }));
    conforms('get', '/v1/analytics', await api.GET('/v1/analytics', { params: { query: { group_by: 'capability,model', step: '1m' } } }));
    conforms('get', '/v1/analytics', await other.GET('/v1/analytics', { params: { query: { key: 'someone-else' } } }));
    conforms('get', '/v1/analytics/pipeline', await api.GET('/v1/analytics/pipeline'));
    conforms('get', '/v1/analytics/pipeline', await other.GET('/v1/analytics/pipeline'));
  });

  it('answers 401 on every route that needs a key, in the documented error shape', async () => {
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        if (op.security?.length === 0) continue;
        const res = await fetch(`http://127.0.0.1:${(svc.gateway.app.server.address() as AddressInfo).port}${path}`, { method: method.toUpperCase(), ...(method === 'post' ? { headers: { 'content-type': 'application/json' }, body: '{}' } : {}) });
        expect(res.status, `${method} ${path}`).toBe(401);
        conforms(method, path, { response: res, error: await res.json() });
      }
    }
  });

  it('has checked a success and an error answer of every operation', () => {
    const all = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m} ${path}`));
    expect(all.filter((o) => !seen.ok.has(o))).toEqual([]);
    // the public routes have no error a test can bring about without exhausting an address's budget
    expect(all.filter((o) => !seen.error.has(o))).toEqual(['get /v1/lid/models', 'get /v1/models', 'get /v1/languages', 'get /health', 'get /ready']);
  });
});
