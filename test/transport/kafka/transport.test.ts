/**
 * The Kafka transport against a real Kafka-protocol broker (librdkafka's mock cluster,
 * 3 brokers; topics are auto-created there with 4 partitions): explicit partitions,
 * manual assignment, and batches handled while earlier ones are in flight with offsets
 * still committed in order.
 */
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KafkaTransport } from '../../../services/transport/kafka/index.ts';
import type { Batch } from '../../../services/transport/types.ts';
import { kafkaAvailable, startKafka, type TestKafka } from '../../helpers/kafka.ts';
import { until } from '../../helpers/service.ts';

const available = kafkaAvailable();

describe.skipIf(!available)('KafkaTransport', () => {
  let kafka: TestKafka;
  let admin: ReturnType<Kafka['admin']>;
  const transports: KafkaTransport[] = [];
  const transport = () => {
    const t = new KafkaTransport({ brokers: kafka.brokers.split(','), clientId: 'transport-test', fetchMaxWaitMs: 10, sessionTimeoutMs: 6000, heartbeatIntervalMs: 500, compression: 'none' });
    transports.push(t);
    return t;
  };
  let n = 0;
  const topic = () => `tt${Date.now()}-${++n}`;
  /**
   * A consumer of partition 0 of a new topic with 8 batches in flight, and `send`, which
   * writes one record (one produce request, so one record batch) there.
   */
  const inFlightConsumer = () => {
    const t = transport();
    const name = topic();
    const group = `${name}-g`;
    const p = t.producer();
    const c = t.consumer({ groupId: group, topics: [name], fromBeginning: true, maxInFlightBatches: 8, partitions: [0] });
    return { name, group, c, send: (value: string) => p.send(name, [{ value: Buffer.from(value), partition: 0 }]) };
  };
  /** committed offset of partition 0 of `t` for `group` (-1 when none) */
  const committed = async (group: string, t: string) => Number((await admin.fetchOffsets({ groupId: group, topics: [t] }))[0]!.partitions.find((p) => p.partition === 0)!.offset);

  beforeAll(async () => {
    kafka = await startKafka();
    admin = new Kafka({ brokers: kafka.brokers.split(','), logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
  });
  afterAll(async () => {
    await Promise.all(transports.map((t) => t.close()));
    await admin?.disconnect();
    await kafka?.stop();
  });

  it('puts a keyless message that names a partition into that partition (regression: the sticky partitioner ignored it)', async () => {
    const t = transport();
    const name = topic();
    const p = t.producer();
    for (let i = 0; i < 6; i++) await p.send(name, [{ value: Buffer.from(`m${i}`), partition: 2 }]);
    const seen: Array<[number, string]> = [];
    const c = t.consumer({ groupId: `${name}-g`, topics: [name], fromBeginning: true });
    await c.run(async (b) => { for (const m of b.messages) seen.push([b.partition, m.value.toString()]); });
    await until(() => seen.length === 6, 20_000);
    expect(new Set(seen.map(([partition]) => partition))).toEqual(new Set([2]));
    await c.stop();
  });

  it('assigns only the named partitions when a consumer asks for them', async () => {
    const t = transport();
    const name = topic();
    const p = t.producer();
    await p.sendBatch([{ topic: name, messages: [0, 1, 2, 3].map((partition) => ({ value: Buffer.from(`p${partition}`), partition })) }]);
    const seen: number[] = [];
    const c = t.consumer({ groupId: `${name}-g`, topics: [name], fromBeginning: true, partitions: [1] });
    await c.run(async (b) => { seen.push(...b.messages.map(() => b.partition)); });
    await c.ready();
    await until(() => seen.length >= 1, 20_000);
    // the other three partitions hold a message each; none may arrive
    await new Promise((r) => setTimeout(r, 1000));
    expect(seen).toEqual([1]);
    await c.stop();
  });

  it('hands out later batches while an earlier one runs, and commits in offset order only', async () => {
    const { name, group, c, send } = inFlightConsumer();
    let releaseFirst!: () => void;
    const firstHeld = new Promise<void>((r) => (releaseFirst = r));
    const batches: Batch[] = [];
    await c.run(async (b) => {
      batches.push(b);
      if (batches.length === 1) await firstHeld;
    });
    await c.ready();
    // three separate produce requests: three record batches, fetched one after another
    await send('a');
    await until(() => batches.length === 1, 20_000);
    await send('b');
    await send('c');
    await until(() => batches.flatMap((b) => b.messages).length === 3, 20_000);
    // b and c were handled while a still ran; nothing may be committed past a
    await new Promise((r) => setTimeout(r, 500));
    expect(await committed(group, name)).toBe(-1);
    releaseFirst();
    await until(async () => (await committed(group, name)) === 3, 20_000);
    await c.stop();
  });

  it('delivers a failed batch again with everything after it, and never commits past it', async () => {
    const { name, group, c, send } = inFlightConsumer();
    const handled: string[] = [];
    let failures = 0;
    await c.run(async (b) => {
      const values = b.messages.map((m) => m.value.toString());
      if (values.includes('x1') && failures === 0) {
        failures++;
        // fail only after the later batch is handed out, so that it is in flight
        await until(() => handled.includes('x2'), 20_000);
        throw new Error('first attempt fails');
      }
      handled.push(...values);
    });
    await c.ready();
    await send('x0');
    await until(() => handled.includes('x0'), 20_000);
    await send('x1');
    await send('x2');
    await until(() => handled.includes('x1'), 20_000);
    await until(async () => (await committed(group, name)) === 3, 20_000);
    expect(failures).toBe(1);
    // x2 ran before the failure and again after the seek back to x1 (at-least-once)
    expect(handled.filter((v) => v === 'x2').length).toBeGreaterThanOrEqual(1);
    expect(handled.indexOf('x1')).toBeGreaterThan(handled.indexOf('x2'));
    await c.stop();
  });

  it('commits the last handled offset when batches settle while a commit is in flight (commits are coalesced)', async () => {
    const { name, group, c, send } = inFlightConsumer();
    let handled = 0;
    await c.run(async (b) => {
      // settle at spread-out times, so that some settle while a commit is in flight
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 20)));
      handled += b.messages.length;
    });
    await c.ready();
    for (let i = 0; i < 30; i++) await send(`m${i}`);
    await until(() => handled === 30, 20_000);
    await until(async () => (await committed(group, name)) === 30, 20_000);
    await c.stop();
    expect(await committed(group, name)).toBe(30);
  });

  it('commits no offsets for a consumer that asks for none (a gateway\'s replies), and still hands out every batch', async () => {
    const t = transport();
    const name = topic();
    const p = t.producer();
    const c = t.consumer({ groupId: `${name}-g`, topics: [name], fromBeginning: true, partitions: [0], commitOffsets: false });
    const seen: string[] = [];
    await c.run(async (b) => { seen.push(...b.messages.map((m) => m.value.toString())); });
    await c.ready();
    for (const v of ['r0', 'r1', 'r2']) await p.send(name, [{ value: Buffer.from(v), partition: 0 }]);
    await until(() => seen.length === 3, 20_000);
    await c.stop();
    expect(seen).toEqual(['r0', 'r1', 'r2']);
    expect(await committed(`${name}-g`, name)).toBe(-1);
  });
});
