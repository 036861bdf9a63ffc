/**
 * The embedded log keeps the Kafka semantics the pipeline relies on.
 */
import { describe, expect, it } from 'vitest';
import { MemoryTransport } from '../../services/transport/memory.ts';
import { murmur2, partitionForKey, type Batch } from '../../services/transport/types.ts';
import { until } from '../helpers/service.ts';

const msg = (s: string, key?: string) => ({ key: key ?? null, value: Buffer.from(s) });

describe('MemoryTransport', () => {
  it('keeps per-partition order and routes equal keys to one partition', async () => {
    const t = new MemoryTransport({ defaultPartitions: 4 });
    await t.producer().send('t', Array.from({ length: 20 }, (_, i) => msg(String(i), 'same-key')));
    const seen: string[] = [];
    const c = t.consumer({ groupId: 'g', topics: ['t'], fromBeginning: true });
    await c.run(async (b) => { expect(b.partition).toBe(partitionForKey('same-key', 4)); seen.push(...b.messages.map((m) => m.value.toString())); });
    await until(() => seen.length === 20);
    expect(seen).toEqual(Array.from({ length: 20 }, (_, i) => String(i)));
    await c.stop();
  });

  it('hands the messages appended in one event-loop turn to a consumer as one batch (regression: one batch per send, issue 17)', async () => {
    const t = new MemoryTransport({ defaultPartitions: 1 });
    const batches: string[][] = [];
    const c = t.consumer({ groupId: 'g', topics: ['t'], fromBeginning: true, maxInFlightBatches: 8 });
    await c.run(async (b) => { batches.push(b.messages.map((m) => m.value.toString())); });
    await c.ready();
    // as the HTTP requests parsed in one poll phase each write their request event, a few
    // promise callbacks apart
    const p = t.producer();
    const sent: Array<Promise<void>> = [];
    for (const v of ['a', 'b', 'c']) {
      for (let i = 0; i < 5; i++) await Promise.resolve();
      sent.push(p.send('t', [msg(v)]));
    }
    await Promise.all(sent);
    await until(() => batches.flat().length === 3);
    expect(batches).toEqual([['a', 'b', 'c']]);
    await c.stop();
  });

  it('hashes keys with Kafka murmur2', () => {
    // expected values from Apache Kafka's UtilsTest.testMurmur2
    expect(murmur2(Buffer.from('21'))).toBe(-973932308);
    expect(murmur2(Buffer.from('foobar'))).toBe(-790332482);
    expect(murmur2(Buffer.from('a-little-bit-long-string'))).toBe(-985981536);
    expect(murmur2(Buffer.from('a-little-bit-longer-string'))).toBe(-1486304829);
    expect(murmur2(Buffer.from('lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8'))).toBe(-58897971);
    expect(murmur2(Buffer.from('abc'))).toBe(479470107);
    const spread = new Set(Array.from({ length: 200 }, (_, i) => partitionForKey(`k${i}`, 8)));
    expect(spread.size).toBe(8);
  });

  it('commits only after the handler resolves, and redelivers a failed batch', async () => {
    const t = new MemoryTransport({ defaultPartitions: 1 });
    await t.producer().send('t', [msg('a'), msg('b')]);
    let calls = 0;
    const got: string[][] = [];
    const c = t.consumer({ groupId: 'g', topics: ['t'], fromBeginning: true });
    await c.run(async (b) => {
      calls++;
      got.push(b.messages.map((m) => m.value.toString()));
      if (calls === 1) throw new Error('boom');
    });
    await until(() => calls === 2);
    expect(got).toEqual([['a', 'b'], ['a', 'b']]);
    await c.stop();
    // a new member of the group starts after the committed offset
    const again: string[] = [];
    const c2 = t.consumer({ groupId: 'g', topics: ['t'] });
    await c2.run(async (b) => { again.push(...b.messages.map((m) => m.value.toString())); });
    await t.producer().send('t', [msg('c')]);
    await until(() => again.length === 1);
    expect(again).toEqual(['c']);
    await c2.stop();
  });

  it('hands out up to maxInFlightBatches batches of a partition at once, commits them in order, and redelivers a failed one with those after it (issue 17)', async () => {
    const t = new MemoryTransport({ defaultPartitions: 1 });
    const lag = () => t.consumerLag('g', 't');
    const releases: Array<() => void> = [];
    const got: string[] = [];
    let failOnce = true;
    const c = t.consumer({ groupId: 'g', topics: ['t'], fromBeginning: true, maxInFlightBatches: 3, maxBatchSize: 1 });
    await c.run(async (b) => {
      const v = b.messages[0]!.value.toString();
      got.push(v);
      await new Promise<void>((r) => releases.push(r));
      if (v === 'b' && failOnce) { failOnce = false; throw new Error('b fails once'); }
    });
    await t.producer().send('t', ['a', 'b', 'c', 'd'].map((v) => msg(v)));
    // three batches at once, the fourth waits for room
    await until(() => got.length === 3);
    await new Promise((r) => setTimeout(r, 20));
    expect(got).toEqual(['a', 'b', 'c']);
    // c finishes first: nothing is committed before a and b are done
    releases[2]!();
    // c's slot goes to d; a and b still run, so nothing is committed
    await until(() => got.length === 4);
    expect(got).toEqual(['a', 'b', 'c', 'd']);
    expect(await lag()).toBe(4);
    releases[0]!();
    await until(async () => (await lag()) === 3);
    // b fails: b and everything after it are delivered again, after a and before anything is skipped
    releases[1]!(); releases[3]!();
    await until(() => got.length === 7);
    expect(got.slice(4)).toEqual(['b', 'c', 'd']);
    expect(await lag()).toBe(3);
    for (const r of releases.slice(4)) r();
    await until(async () => (await lag()) === 0);
    await c.stop();
  });

  it('shares partitions in a group and moves them when a member leaves without committing', async () => {
    const t = new MemoryTransport({ defaultPartitions: 4 });
    await t.ensureTopics([{ name: 't', partitions: 4 }]);
    const a = t.consumer({ groupId: 'g', topics: ['t'], fromBeginning: true });
    const b = t.consumer({ groupId: 'g', topics: ['t'], fromBeginning: true });
    const byA: string[] = [];
    const byB: string[] = [];
    let releaseA!: () => void;
    const holdA = new Promise<void>((r) => (releaseA = r));
    await a.run(async (batch: Batch) => { byA.push(...batch.messages.map((m) => m.value.toString())); await holdA; });
    await b.run(async (batch: Batch) => { byB.push(...batch.messages.map((m) => m.value.toString())); });
    await t.producer().send('t', Array.from({ length: 40 }, (_, i) => msg(String(i), `key-${i}`)));
    await until(() => byA.length + byB.length === 40);
    expect(byA.length).toBeGreaterThan(0);
    expect(byB.length).toBeGreaterThan(0);
    // a dies while its batches are in flight: they were never committed, so b gets them again
    (a as unknown as { abort(): void }).abort();
    releaseA();
    await until(() => byB.length === 40, 5000, 'redelivery to b');
    expect(new Set(byB).size).toBe(40);
    await b.stop();
  });

  it('applies size retention', async () => {
    const t = new MemoryTransport({ defaultPartitions: 1, maxMessagesPerPartition: 5 });
    await t.producer().send('t', Array.from({ length: 12 }, (_, i) => msg(String(i))));
    expect(t.startOffset('t', 0)).toBe(7);
    expect(t.endOffset('t', 0)).toBe(12);
    expect(t.read('t', 0, 0, 100).map((m) => m.value.toString())).toEqual(['7', '8', '9', '10', '11']);
  });

  it('trims a full partition a tenth at a time, keeping offsets (regression: trimming one message per append made appends O(size))', async () => {
    const t = new MemoryTransport({ defaultPartitions: 1, maxMessagesPerPartition: 1000 });
    const p = t.producer();
    for (let i = 0; i < 1050; i++) await p.send('t', [msg(String(i))]);
    // 50 over the limit is less than a tenth of it: nothing dropped yet
    expect(t.startOffset('t', 0)).toBe(0);
    for (let i = 1050; i < 5000; i++) await p.send('t', [msg(String(i))]);
    const start = t.startOffset('t', 0);
    expect(t.endOffset('t', 0)).toBe(5000);
    // between the limit and a tenth above it, never below
    expect(5000 - start).toBeGreaterThanOrEqual(1000);
    expect(5000 - start).toBeLessThan(1100);
    const kept = t.read('t', 0, 0, 2000);
    expect(kept[0]!.offset).toBe(start);
    expect(kept.map((m) => Number(m.value.toString()))).toEqual(Array.from({ length: 5000 - start }, (_, i) => start + i));
  });

  it('keeps at most maxBytesPerPartition, dropping the oldest, and trims idle partitions on its timer (regression: a burst stayed in memory)', async () => {
    // a retention far longer than the checks right after the append take on a busy machine
    const t = new MemoryTransport({ defaultPartitions: 1, maxBytesPerPartition: 10_000, retentionMs: 2000, trimIntervalMs: 50 });
    await t.producer().send('t', Array.from({ length: 100 }, (_, i) => ({ key: null, value: Buffer.alloc(500, i) })));
    const kept = t.endOffset('t', 0) - t.startOffset('t', 0);
    // 100 messages of about 564 bytes: at most 10,000 bytes stay
    expect(kept).toBeGreaterThan(10);
    expect(kept).toBeLessThanOrEqual(18);
    expect(t.read('t', 0, 0, 1000).map((m) => m.value[0])).toEqual(Array.from({ length: kept }, (_, i) => 100 - kept + i));
    // nothing more is appended: the timer drops what is older than retention
    await until(() => t.read('t', 0, 0, 1000).length === 0, undefined, 'the timer\'s trim');
    expect(t.startOffset('t', 0)).toBe(100);
    await t.close();
  });

  it('drops for size only what every live consumer group has committed', async () => {
    const t = new MemoryTransport({ defaultPartitions: 1, maxBytesPerPartition: 10_000, trimIntervalMs: 0 });
    let release!: () => void;
    const hold = new Promise<void>((r) => { release = r; });
    const c = t.consumer({ groupId: 'g', topics: ['t'], fromBeginning: true, maxBatchSize: 5 });
    const seen: number[] = [];
    // the group reads 5 messages and holds them uncommitted
    await c.run(async (b) => { seen.push(...b.messages.map((m) => m.offset)); await hold; });
    await t.producer().send('t', Array.from({ length: 100 }, (_, i) => ({ key: null, value: Buffer.alloc(500, i) })));
    await new Promise((r) => setTimeout(r, 20));
    expect(t.startOffset('t', 0)).toBe(0);
    release();
    await until(() => seen.length === 100, 2000, 'all read');
    await t.producer().send('t', [{ key: null, value: Buffer.alloc(500) }]);
    expect(t.endOffset('t', 0) - t.startOffset('t', 0)).toBeLessThanOrEqual(20);
    await c.stop();
    await t.close();
  });

  it('drops messages older than retention', async () => {
    const t = new MemoryTransport({ defaultPartitions: 1, retentionMs: 50 });
    await t.producer().send('t', Array.from({ length: 30 }, (_, i) => msg(`old${i}`)));
    await new Promise((r) => setTimeout(r, 80));
    await t.producer().send('t', [msg('new')]);
    expect(t.read('t', 0, 0, 100).map((m) => m.value.toString())).toEqual(['new']);
    expect(t.startOffset('t', 0)).toBe(30);
  });

  it('drops what every live group has committed on a data topic, keeps it on a topic with a retention of its own or no group (issue 17: the retained log filled the old generation)', async () => {
    const t = new MemoryTransport({ defaultPartitions: 1, trimIntervalMs: 0 });
    await t.ensureTopics([{ name: 'data', partitions: 1 }, { name: 'control', partitions: 1, retentionMs: 60_000 }, { name: 'dead', partitions: 1 }]);
    let release!: () => void;
    const held = new Promise<void>((r) => { release = r; });
    const fast = t.consumer({ groupId: 'fast', topics: ['data', 'control'], fromBeginning: true });
    const slow = t.consumer({ groupId: 'slow', topics: ['data'], fromBeginning: true, maxBatchSize: 10 });
    let fastSeen = 0, slowSeen = 0;
    await fast.run(async (b) => { fastSeen += b.messages.length; });
    await slow.run(async (b) => { slowSeen += b.messages.length; if (slowSeen <= 10) await held; });
    const p = t.producer();
    for (const topic of ['data', 'control', 'dead']) await p.send(topic, Array.from({ length: 100 }, (_, i) => msg(String(i))));
    await until(() => fastSeen === 200, 2000, 'fast group');
    // the slow group holds its first 10 uncommitted: nothing goes
    expect(t.startOffset('data', 0)).toBe(0);
    release();
    await until(() => slowSeen === 100 && t.startOffset('data', 0) === 100, 2000, 'both groups committed: dropped');
    expect(t.endOffset('data', 0)).toBe(100);
    // redelivery still works from the commit, and new messages are read
    await p.send('data', [msg('late')]);
    await until(() => slowSeen === 101, 2000, 'new message');
    // a topic with a retention of its own, and one no group reads, keep theirs
    expect(t.read('control', 0, 0, 1000)).toHaveLength(100);
    expect(t.read('dead', 0, 0, 1000)).toHaveLength(100);
    await fast.stop();
    await slow.stop();
    await t.close();
  });
});

