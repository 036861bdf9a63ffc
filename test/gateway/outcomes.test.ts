/**
 * Outcome events (schemas/common/outcome.avsc, issue 16) on the embedded log: one per item
 * of an answered request with its status, billable quantity, the worker's queue and
 * inference times and, for language ID, the label and confidence bucket (never the text);
 * one with `items` 0 for a refused request (with its code, and `anonymous` without a key);
 * and bulk items reported by the worker.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutcomeEvent } from '../../services/events/contract.ts';
import { topicsFor } from '../../services/events/topics.ts';
import type { Embedded } from '../../services/embedded.ts';
import { outcomeEventsOf } from '../../services/events/outcomes.ts';
import { AUTH, KEY_B, post, startService, until } from '../helpers/service.ts';

let svc: Embedded;
const seen: OutcomeEvent[] = [];
beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_MAX: 1_000_000, OUTCOME_EVENTS: 'true' }, { capabilities: ['language-id'] });
  const consumer = svc.transport.consumer({ groupId: 'test.outcomes', topics: [topicsFor('lmstream').outcomes], fromBeginning: true });
  await consumer.run(async (batch) => { for (const m of batch.messages) seen.push(...outcomeEventsOf(await svc.codec.decode('common/outcome', m.value))); });
});
afterAll(async () => { await svc?.close(); });

const eventsOf = async (requestId: string, n: number) => {
  await until(() => seen.filter((e) => e.requestId === requestId).length >= n, 10_000, `${n} outcome events of ${requestId}`);
  return seen.filter((e) => e.requestId === requestId).sort((a, b) => a.itemIndex - b.itemIndex);
};
const requestIdOf = async (res: { headers: Record<string, unknown> }) => String(res.headers['x-request-id']);

describe('outcome events', () => {
  it('reports each item of an answer with its times, label and confidence bucket, and no text', async () => {
    const res = await svc.gateway.app.inject({ method: 'POST', url: '/v1/language-id/batch', headers: AUTH, payload: { texts: ['Habari za asubuhi, rafiki yangu mpendwa', 'Bonjour à tous et bonne journée'], model: 'lid-neural-608' } });
    expect(res.statusCode).toBe(200);
    const events = await eventsOf(await requestIdOf(res), 2);
    expect(events.map((e) => e.itemIndex)).toEqual([0, 1]);
    for (const e of events) {
      expect(e).toMatchObject({ source: 'gateway', capability: 'language-id', model: 'lid-neural-608', status: 200, code: null, items: 1, billable: 1 });
      expect(e.keyId).not.toBe('anonymous');
      expect(e.queueMs).toBeGreaterThanOrEqual(0);
      expect(e.inferenceMs).toBeGreaterThanOrEqual(0);
      expect(e.totalMs).toBeGreaterThanOrEqual(e.inferenceMs!);
      expect(e.confidenceBucket).toBeGreaterThanOrEqual(0);
      expect(e.confidenceBucket).toBeLessThanOrEqual(9);
      expect(JSON.stringify(e)).not.toMatch(/Habari|Bonjour/);
    }
    expect(events.map((e) => e.label)).toEqual(['swh_Latn', 'fra_Latn']);
  });

  it('reports a refused request once, with its code, and anonymous without a key', async () => {
    const bad = await svc.gateway.app.inject({ method: 'POST', url: '/v1/language-id', headers: AUTH, payload: { text: 'x', model: 'lid-lite-608', top_k: 99 } });
    expect(bad.statusCode).toBe(400);
    const [e] = await eventsOf(await requestIdOf(bad), 1);
    expect(e).toMatchObject({ capability: 'language-id', model: 'lid-lite-608', status: 400, code: 'INVALID_REQUEST', items: 0, billable: 0, queueMs: null, label: null });
    const anon = await svc.gateway.app.inject({ method: 'POST', url: '/v1/language-id', payload: { text: 'hello there' } });
    expect(anon.statusCode).toBe(401);
    const [a] = await eventsOf(await requestIdOf(anon), 1);
    expect(a).toMatchObject({ keyId: 'anonymous', status: 401, code: 'UNAUTHORIZED', items: 0 });
    // routes that are not model routes report nothing
    const before = seen.length;
    await svc.gateway.app.inject({ method: 'GET', url: '/v1/models' });
    await post(svc, '/v1/language-id', { text: 'one more to flush', model: 'lid-lite-608' });
    await until(() => seen.length > before, 10_000, 'the next outcome');
    expect(seen.slice(before).every((e) => e.capability === 'language-id' && e.items === 1)).toBe(true);
  });

  it('reports bulk items from the worker, as it publishes them', async () => {
    const topic = topicsFor('lmstream').requests('language-id');
    const value = await svc.codec.encode('language-id/request', { text: 'Guten Morgen, wie geht es dir heute?', model: 'lid-lite-608', mode: 'coverage', topK: 1, candidates: null });
    await svc.transport.producer().send(topic, [{ key: null, value, headers: { 'request-id': 'bulk-job-1', 'item-index': '7', 'key-id': 'corpus-key' } }]);
    const [e] = await eventsOf('bulk-job-1', 1);
    expect(e).toMatchObject({ requestId: 'bulk-job-1', itemIndex: 7, keyId: 'corpus-key', source: 'bulk', status: 200, items: 1, billable: 1, label: 'deu_Latn' });
    expect(e!.inferenceMs).toBeGreaterThanOrEqual(0);
  });

  it('writes none with OUTCOME_EVENTS=false', async () => {
    const off = await startService({ OUTCOME_EVENTS: 'false' }, { capabilities: ['language-id'] });
    try {
      expect((await post(off, '/v1/language-id', { text: 'Habari za asubuhi', model: 'lid-lite-608' })).status).toBe(200);
      await off.gateway.app.inject({ method: 'POST', url: '/v1/language-id', payload: { text: 'no key' } });
      await new Promise((r) => setTimeout(r, 300));
      expect(await off.transport.consumerLag('nobody-read-it', topicsFor('lmstream').outcomes)).toBe(0);
    } finally { await off.close(); }
  });

  it('reports a request refused by its schema without the invalid field, and the other keys\' traffic still reaches analytics (issue 33, A: a numeric model stopped every outcome event)', async () => {
    const bad = await svc.gateway.app.inject({ method: 'POST', url: '/v1/language-id', headers: AUTH, payload: { text: 'hi', model: 123 } });
    expect(bad.statusCode).toBe(400);
    const [refused] = await eventsOf(await requestIdOf(bad), 1);
    expect(refused).toMatchObject({ status: 400, code: 'INVALID_REQUEST', items: 0, model: null });
    // another key's request, written after it, reaches the analytics store
    const good = await post(svc, '/v1/language-id', { text: 'Habari za asubuhi', model: 'lid-lite-608' }, { authorization: `Bearer ${KEY_B}` });
    expect(good.status).toBe(200);
    await until(async () => {
      const res = await svc.gateway.app.inject({ method: 'GET', url: '/v1/analytics', headers: { authorization: `Bearer ${KEY_B}` } });
      return (res.json() as { totals?: { events?: number } }).totals?.events === 1;
    }, undefined, "the other key's request in /v1/analytics");
  });
});
