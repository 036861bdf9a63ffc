import { describe, expect, it } from 'vitest';
import { MicroBatcher } from '../../services/workers/batcher.ts';

describe('MicroBatcher', () => {
  it('runs a full micro-batch at once and a partial one after max_queue_delay', async () => {
    const sizes: number[] = [];
    const b = new MicroBatcher<number, number>({ maxBatchSize: 4, maxQueueDelayMs: 50, maxQueueSize: 100 },
      async (xs) => { sizes.push(xs.length); return xs.map((x) => x * 2); }, () => -1);
    const far = Date.now() + 600_000;
    const t0 = Date.now();
    const out = await Promise.all([1, 2, 3, 4, 5, 6].map((x) => b.submit(x, far)));
    expect(out).toEqual([2, 4, 6, 8, 10, 12]);
    expect(sizes).toEqual([4, 2]);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(45);
  });
  it('hands over backlogMicroBatches full micro-batches at once under a backlog, and preferred-size micro-batches otherwise (issue 17)', async () => {
    const sizes: number[] = [];
    const b = new MicroBatcher<number, number>({ maxBatchSize: 8, preferredBatchSizes: [4], maxQueueDelayMs: 0, maxQueueSize: 100, backlogMicroBatches: 3 },
      async (xs) => { sizes.push(xs.length); await new Promise((r) => setTimeout(r, 5)); return xs; }, () => -1);
    const far = Date.now() + 600_000;
    // 30 items in one turn: the first 4 (a preferred micro-batch, as soon as they wait),
    // then, the 26 left being a backlog, 24 (3 × 8) at once, then the last 2
    await Promise.all(Array.from({ length: 30 }, (_, x) => b.submit(x, far)));
    expect(sizes).toEqual([4, 24, 2]);
    // a few items: one preferred-size micro-batch
    sizes.length = 0;
    await Promise.all(Array.from({ length: 5 }, (_, x) => b.submit(x, far)));
    expect(sizes).toEqual([4, 1]);
  });
  it('refuses items beyond max_queue_size with a 503 error', async () => {
    const b = new MicroBatcher<number, number>({ maxBatchSize: 100, maxQueueDelayMs: 1000, maxQueueSize: 2 }, async (xs) => xs, () => -1);
    const far = Date.now() + 600_000;
    void b.submit(1, far); void b.submit(2, far);
    await expect(b.submit(3, far)).rejects.toMatchObject({ code: 'QUEUE_FULL', status: 503 });
  });
  it('does not run items whose deadline passed in the queue', async () => {
    const ran: number[] = [];
    const b = new MicroBatcher<number, number>({ maxBatchSize: 10, maxQueueDelayMs: 30, maxQueueSize: 10 }, async (xs) => { ran.push(...xs); return xs; }, () => -1);
    const out = await Promise.all([b.submit(1, Date.now() + 5), b.submit(2, Date.now() + 600_000)]);
    expect(out).toEqual([-1, 2]);
    expect(ran).toEqual([2]);
  });
  it('with max_queue_delay 0 runs what one event-loop turn queued as one micro-batch in the same turn', async () => {
    const sizes: number[] = [];
    const b = new MicroBatcher<number, number>({ maxBatchSize: 10, maxQueueDelayMs: 0, maxQueueSize: 100 },
      async (xs) => { sizes.push(xs.length); return xs; }, () => -1);
    const far = Date.now() + 600_000;
    const first = Promise.all([1, 2, 3].map((x) => b.submit(x, far)));
    // the batcher's setImmediate was queued first, so it has run when this one does
    await new Promise<void>((r) => setImmediate(r));
    expect(sizes).toEqual([3]);
    await first;
  });
  it('enqueueMany hands each result to the sink at the caller\'s index, forms micro-batches as single submits do, and waits for room instead of refusing (issue 17)', async () => {
    const sizes: number[] = [];
    const b = new MicroBatcher<number, number>({ maxBatchSize: 4, maxQueueDelayMs: 0, maxQueueSize: 6 },
      async (xs) => { sizes.push(xs.length); await new Promise((r) => setTimeout(r, 5)); return xs.map((x) => x * 10); }, () => -1);
    const got = new Map<number, number>();
    const sink = { resolve: (i: number, r: number) => { got.set(i, r); }, reject: (_: number, e: unknown) => { throw e; } };
    const far = Date.now() + 600_000;
    // 10 items into a queue of 6: the call resolves once the last is queued
    await b.enqueueMany([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], far, sink, 100);
    while (got.size < 10) await new Promise((r) => setTimeout(r, 5));
    expect([...got].sort((x, y) => x[0] - y[0])).toEqual(Array.from({ length: 10 }, (_, k) => [100 + k, (k + 1) * 10]));
    expect(sizes[0]).toBe(4); // a full micro-batch as soon as 4 wait
    expect(sizes.reduce((x, y) => x + y, 0)).toBe(10);
  });
});

