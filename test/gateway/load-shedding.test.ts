/**
 * Load shedding (issue 11, finding 8): a gateway bounds its in-flight items per
 * capability and answers 503 with Retry-After beyond; readiness goes false meanwhile,
 * while liveness (/health) keeps answering.
 */
import { describe, expect, it } from 'vitest';
import { parseInflightItems, DEFAULT_INFLIGHT_ITEMS } from '../../services/gateway/load-shedding.ts';
import { AUTH, UNTIL_MIN_MS, post, servicesClosedAfterEach, slowWorker, until } from '../helpers/service.ts';

const service = servicesClosedAfterEach();

describe('MAX_INFLIGHT_ITEMS', () => {
  it('overrides the defaults per capability and refuses unknown names', () => {
    expect(parseInflightItems('')).toEqual(DEFAULT_INFLIGHT_ITEMS);
    expect(parseInflightItems('language-id=10,extract=2')).toMatchObject({ 'language-id': 10, extract: 2, decide: DEFAULT_INFLIGHT_ITEMS.decide });
    expect(() => parseInflightItems('teleport=3')).toThrow(/unknown capability "teleport"/);
  });
});

describe('in-flight items per capability', () => {
  it('answers 503 with Retry-After beyond the limit instead of queueing, and admits again when items finish (regression: it queued everything)', async () => {
    const svc = await service({ MAX_INFLIGHT_ITEMS: 'language-id=10' }, { capabilities: [] });
    // the slow worker holds each item 5 s: far longer than the checks below take on any
    // machine; each step waits for the state it needs, not for a fixed time
    const slow = await slowWorker(svc, 5000);
    const inFlight = () => svc.gateway.app.gatewayState.inflight.inFlight('language-id');
    try {
      // 8 texts in flight, held by the slow worker
      const held = post(svc, '/v1/language-id/batch', { texts: Array.from({ length: 8 }, (_, i) => `text ${i} held`), model: 'lid-lite-608' });
      await until(() => inFlight() === 8, UNTIL_MIN_MS, '8 items in flight');
      expect((await svc.gateway.app.inject({ method: 'GET', url: '/ready' })).statusCode).toBe(200);
      const refused = await svc.gateway.app.inject({ method: 'POST', url: '/v1/language-id/batch', headers: AUTH, payload: { texts: ['one', 'two', 'three'], model: 'lid-lite-608' } });
      expect(refused.statusCode).toBe(503);
      expect(refused.headers['retry-after']).toBe('1');
      expect(refused.json().error).toBe('language-id is overloaded on this gateway (8 items in flight, at most 10); retry shortly');
      // 2 more fit; at 9 of 10 (90 %) readiness goes false, liveness stays
      const fits = post(svc, '/v1/language-id', { text: 'one more fits', model: 'lid-lite-608' });
      await until(() => inFlight() === 9, UNTIL_MIN_MS, '9 items in flight');
      const ready = await svc.gateway.app.inject({ method: 'GET', url: '/ready' });
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toMatchObject({ ready: false, overloaded: ['language-id'], inflight_items: { 'language-id': 9 } });
      // full: refused before its body is read (a body that does not even parse gets 503, not 400)
      const last = post(svc, '/v1/language-id', { text: 'the tenth', model: 'lid-lite-608' });
      await until(() => inFlight() === 10, UNTIL_MIN_MS, '10 items in flight');
      const early = await svc.gateway.app.inject({ method: 'POST', url: '/v1/language-id', headers: { ...AUTH, 'content-type': 'application/json' }, payload: '{"not json' });
      expect(early.statusCode).toBe(503);
      expect(early.json().error).toMatch(/10 items in flight, at most 10/);
      expect((await svc.gateway.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
      // other capabilities have their own limits
      expect((await post(svc, '/v1/diacritize', { text: 'Tieng Viet' })).status).toBe(503);
      expect((await post(svc, '/v1/diacritize', { text: 'Tieng Viet' })).body.error).toMatch(/no worker serves diacritize/);
      expect((await held).status).toBe(200);
      expect((await fits).status).toBe(200);
      expect((await last).status).toBe(200);
      expect((await svc.gateway.app.inject({ method: 'GET', url: '/ready' })).json()).toMatchObject({ ready: true, inflight_items: { 'language-id': 0 } });
      expect((await post(svc, '/v1/language-id/batch', { texts: ['one', 'two', 'three'], model: 'lid-lite-608' })).status).toBe(200);
    } finally { await slow.stop(); }
  });

  it('gives back the items of a client that went away', async () => {
    const svc = await service({ MAX_INFLIGHT_ITEMS: 'language-id=4' }, { capabilities: [] });
    const slow = await slowWorker(svc, 5000);
    const inFlight = () => svc.gateway.app.gatewayState.inflight.inFlight('language-id');
    try {
      await svc.gateway.app.listen({ port: 0, host: '127.0.0.1' });
      const base = `http://127.0.0.1:${(svc.gateway.app.server.address() as { port: number }).port}`;
      const abort = new AbortController();
      const gone = fetch(`${base}/v1/language-id/batch`, { method: 'POST', signal: abort.signal, headers: { ...AUTH, 'content-type': 'application/json' }, body: JSON.stringify({ texts: ['a', 'b', 'c', 'd'], model: 'lid-lite-608' }) }).catch(() => null);
      await until(() => inFlight() === 4, UNTIL_MIN_MS, '4 items in flight');
      abort.abort();
      await gone;
      // given back when the gateway sees the connection close, long before the worker's 5 s
      await until(() => inFlight() === 0, UNTIL_MIN_MS, 'the items given back');
    } finally { await slow.stop(); }
  });
});
