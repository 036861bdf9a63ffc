/**
 * The analytics store (services/analytics/store.ts, issue 16) on SQLite and PostgreSQL:
 * one-minute bucketing, latency sketches merged across writes within their relative
 * accuracy, idempotency on replay (stored offsets, recent event ids), and retention (minutes rolled up into hours with the
 * same totals, old hours deleted).
 */
import { describe, expect, it } from 'vitest';
import { AnalyticsStore, SKETCH_ACCURACY, bucketOf } from '../../services/analytics/store.ts';
import type { OutcomeEvent } from '../../services/events/contract.ts';
import { sqlStores } from '../helpers/postgres.ts';

const stores = sqlStores('analytics.db');

let seq = 0;
/** An outcome event of key `keyId` at `ts` (ids unique across tests: the PostgreSQL store is shared). */
const ev = (keyId: string, ts: number, o: Partial<OutcomeEvent> = {}): OutcomeEvent => {
  const requestId = `r${++seq}`;
  return {
    requestId, itemIndex: 0, keyId, source: 'gateway', capability: 'language-id', model: 'lid-lite-608',
    status: 200, code: null, items: 1, billable: 1, queueMs: 2, inferenceMs: 5, totalMs: 10, label: 'swh_Latn', confidenceBucket: 9, timestampMs: ts, ...o,
  };
};
const NOW = bucketOf(Date.now()) + 30_000;

