/**
 * Property-based fuzzing of every POST route (fast-check; issue 11): valid bodies with one
 * field broken (wrong types, lengths at and past the limits in code points), random JSON
 * (deep nesting), prototype and duplicate keys, malformed JSON and content types, bad
 * images, and abused headers. Every answer must be 200/202 (or 503 where the body is
 * valid and the model is not installed), or a 4xx with the JSON error body; never a 5xx
 * other than that 503, and the service stays healthy.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Embedded } from '../../services/embedded.ts';
import { AUTH, KEY, startService, until } from '../helpers/service.ts';

let svc: Embedded;
beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_MAX: 10_000_000, RATE_LIMIT_ANON_MAX: 10_000_000 });
  await until(() => svc.gateway.liveWorkers.canServe('language-id', 'lid-lite-608'), 5000, 'heartbeat');
});
afterAll(async () => { await svc.close(); });

/** A string of exactly `n` code points, astral ones included (limits count code points). */
const codePoints = (n: number) => fc.array(fc.constantFrom('a', 'é', '字', '😀', ' ', '\u0000', '"', '\\'), { minLength: n, maxLength: n }).map((a) => a.join(''));
const nearLimit = (limit: number) => fc.oneof(codePoints(limit), codePoints(limit + 1), fc.constant(''), codePoints(1));
const PNG_1x1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const image = fc.oneof(
  fc.constant(PNG_1x1), fc.constant(`data:image/png;base64,${PNG_1x1}`), fc.constant('data:image/png,abc'), fc.constant('https://example.com/x.png'),
  fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b).toString('base64')), fc.string(),
);
const question = fc.oneof(
  fc.record({ type: fc.constant('noul'), instructions: fc.string() }),
  fc.record({ type: fc.constant('choice'), instructions: fc.string(), criteria: fc.dictionary(fc.string({ maxLength: 8 }), fc.option(fc.string()), { maxKeys: 5 }) }),
  fc.record({ type: fc.constant('score'), instructions: fc.string(), criteria: fc.array(fc.string(), { maxLength: 30 }) }),
);

/** A valid-looking body per route, whose fields the fuzzer then breaks. */
const BODIES: Record<string, fc.Arbitrary<Record<string, unknown>>> = {
  '/v1/language-id': fc.record({ text: nearLimit(8000), model: fc.constantFrom('lid-lite-608', 'lid-neural-608', 'nope'), top_k: fc.integer({ min: -1, max: 27 }), mode: fc.constantFrom('traffic', 'coverage', 'x') }, { requiredKeys: ['text'] }),
  '/v1/language-id/batch': fc.record({ texts: fc.array(fc.string(), { maxLength: 300 }), model: fc.constant('lid-lite-608') }),
  '/v1/detect-language': fc.record({ text: nearLimit(8000), model: fc.constantFrom('lid-lite-25', 'lid-neural-25', 'lid-lite-608'), variant: fc.constantFrom('questions', 'passages', 'x') }, { requiredKeys: ['text'] }),
  '/v1/detect-language/batch': fc.record({ texts: fc.array(fc.string(), { maxLength: 300 }), model: fc.constant('lid-lite-25') }),
  '/v1/diacritize': fc.record({ text: nearLimit(20_000), language: fc.constantFrom('yo', 'vie', 'auto', 'xx'), hints: fc.dictionary(fc.string(), fc.string(), { maxKeys: 70 }), min_confidence: fc.double() }, { requiredKeys: ['text'] }),
  '/v1/diacritize/batch': fc.record({ texts: fc.array(fc.string(), { maxLength: 70 }), language: fc.oneof(fc.constant('pl'), fc.array(fc.constantFrom('pl', 'yo'), { maxLength: 70 })), hints: fc.array(fc.option(fc.dictionary(fc.string(), fc.string())), { maxLength: 70 }) }),
  '/v1/questions/generate': fc.record({ passage: nearLimit(8000), n: fc.integer({ min: -1, max: 12 }), language: fc.constantFrom('en', 'Swahili', 'zz', 'ara') }, { requiredKeys: ['passage'] }),
  '/v1/questions/generate/batch': fc.record({ passages: fc.array(fc.string(), { maxLength: 70 }), n: fc.integer({ min: 0, max: 11 }) }),
  '/v1/generate-questions': fc.record({ passage: nearLimit(8000), n: fc.integer({ min: 0, max: 11 }) }, { requiredKeys: ['passage'] }),
  '/v1/generate-questions/batch': fc.record({ passages: fc.array(fc.string(), { maxLength: 70 }) }),
  '/v1/decide': fc.record({ state: fc.oneof(fc.string(), fc.jsonValue({ maxDepth: 80 })), questions: fc.dictionary(fc.string({ maxLength: 10 }), question, { maxKeys: 70 }) }),
  '/v1/systemone': fc.record({ state: fc.string(), questions: fc.dictionary(fc.string({ maxLength: 10 }), question, { maxKeys: 3 }) }),
  '/v1/decide/batch': fc.record({ cases: fc.array(fc.record({ id: fc.oneof(fc.string(), fc.integer(), fc.constant(null)), state: fc.jsonValue({ maxDepth: 70 }), questions: fc.dictionary(fc.string({ maxLength: 5 }), question, { maxKeys: 3 }) }), { maxLength: 35 }) }),
  '/v1/extract': fc.record({ template: fc.oneof(fc.jsonValue({ maxDepth: 70 }), fc.constant({ a: 'string' }), fc.string()), text: fc.string(), image, instructions: fc.string() }, { requiredKeys: ['template'] }),
  '/v1/extract/batch': fc.record({ documents: fc.array(fc.record({ id: fc.oneof(fc.string(), fc.integer()), template: fc.oneof(fc.constant({ a: 'number' }), fc.jsonValue({ maxDepth: 5 })), text: fc.string(), image }, { requiredKeys: ['id'] }), { maxLength: 18 }) }),
  '/v1/warmup': fc.record({ services: fc.array(fc.constantFrom('extract', 'decide', 'questions', 'language-id', 'diacritize', 'teleport'), { maxLength: 8 }) }),
};
const ROUTES = Object.keys(BODIES);

