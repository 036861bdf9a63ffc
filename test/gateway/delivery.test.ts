/**
 * Billing at delivery (issue 11, finding 6): only answers the client received are billed;
 * a 504 or a client that went away is not, and the workers skip the items of a request
 * whose client went away.
 */
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { cancelledItems, expiredItems } from '../../services/lib/metrics.ts';
import { AUTH, UNTIL_MIN_MS, post, servicesClosedAfterEach, slowWorker, until } from '../helpers/service.ts';

const service = servicesClosedAfterEach();

const metric = async (m: typeof cancelledItems) => (await m.get()).values.filter((v) => v.labels.model === 'lid-lite-608').reduce((n, v) => n + v.value, 0);

describe('billing at delivery', () => {
  it('bills a delivered answer, with the units of its response', async () => {
    const svc = await service();
    await until(() => svc.gateway.liveWorkers.canServe('language-id', 'lid-lite-608'), 5000, 'heartbeat');
    const r = await post(svc, '/v1/language-id/batch', { texts: ['Good morning to you', 'Bonjour à vous', 'Guten Morgen'], model: 'lid-lite-608' });
    expect(r.body.usage).toEqual({ texts: 3 });
    // the request's three texts are one usage event (issue 17: folded per request, capability and model)
    await until(async () => (await svc.ledger.count()) === 1, 5000, 'ledger');
    const [row] = await svc.ledger.report();
    expect(row).toMatchObject({ capability: 'language_id', unit: 'texts', quantity: 3, requests: 1 });
  });

  it('does not bill requests answered 504, and their items expire unrun (regression: 143 batches answered 504 were billed)', async () => {
    const svc = await service({ REQUEST_TIMEOUT_MS: 300 }, { capabilities: [] });
    const slow = await slowWorker(svc, 1000);
    try {
      const expired = await metric(expiredItems);
      const rs = await Promise.all(Array.from({ length: 5 }, () => post(svc, '/v1/language-id/batch', { texts: ['hello there friend', 'and you'], model: 'lid-lite-608' })));
      expect(rs.map((r) => r.status)).toEqual(Array(5).fill(504));
      await until(async () => (await metric(expiredItems)) >= expired + 10, 5000, 'items dropped at their deadline');
      await new Promise((r) => setTimeout(r, 300));
      expect(await svc.ledger.count()).toBe(0);
    } finally { await slow.stop(); }
  });

  it('does not bill a client that went away, and the worker skips its items (regression: disconnected clients were billed for nothing)', async () => {
    const svc = await service({}, { capabilities: [] });
    // the items wait 5 s in the worker's queue: far longer than the client's leaving takes
    // to reach the worker as a cancel event, on any machine
    const slow = await slowWorker(svc, 5000);
    try {
      await svc.gateway.app.listen({ port: 0, host: '127.0.0.1' });
      const port = (svc.gateway.app.server.address() as { port: number }).port;
      const cancelled = await metric(cancelledItems);
      const body = JSON.stringify({ texts: Array.from({ length: 8 }, (_, i) => `text ${i} of a client that leaves`), model: 'lid-lite-608' });
      // the client sends its request and closes the connection once its items wait in the
      // worker (not after a fixed time: on a busy machine they had not reached it yet)
      await new Promise<void>((resolve, reject) => {
        const req = request({ port, host: '127.0.0.1', path: '/v1/language-id/batch', method: 'POST', headers: { ...AUTH, 'content-type': 'application/json' } });
        req.on('error', () => resolve());
        req.end(body);
        until(() => slow.queued === 8, UNTIL_MIN_MS, 'the 8 items queued in the slow worker')
          .then(() => { req.destroy(); resolve(); }, reject);
      });
      await until(async () => (await metric(cancelledItems)) >= cancelled + 8, UNTIL_MIN_MS, 'items skipped by the worker');
      expect(svc.gateway.correlator.size).toBe(0);
      // an answer a client receives afterwards is billed as usual
      const ok = await post(svc, '/v1/language-id', { text: 'a client that stays', model: 'lid-lite-608' });
      expect(ok.status).toBe(200);
      await until(async () => (await svc.ledger.count()) === 1, 5000, 'ledger');
      await new Promise((r) => setTimeout(r, 300));
      expect(await svc.ledger.count()).toBe(1);
    } finally { await slow.stop(); }
  });

  it('bills only the answered cases of a batch with failed items', async () => {
    const svc = await service();
    await until(() => svc.gateway.liveWorkers.canServe('language-id', 'lid-lite-608'), 5000, 'heartbeat');
    // a language-ID batch fails as a whole on a bad item (no per-item entries): nothing billed
    const bad = await post(svc, '/v1/language-id/batch', { texts: ['fine text', ''], model: 'lid-lite-608' });
    expect(bad.status).toBe(400);
    await new Promise((r) => setTimeout(r, 200));
    expect(await svc.ledger.count()).toBe(0);
  });
});
