/**
 * The JSON body parser (issue 11, finding 7): a nesting-depth limit at parse time, so no
 * handler overflows its stack on a deep `state` or `template`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Embedded } from '../../services/embedded.ts';
import { checkDepth, jsonDepth } from '../../services/gateway/json-body.ts';
import { MAX_JSON_DEPTH } from '../../services/route-kit/limits.ts';
import { AUTH, startService } from '../helpers/service.ts';

let svc: Embedded;
beforeAll(async () => { svc = await startService(); });
afterAll(async () => { await svc.close(); });

const nested = (depth: number, leaf = '"x"') => '{"a":'.repeat(depth) + leaf + '}'.repeat(depth);
const send = (url: string, payload: string) => svc.gateway.app.inject({ method: 'POST', url, headers: { ...AUTH, 'content-type': 'application/json' }, payload });

describe('jsonDepth', () => {
  it('counts levels without recursion and stops past the limit', () => {
    expect(jsonDepth('x', 10)).toBe(0);
    expect(jsonDepth({}, 10)).toBe(1);
    expect(jsonDepth({ a: [1, { b: [] }] }, 10)).toBe(4);
    expect(jsonDepth(JSON.parse(nested(100_000)), 64)).toBe(65);
    expect(() => checkDepth(JSON.parse(nested(MAX_JSON_DEPTH - 1)))).not.toThrow();
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
});