/** A body: the route's own, one of its fields replaced by anything, random JSON, or raw text. */
const payload = (route: string): fc.Arbitrary<string> => fc.oneof(
  { weight: 4, arbitrary: BODIES[route]!.map((b) => JSON.stringify(b)) },
  { weight: 3, arbitrary: fc.tuple(BODIES[route]!, fc.string({ maxLength: 12 }), fc.anything({ maxDepth: 4 })).map(([b, k, v]) => JSON.stringify({ ...b, [Object.keys(b)[0] ?? k]: v })) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 100 }).map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: fc.constantFrom(
    '{"__proto__":{"polluted":true},"text":"x"}', '{"constructor":{"prototype":{"polluted":true}},"text":"x"}',
    '{"text":"a","text":5}', '{"texts":["a"],"texts":null}', '{"text":', 'null', '[]', '""', '{"text":"\\ud800"}',
    `{"state":${'['.repeat(5000)}${']'.repeat(5000)},"questions":{}}`, `{"template":${'{"a":'.repeat(3000)}"string"${'}'.repeat(3000)}}`,
  ) },
  { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
);

/** Headers: the key or abuse of it, content types, client request ids. */
const headers = fc.record({
  authorization: fc.oneof(
    { weight: 6, arbitrary: fc.constant(AUTH.authorization) },
    { weight: 1, arbitrary: fc.constantFrom('', 'Bearer', 'Basic abc', `Bearer ${KEY} extra`, `bearer ${KEY}`, `Bearer ${'x'.repeat(5000)}`) },
    { weight: 1, arbitrary: fc.constant([AUTH.authorization, AUTH.authorization] as unknown as string) },
  ),
  'content-type': fc.constantFrom('application/json', 'application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded'),
  'x-request-id': fc.oneof(fc.string({ maxLength: 300 }).filter((s) => /^[\x20-\x7e]*$/.test(s)), fc.constant('same-id')),
}, { requiredKeys: ['authorization', 'content-type'] });

describe('fuzzing every POST route', () => {
  it('answers each request with a success, a 503 for a missing model, or a 4xx with the JSON error body', async () => {
    const seen = new Map<number, number>();
    await fc.assert(fc.asyncProperty(fc.constantFrom(...ROUTES).chain((route) => fc.tuple(fc.constant(route), payload(route), headers)), async ([url, body, h]) => {
      const res = await svc.gateway.app.inject({ method: 'POST', url, payload: body, headers: h as Record<string, string> });
      seen.set(res.statusCode, (seen.get(res.statusCode) ?? 0) + 1);
      const s = res.statusCode;
      expect([200, 202, 503].includes(s) || (s >= 400 && s < 500), `${url} ${s} ${res.body.slice(0, 300)}`).toBe(true);
      const json = res.json() as Record<string, unknown>;
      if (s >= 400) {
        expect(json, `${url} ${s}`).toEqual({ error: expect.any(String), status: s, code: expect.any(String) });
        if (s === 503) expect(json.error).toMatch(/is not installed|no worker serves|overloaded|too many/);
      }
    }), { numRuns: Number(process.env.FUZZ_RUNS ?? 1500), seed: process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined });
    if (process.env.FUZZ_DEBUG) console.log(Object.fromEntries(seen));
    // the runs reached past the refusals into the handlers
    expect(seen.get(200) ?? 0).toBeGreaterThan(0);
    expect(seen.get(400) ?? 0).toBeGreaterThan(0);
    // and the service is healthy and still answers right
    expect((await svc.gateway.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    const ok = await svc.gateway.app.inject({ method: 'POST', url: '/v1/language-id', headers: AUTH, payload: { text: 'Guten Morgen, wie geht es dir heute?', model: 'lid-lite-608' } });
    expect(ok.json().language).toBe('deu');
    expect({}).not.toHaveProperty('polluted');
  });
});