describe.each(stores)('AnalyticsStore on %s', (_name, target) => {
  it('folds events into one-minute buckets per key, model, status, code and label', async () => {
    const s = await AnalyticsStore.open(target());
    const k = `bucketing-${seq}`;
    await s.record([
      ev(k, NOW), ev(k, NOW + 1000, { confidenceBucket: 3 }), ev(k, NOW + 60_000),
      ev(k, NOW, { label: 'fra_Latn' }), ev(k, NOW, { status: 400, code: 'INVALID_REQUEST', items: 0, billable: 0, label: null, confidenceBucket: null, queueMs: null, inferenceMs: null }),
    ]);
    const b = await s.buckets(NOW - 60_000, NOW + 120_000, k);
    expect(b.map((x) => [x.start - bucketOf(NOW), x.status, x.label, x.events, x.items, x.billable])).toEqual(expect.arrayContaining([
      [0, 200, 'swh_Latn', 2, 2, 2], [0, 200, 'fra_Latn', 1, 1, 1], [0, 400, '', 1, 0, 0], [60_000, 200, 'swh_Latn', 1, 1, 1],
    ]));
    expect(b).toHaveLength(4);
    const swh = b.find((x) => x.start === bucketOf(NOW) && x.label === 'swh_Latn')!;
    expect(swh.confidence).toEqual([0, 0, 0, 1, 0, 0, 0, 0, 0, 1]);
    expect([swh.queueMs, swh.queueN, swh.inferenceMs, swh.inferenceN]).toEqual([4, 2, 10, 2]);
    expect(b.find((x) => x.status === 400)!.code).toBe('INVALID_REQUEST');
    expect(await s.buckets(NOW - 60_000, NOW + 120_000, 'someone-else')).toEqual([]);
    await s.close();
  });

  it('merges latency sketches across writes within their relative accuracy', async () => {
    const s = await AnalyticsStore.open(target());
    const k = `sketch-${seq}`;
    const latencies = Array.from({ length: 2000 }, (_, i) => 1 + ((i * 7919) % 1000));
    for (let i = 0; i < latencies.length; i += 500) await s.record(latencies.slice(i, i + 500).map((ms) => ev(k, NOW, { totalMs: ms })));
    const [b] = await s.buckets(NOW - 60_000, NOW + 60_000, k);
    expect(b!.events).toBe(2000);
    const sorted = [...latencies].sort((x, y) => x - y);
    for (const q of [0.5, 0.95, 0.99]) {
      const exact = sorted[Math.ceil(q * sorted.length) - 1]!;
      expect(Math.abs(b!.latency.getValueAtQuantile(q) - exact) / exact).toBeLessThanOrEqual(SKETCH_ACCURACY * 1.5);
    }
    await s.close();
  });

  it('skips messages of a partition it counted before, also after a restart, by the offset stored with the buckets', async () => {
    const where = target();
    const k = `offsets-${seq}`;
    const topic = `outcomes-${seq}`;
    const msg = (offset: number) => ({ offset, events: [ev(k, NOW), ev(k, NOW)] });
    const s1 = await AnalyticsStore.open(where);
    expect(await s1.recordBatch(topic, 0, [msg(0), msg(1), msg(2)])).toEqual({ inserted: 6, duplicates: 0 });
    await s1.close();
    // a new process: its recent ids are empty, the stored offset is not
    const s2 = await AnalyticsStore.open(where);
    expect(await s2.recordBatch(topic, 0, [msg(1), msg(2), msg(3)])).toEqual({ inserted: 2, duplicates: 4 });
    // another partition has its own offset
    expect(await s2.recordBatch(topic, 1, [msg(0)])).toEqual({ inserted: 2, duplicates: 0 });
    const [b] = await s2.buckets(NOW - 60_000, NOW + 60_000, k);
    expect(b!.events).toBe(10);
    await s2.close();
  });

  it('stores the batches of several partitions in one write, each partition\'s offset its own', async () => {
    const s = await AnalyticsStore.open(target());
    const k = `group-${seq}`;
    const topic = `outcomes-${seq}`;
    const msg = (offset: number, label = 'swh_Latn') => ({ offset, events: [ev(k, NOW, { label }), ev(k, NOW, { label })] });
    expect(await s.recordBatches([
      { topic, partition: 0, messages: [msg(0), msg(1)] },
      { topic, partition: 1, messages: [msg(0, 'fra_Latn')] },
      { topic, partition: 0, messages: [msg(2)] },
    ])).toEqual({ inserted: 8, duplicates: 0 });
    // partition 0 stored up to offset 3, partition 1 up to 1
    expect(await s.recordBatches([
      { topic, partition: 0, messages: [msg(2), msg(3)] },
      { topic, partition: 1, messages: [msg(0, 'fra_Latn'), msg(1, 'fra_Latn')] },
    ])).toEqual({ inserted: 4, duplicates: 4 });
    const b = await s.buckets(NOW - 60_000, NOW + 60_000, k);
    expect(b.map((x) => [x.label, x.events]).sort()).toEqual([['fra_Latn', 4], ['swh_Latn', 8]]);
    await s.close();
  });

  it('counts a replayed event once, also inside one write', async () => {
    const s = await AnalyticsStore.open(target());
    const k = `replay-${seq}`;
    const events = [ev(k, NOW), ev(k, NOW), ev(k, NOW)];
    expect(await s.record([...events, events[0]!])).toEqual({ inserted: 3, duplicates: 1 });
    expect(await s.record(events)).toEqual({ inserted: 0, duplicates: 3 });
    const [b] = await s.buckets(NOW - 60_000, NOW + 60_000, k);
    expect(b!.events).toBe(3);
    await s.close();
  });

  it('counts a batch whose write failed when it is delivered again (regression: its event ids were remembered before the commit, so the redelivery was skipped as repeats)', async () => {
    const s = await AnalyticsStore.open(target());
    const k = `failed-${seq}`;
    const events = [ev(k, NOW), ev(k, NOW)];
    // the transaction does its work and then fails, as a commit that cannot be written would
    const db = (s as unknown as { db: { transaction: (fn: (tx: unknown) => Promise<unknown>) => Promise<unknown> } }).db;
    const real = db.transaction.bind(db);
    db.transaction = (fn) => real(async (tx) => { await fn(tx); throw new Error('disk full'); });
    await expect(s.recordBatch(`t-${k}`, 0, [{ offset: 0, events }])).rejects.toThrow('disk full');
    db.transaction = real;
    expect(await s.recordBatch(`t-${k}`, 0, [{ offset: 0, events }])).toEqual({ inserted: 2, duplicates: 0 });
    const [b] = await s.buckets(NOW - 60_000, NOW + 60_000, k);
    expect(b!.events).toBe(2);
    await s.close();
  });

  it('loses no events when two consumers (other partitions, other processes) add to the same bucket at once (regression: read-merge-write without a row lock on PostgreSQL)', async () => {
    const where = target();
    const [a, b] = [await AnalyticsStore.open(where), await AnalyticsStore.open(where)];
    const k = `concurrent-${seq}`;
    // a failed write is delivered again, as the consumer's redelivery would
    const write = async (s: AnalyticsStore, partition: number, offset: number) => {
      const events = [ev(k, NOW), ev(k, NOW), ev(k, NOW)];
      for (let attempt = 0; ; attempt++) {
        try { return await s.recordBatch(`t-${k}`, partition, [{ offset, events }]); } catch (err) { if (attempt > 50) throw err; }
      }
    };
    await Promise.all([0, 1].map(async (p) => { for (let o = 0; o < 15; o++) await Promise.all([write(a, p, o), write(b, p + 2, o)]); }));
    const [bucket] = await a.buckets(NOW - 60_000, NOW + 60_000, k);
    expect(bucket!.events).toBe(4 * 15 * 3);
    expect(bucket!.latency.count).toBe(4 * 15 * 3);
    await a.close(); await b.close();
  });

  it('rolls old minutes up into hours with the same totals, and deletes hours past their retention', async () => {
    const s = await AnalyticsStore.open(target());
    const k = `retention-${seq}`;
    const day = 86_400_000;
    const old = bucketOf(NOW - 10 * day, 3_600_000);
    await s.record([ev(k, old + 60_000, { totalMs: 100 }), ev(k, old + 120_000, { totalMs: 300 }), ev(k, old + 3_600_000 + 5000), ev(k, NOW - 500 * day)]);
    expect((await s.buckets(old, old + 2 * 3_600_000, k)).length).toBe(3);
    const r = await s.applyRetention(NOW, { minutesMs: 7 * day, hoursMs: 400 * day });
    expect(r.rolledUp).toBeGreaterThanOrEqual(4);
    const hours = await s.buckets(old, old + 2 * 3_600_000, k);
    expect(hours.map((h) => [h.start - old, h.events])).toEqual([[0, 2], [3_600_000, 1]]);
    expect(hours[0]!.latency.count).toBe(2);
    expect(hours[0]!.latency.getValueAtQuantile(1)).toBeCloseTo(300, -1);
    // the 500-day-old event's hour is past the 400-day retention
    expect(await s.buckets(NOW - 501 * day, NOW - 499 * day, k)).toEqual([]);
    expect(r.hoursDeleted).toBeGreaterThanOrEqual(1);
    await s.close();
  });
});
