/**
 * The analytics consumer in embedded mode (services/analytics/consumer.ts, issue 16):
 * answered requests reach the analytics store as minute buckets through the outcomes
 * topic, in their own consumer group, once each.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnalyticsConsumer } from '../../services/analytics/consumer.ts';
import { AnalyticsStore, RETENTION } from '../../services/analytics/store.ts';
import { AvroCodec } from '../../services/events/codec.ts';
import type { OutcomeEvent } from '../../services/events/contract.ts';
import { outcomeMessage } from '../../services/events/outcomes.ts';
import { topicsFor } from '../../services/events/topics.ts';
import { MemoryTransport } from '../../services/transport/memory.ts';
import type { Embedded } from '../../services/embedded.ts';
import { post, startService, until } from '../helpers/service.ts';

let svc: Embedded;
beforeAll(async () => { svc = await startService({ RATE_LIMIT_MAX: 1_000_000, OUTCOME_EVENTS: 'true' }, { capabilities: ['language-id'] }); });
afterAll(async () => { await svc?.close(); });

describe('analytics consumer', () => {
  it('folds the outcomes of answered and refused requests into minute buckets, by label and status', async () => {
    const texts = ['Habari za asubuhi, rafiki yangu mpendwa', 'Bonjour à tous et bonne journée', 'Guten Morgen, wie geht es dir heute?'];
    for (let i = 0; i < 30; i++) expect((await post(svc, '/v1/language-id', { text: texts[i % 3], model: 'lid-neural-608' })).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await post(svc, '/v1/language-id', { text: '' })).status).toBe(400);
    await svc.gateway.app.inject({ method: 'POST', url: '/v1/language-id', payload: { text: 'no key' } });
    const from = Date.now() - 3_600_000, to = Date.now() + 60_000;
    const total = async () => (await svc.analytics.store.buckets(from, to)).reduce((n, b) => n + b.events, 0);
    await until(async () => (await total()) >= 35, 10_000, 'the 35 outcomes in the store');
    const buckets = await svc.analytics.store.buckets(from, to);
    const byLabel = (label: string) => buckets.filter((b) => b.label === label && b.status === 200).reduce((n, b) => n + b.items, 0);
    expect([byLabel('swh_Latn'), byLabel('fra_Latn'), byLabel('deu_Latn')]).toEqual([10, 10, 10]);
    expect(buckets.filter((b) => b.status === 400).reduce((n, b) => n + b.events, 0)).toBe(4);
    expect(buckets.find((b) => b.status === 400)!.code).toBe('INVALID_REQUEST');
    expect(buckets.find((b) => b.status === 401)!.keyId).toBe('anonymous');
    expect(buckets.filter((b) => b.status === 200).reduce((n, b) => n + b.billable, 0)).toBe(30);
    expect(await total()).toBe(35);
  });
});

describe('analytics consumer group commits', () => {
  it('stores the batches of every partition that arrive within the write interval in one transaction, each event once', async () => {
    const transport = new MemoryTransport();
    const codec = new AvroCodec();
    const store = await AnalyticsStore.open(join(mkdtempSync(join(tmpdir(), 'analytics-gc-')), 'a.db'));
    // a write interval far longer than writing the messages takes on any machine: the
    // test must not depend on the machine's speed (a 1.5 s interval failed on a busy one)
    const consumer = new AnalyticsConsumer(transport, codec, store, 'gc', pino({ level: 'silent' }), 4, RETENTION, 5000);
    await consumer.start();
    const producer = transport.producer();
    let n = 0;
    const message = async () => codec.encode('common/outcome', outcomeMessage(Array.from({ length: 10 }, (): OutcomeEvent => ({
      requestId: `req-${n++}`, itemIndex: 0, keyId: 'k', source: 'gateway', capability: 'language-id', model: 'lid-lite-608', status: 200, code: null,
      items: 1, billable: 1, queueMs: 1, inferenceMs: 2, totalMs: 5, label: n % 2 ? 'swh_Latn' : 'fra_Latn', confidenceBucket: 9, timestampMs: Date.now(),
    }))));
    // 40 messages of 10 events, 10 to each of the 4 partitions, encoded first and written in
    // one send
    const messages = [];
    for (let i = 0; i < 40; i++) messages.push({ key: null, partition: i % 4, value: await message() });
    await producer.send(topicsFor('gc').outcomes, messages);
    const events = async () => (await store.buckets(Date.now() - 3_600_000, Date.now() + 60_000)).reduce((s, b) => s + b.events, 0);
    await until(async () => (await events()) === 400, 60_000, 'the 400 events in the store');
    // one transaction per partition's batch would be at least 4; grouped, the first batch
    // may go alone (the consumer was idle) and the rest wait for the interval together
    expect(consumer.transactions).toBeGreaterThanOrEqual(1);
    expect(consumer.transactions).toBeLessThanOrEqual(3);
    await consumer.stop();
    await transport.close();
    expect(await events()).toBe(400);
    await store.close();
  });
});
