/**
 * A gateway's shutdown (issue 11, finding 10): it stops taking model requests, readiness
 * goes false, and a request still waiting when the drain time ends is answered 503
 * instead of being held open.
 */
import { describe, expect, it } from 'vitest';
import { AUTH, UNTIL_MIN_MS, servicesClosedAfterEach, slowWorker, until } from '../helpers/service.ts';

const service = servicesClosedAfterEach();

describe('gateway shutdown', () => {
  it('answers a request in flight 503 at the end of the drain time, and refuses new ones meanwhile', async () => {
    const svc = await service({}, { capabilities: [] });
    const slow = await slowWorker(svc, 5000);
    try {
      await svc.gateway.app.listen({ port: 0, host: '127.0.0.1' });
      const base = `http://127.0.0.1:${(svc.gateway.app.server.address() as { port: number }).port}`;
      const ask = () => fetch(`${base}/v1/language-id`, { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json' }, body: JSON.stringify({ text: 'held by the slow worker', model: 'lid-lite-608' }) });
      const held = ask();
      // held: its item waits in the slow worker (5 s), far longer than the 500 ms drain
      await until(() => slow.queued === 1, UNTIL_MIN_MS, 'the request held by the slow worker');
      const closing = svc.gateway.close(500);
      await until(() => svc.gateway.app.gatewayState.draining, UNTIL_MIN_MS, 'draining');
      const answer = await held;
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toBe('1');
      expect(await answer.json()).toEqual({ status: 503, code: 'SHUTTING_DOWN', error: 'the gateway shut down before the answer; retry' });
      await closing;
      // the listener is closed: no new connection is taken
      await expect(ask()).rejects.toThrow();
    } finally { await slow.stop(); }
  });

  it('refuses new model requests with 503 while draining, and readiness says so', async () => {
    const svc = await service();
    svc.gateway.app.gatewayState.draining = true;
    const r = await svc.gateway.app.inject({ method: 'POST', url: '/v1/language-id', headers: AUTH, payload: { text: 'hello', model: 'lid-lite-608' } });
    expect(r.statusCode).toBe(503);
    expect(r.json().error).toMatch(/shutting down/);
    const ready = await svc.gateway.app.inject({ method: 'GET', url: '/ready' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toMatchObject({ ready: false, draining: true });
    svc.gateway.app.gatewayState.draining = false;
  });
});
