/**
 * The JSON body parser (issue 11, finding 7): a nesting-depth limit, so no handler
 * overflows its stack on a deep `state` or `template`; checked on the raw text before
 * parsing (issue 33, B), so a too-deep body costs a scan of its first bytes, not a parse.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Embedded } from '../../services/embedded.ts';
import { checkDepth, textDepth } from '../../services/gateway/json-body.ts';
import { MAX_JSON_DEPTH } from '../../services/route-kit/limits.ts';
import { AUTH, post, startService } from '../helpers/service.ts';

let svc: Embedded;
beforeAll(async () => { svc = await startService(); });
afterAll(async () => { await svc.close(); });

const nested = (depth: number, leaf = '"x"') => '{"a":'.repeat(depth) + leaf + '}'.repeat(depth);
const send = (url: string, payload: string) => svc.gateway.app.inject({ method: 'POST', url, headers: { ...AUTH, 'content-type': 'application/json' }, payload });

describe('textDepth', () => {
  it('counts the levels of a JSON text without parsing it, and stops past the limit', () => {
    expect(textDepth('"x"', 10)).toBe(0);
    expect(textDepth('{}', 10)).toBe(1);
    expect(textDepth('{"a":[1,{"b":[]}]}', 10)).toBe(4);
    expect(textDepth(nested(100_000), 64)).toBe(65);
    // brackets inside strings, escaped quotes included, are text
    expect(textDepth('{"a":"[[[{{{\\"[[[","b":["\\\\",["]"]]}', 10)).toBe(3);
    expect(() => checkDepth(nested(MAX_JSON_DEPTH - 1))).not.toThrow();
    expect(() => checkDepth(nested(MAX_JSON_DEPTH + 1))).toThrow(/nested deeper than 64 levels/);
  });
});

describe('deeply nested bodies', () => {
  it('answers 400 naming the limit for a state nested 5,000 deep (regression: 500, "Maximum call stack size exceeded")', async () => {
    const res = await send('/v1/decide', `{"state":${nested(5000)},"questions":{"q":{"type":"noul","instructions":"?"}}}`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ status: 400, code: 'INVALID_REQUEST', error: `JSON body is nested deeper than ${MAX_JSON_DEPTH} levels (the limit of this service)` });
  });
  it('answers 400 for a template nested 10,000 deep and a decide batch case nested 5,000 deep (regression: an item lacked status)', async () => {
    expect((await send('/v1/extract', `{"template":${nested(10_000, '"string"')},"text":"x"}`)).statusCode).toBe(400);
    const batch = await send('/v1/decide/batch', `{"cases":[{"id":"a","state":${nested(5000)},"questions":{"q":{"type":"noul","instructions":"?"}}}]}`);
    expect(batch.statusCode).toBe(400);
    expect(batch.json().error).toMatch(/nested deeper than/);
  });
  it('takes a state nested to the limit (a realistic record) to the next check', async () => {
    const res = await send('/v1/decide', `{"state":${nested(MAX_JSON_DEPTH - 1)},"questions":{"q":{"type":"noul","instructions":"?"}}}`);
    // the decision model is not installed here: the request got past the body checks
    expect(res.statusCode).toBe(503);
  });
  it('refuses prototype keys', async () => {
    const res = await send('/v1/language-id', '{"text":"hi","__proto__":{"admin":true}}');
    expect(res.statusCode).toBe(400);
    expect(res.json().status).toBe(400);
  });
  it('refuses a too-deep body before parsing it, and answers other requests meanwhile (issue 33, B: 16 MB nested 8,000,000 deep held the event loop 8.9 s)', async () => {
    await svc.gateway.app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(svc.gateway.app.server.address() as { port: number }).port}`;
    // 16 MB of arrays nested 8,000,000 deep, and not even valid JSON at its end: a parser
    // would refuse it for its syntax; the depth check refuses it first, without parsing
    const state = `${'['.repeat(8_000_000)}${']'.repeat(7_999_999)}`;
    const deep = fetch(`${base}/v1/decide/batch`, {
      method: 'POST', headers: { ...AUTH, 'content-type': 'application/json' },
      body: `{"cases":[{"id":"a","state":${state},"questions":{"q":{"type":"noul","instructions":"?"}}}]`,
    });
    const [health, lid] = await Promise.all([
      fetch(`${base}/health`),
      post(svc, '/v1/language-id', { text: 'Habari za asubuhi', model: 'lid-lite-608' }),
    ]);
    expect(health.status).toBe(200);
    expect(lid.status).toBe(200);
    const refused = await deep;
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ status: 400, code: 'INVALID_REQUEST', error: `JSON body is nested deeper than ${MAX_JSON_DEPTH} levels (the limit of this service)` });
  });
});
