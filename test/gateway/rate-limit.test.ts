/**
 * Rate limits (issue 11, finding 3): one budget per key over every route, in billable
 * units; a budget per client address for requests without a valid key; Retry-After and
 * RateLimit-* headers. And authentication's own rule: one Authorization header (finding 11).
 */
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Embedded } from '../../services/embedded.ts';
import { AUTH, KEY_B, post, startService, until } from '../helpers/service.ts';

let svc: Embedded;
beforeAll(async () => {
  // a window far longer than the test takes on a busy machine: no budget is renewed mid-test
  svc = await startService({ RATE_LIMIT_MAX: 300, RATE_LIMIT_ANON_MAX: 5, RATE_LIMIT_WINDOW_MS: 600_000 });
  await until(() => svc.gateway.liveWorkers.canServe('language-id', 'lid-lite-608'), 5000, 'heartbeat');
});
afterAll(async () => { await svc.close(); });

const texts = (n: number) => Array.from({ length: n }, (_, i) => `text number ${i} in English`);

describe('per-key budget over all routes, in billable units', () => {
  it('counts a batch of 256 as 256 and refuses the same key on every other route once spent (regression: the limit was per route)', async () => {
    const big = await svc.gateway.app.inject({ method: 'POST', url: '/v1/language-id/batch', headers: AUTH, payload: { texts: texts(256), model: 'lid-lite-608' } });
    expect(big.statusCode).toBe(200);
    expect(big.headers['ratelimit-limit']).toBe('300');
    expect(Number(big.headers['ratelimit-remaining'])).toBe(44);
    // 44 units left: a batch of 64 on another route is refused, and its 63 units are not taken
    const refused = await svc.gateway.app.inject({ method: 'POST', url: '/v1/detect-language/batch', headers: AUTH, payload: { texts: texts(64) } });
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ status: 429, error: expect.stringMatching(/300 billable units per 600 s over all routes/) });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(600);
    // single requests still fit until the budget is spent, on any route
    let last = 0;
    for (let i = 0; i < 50 && last !== 429; i++) {
      const url = ['/v1/language-id', '/v1/detect-language', '/v1/warmup'][i % 3]!;
      last = (await post(svc, url, url === '/v1/warmup' ? null : { text: 'hello there friend', ...(url === '/v1/language-id' ? { model: 'lid-lite-608' } : {}) })).status;
    }
    expect(last).toBe(429);
    for (const url of ['/v1/decide', '/v1/questions/generate', '/v1/diacritize', '/v1/extract', '/v1/warmup']) {
      expect((await post(svc, url, {})).status, url).toBe(429);
    }
    // another key has its own budget
    const other = await post(svc, '/v1/language-id', { text: 'hello there friend', model: 'lid-lite-608' }, { authorization: `Bearer ${KEY_B}` });
    expect(other.status).toBe(200);
    // reading its own account is not billable work: the spent key still reads what it spent (issue 33, minor)
    for (const url of ['/v1/usage', '/v1/analytics']) {
      expect((await svc.gateway.app.inject({ method: 'GET', url, headers: AUTH })).statusCode, url).toBe(200);
    }
  });

  it('counts reads of a key\'s own account in a read budget of their own (RATE_LIMIT_READ_MAX)', async () => {
    const small = await startService({ RATE_LIMIT_READ_MAX: 2 });
    try {
      const statuses: number[] = [];
      for (const url of ['/v1/usage', '/v1/analytics', '/v1/usage']) statuses.push((await small.gateway.app.inject({ method: 'GET', url, headers: AUTH })).statusCode);
      expect(statuses).toEqual([200, 200, 429]);
      const refused = await small.gateway.app.inject({ method: 'GET', url: '/v1/usage', headers: AUTH });
      expect(refused.json().error).toMatch(/may read its usage and analytics 2 times per 60 s/);
      // the billable budget is untouched
      expect((await post(small, '/v1/warmup', null)).status).toBe(202);
    } finally { await small.close(); }
  });

  it('refuses a request larger than the whole budget with 429 and says why', async () => {
    const small = await startService({ RATE_LIMIT_MAX: 100 });
    try {
      const r = await small.gateway.app.inject({ method: 'POST', url: '/v1/language-id/batch', headers: AUTH, payload: { texts: texts(101), model: 'lid-lite-608' } });
      expect(r.statusCode).toBe(429);
      expect(r.json().error).toMatch(/this request is 101 billable units, more than the 100/);
    } finally { await small.close(); }
  });
});

describe('per-address budget without a valid key', () => {
  it('limits requests that fail authentication by client address (regression: 401s were never limited)', async () => {
    const s = await startService({ RATE_LIMIT_ANON_MAX: 5 });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++) statuses.push((await post(s, '/v1/language-id', { text: 'x' }, { authorization: `Bearer guess-${i}` })).status);
      expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
      const r = await post(s, '/v1/language-id', { text: 'x' }, {});
      expect(r.status).toBe(429);
      expect(r.body.error).toMatch(/at most 5 requests per 60 s from one address without a valid API key/);
      // a valid key from the same address is not refused, and /health is never counted
      expect((await post(s, '/v1/warmup', null)).status).toBe(202);
      for (let i = 0; i < 10; i++) expect((await s.gateway.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    } finally { await s.close(); }
  });

  it('limits the public GET routes by client address', async () => {
    const s = await startService({ RATE_LIMIT_ANON_MAX: 3 });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await s.gateway.app.inject({ method: 'GET', url: '/v1/models' })).statusCode);
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
    } finally { await s.close(); }
  });
});

describe('Authorization header', () => {
  it('answers 400 to two Authorization headers (regression: the first one won)', async () => {
    const s = await startService();
    try {
      // over a socket, as a client writes it (light-my-request 6.6 joins an array header into one line)
      await s.gateway.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = s.gateway.app.server.address() as AddressInfo;
      const socket = connect(port, '127.0.0.1');
      socket.end(`POST /v1/warmup HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${AUTH.authorization}\r\nAuthorization: Bearer ${KEY_B}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
      let raw = '';
      for await (const c of socket.setEncoding('utf8')) raw += c as string;
      const res = { status: Number(raw.split(' ')[1]), body: raw.slice(raw.indexOf('\r\n\r\n') + 4) };
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body)).toEqual({ status: 400, error: 'send one Authorization header, not several', code: 'INVALID_REQUEST' });
    } finally { await s.close(); }
  });
});
