/**
 * The Kafka transport (kafkajs). Producer: acks=all, compression, and a short linger
 * that gathers the send() calls of many requests into one `sendBatch`. Consumers:
 * `eachBatch` with manual offset resolution; a batch's offsets are committed only after
 * the handler resolved (the commit request is not awaited before the next fetch: a lost
 * commit only means a redelivery, which the pipeline tolerates), and heartbeats are sent
 * from the batch loop while the handler runs.
 */
import { CompressionTypes, Kafka, Partitioners, logLevel, type ICustomPartitioner, type Consumer as KConsumer, type KafkaConfig, type Producer as KProducer, type SASLOptions } from 'kafkajs';
import type { Logger } from 'pino';
import {
  type Batch, type BatchHandler, type ConsumedMessage, type Consumer, type ConsumerOptions, type OutgoingMessage,
  type Producer, type TopicSpec, type Transport, TransportError,
} from './types.ts';

/** Settings of the Kafka transport (validated in services/config.ts). Times in ms. */
export interface KafkaTransportOptions {
  brokers: string[];
  clientId: string;
  ssl?: boolean;
  sasl?: SASLOptions;
  /** how long send() calls are gathered before one sendBatch (default 1) */
  lingerMs?: number;
  /** a gathered batch is sent at once when it holds this many messages (default 500) */
  maxBatchMessages?: number;
  compression?: 'none' | 'gzip';
  /** broker wait for an empty fetch (default 100; keep small on the mock cluster) */
  fetchMaxWaitMs?: number;
  /** partitions a consumer processes at once (default 4) */
  partitionsConsumedConcurrently?: number;
  sessionTimeoutMs?: number;
  heartbeatIntervalMs?: number;
  /** replication factor of topics created at start-up (default 1) */
  replicationFactor?: number;
  logger?: Logger;
  /**
   * Called when a consumer crashed with a non-retriable error (kafkajs does not restart
   * those) 5 times within a minute; each earlier crash starts a new consumer after 1 s.
   * The process can then no longer do its work and should exit so that its supervisor
   * starts a new one. Default: log only.
   */
  onFatal?: (err: Error) => void;
}

const LEVELS: Record<number, 'error' | 'warn' | 'info' | 'debug'> = { [logLevel.ERROR]: 'error', [logLevel.WARN]: 'warn', [logLevel.INFO]: 'info', [logLevel.DEBUG]: 'debug' };

function headersOf(h: Record<string, unknown> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h ?? {})) if (v !== undefined && v !== null) out[k] = Buffer.isBuffer(v) ? v.toString('utf8') : String(v);
  return out;
}

/** Kafka implementation of {@link Transport}. */
export class KafkaTransport implements Transport {
  readonly kafka: Kafka;
  private producerInstance?: LingerProducer;
  private readonly consumers = new Set<KafkaConsumer>();
  readonly options: Required<Omit<KafkaTransportOptions, 'ssl' | 'sasl' | 'logger' | 'onFatal'>> & KafkaTransportOptions;

  constructor(options: KafkaTransportOptions) {
    this.options = {
      lingerMs: 1, maxBatchMessages: 500, compression: 'gzip', fetchMaxWaitMs: 100, partitionsConsumedConcurrently: 4,
      sessionTimeoutMs: 30_000, heartbeatIntervalMs: 3000, replicationFactor: 1, ...options,
    };
    const log = options.logger;
    const config: KafkaConfig = {
      clientId: options.clientId, brokers: options.brokers, ssl: options.ssl, sasl: options.sasl,
      logLevel: log ? logLevel.WARN : logLevel.NOTHING,
      logCreator: () => ({ namespace, level, log: entry }) => {
        const { message, ...rest } = entry;
        log?.[LEVELS[level] ?? 'info']({ kafka: rest, namespace }, message);
      },
    };
    this.kafka = new Kafka(config);
  }

  /** Creates missing topics with the admin client; brokers that refuse (or auto-create) are tolerated. */
  async ensureTopics(specs: TopicSpec[]): Promise<void> {
    if (specs.length === 0) return;
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const existing = new Set(await admin.listTopics().catch(() => [] as string[]));
      const missing = specs.filter((s) => !existing.has(s.name));
      if (missing.length === 0) return;
      try {
        await admin.createTopics({
          waitForLeaders: true,
          topics: missing.map((s) => ({
            topic: s.name, numPartitions: s.partitions, replicationFactor: this.options.replicationFactor,
            configEntries: s.retentionMs ? [{ name: 'retention.ms', value: String(s.retentionMs) }] : [],
          })),
        });
      } catch (err) {
        // e.g. librdkafka's mock cluster, or brokers where clients may not create topics:
        // fall back to auto-creation through a metadata request
        this.options.logger?.warn({ err: (err as Error).message, topics: missing.map((s) => s.name) }, 'createTopics failed; relying on auto-creation');
        await admin.fetchTopicMetadata({ topics: missing.map((s) => s.name) }).catch(() => undefined);
      }
    } finally {
      await admin.disconnect();
    }
  }

  async partitionCount(topic: string): Promise<number> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const md = await admin.fetchTopicMetadata({ topics: [topic] });
      return md.topics[0]?.partitions.length ?? 0;
    } catch { return 0; } finally { await admin.disconnect(); }
  }

  producer(): Producer {
    const sticky = new StickyPartitioner();
    this.producerInstance ??= new LingerProducer(this.kafka.producer({ allowAutoTopicCreation: true, createPartitioner: sticky.create }), this.options, sticky);
    return this.producerInstance;
  }

  consumer(options: ConsumerOptions): Consumer {
    const c = new KafkaConsumer(this.kafka, options, this.options);
    this.consumers.add(c);
    return c;
  }

  async close(): Promise<void> {
    await Promise.all([...this.consumers].map((c) => c.stop()));
    await this.producerInstance?.close();
  }
}

interface Pending { topic: string; messages: OutgoingMessage[]; resolve(): void; reject(e: Error): void; }

/**
 * Keyed messages: kafkajs' DefaultPartitioner (Kafka's murmur2, as the embedded log).
 * Keyless messages: one partition per linger window and topic, moving on each window
 * (Kafka's sticky partitioner, KIP-480), so a window becomes one record batch: fewer,
 * larger batches for the broker and for consumers' fetches.
 */
class StickyPartitioner {
  /** bumped by the producer at each flush */
  epoch = 0;
  readonly create: ICustomPartitioner = () => {
    const murmur = Partitioners.DefaultPartitioner();
    const chosen = new Map<string, { epoch: number; partition: number }>();
    return (args) => {
      if (args.message.key != null) return murmur(args);
      const c = chosen.get(args.topic);
      if (c && c.epoch === this.epoch) return c.partition;
      const available = args.partitionMetadata.filter((p) => p.leader >= 0).map((p) => p.partitionId);
      const all = available.length > 0 ? available : args.partitionMetadata.map((p) => p.partitionId);
      const partition = all[(c ? all.indexOf(c.partition) + 1 : Math.floor(Math.random() * all.length)) % all.length]!;
      chosen.set(args.topic, { epoch: this.epoch, partition });
      return partition;
    };
  };
}

/** Gathers send() calls for `lingerMs` (or `maxBatchMessages`) into one acks=all sendBatch. */
class LingerProducer implements Producer {
  private pending: Pending[] = [];
  private count = 0;
  private timer?: NodeJS.Timeout;
  private connected?: Promise<void>;

  constructor(private readonly producer: KProducer, private readonly o: KafkaTransport['options'], private readonly sticky: StickyPartitioner) {}

  private connect(): Promise<void> {
    this.connected ??= this.producer.connect();
    return this.connected;
  }

  send(topic: string, messages: OutgoingMessage[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ topic, messages, resolve, reject });
      this.count += messages.length;
      if (this.count >= this.o.maxBatchMessages) this.flush();
      else this.timer ??= setTimeout(() => this.flush(), this.o.lingerMs);
    });
  }

  async sendBatch(topicMessages: Array<{ topic: string; messages: OutgoingMessage[] }>): Promise<void> {
    await Promise.all(topicMessages.map((t) => this.send(t.topic, t.messages)));
  }

  private flush(): void {
    if (this.timer) { clearTimeout(this.timer); this.timer = undefined; }
    const batch = this.pending;
    this.pending = [];
    this.count = 0;
    if (batch.length === 0) return;
    this.sticky.epoch++;
    const byTopic = new Map<string, OutgoingMessage[]>();
    for (const p of batch) byTopic.set(p.topic, [...(byTopic.get(p.topic) ?? []), ...p.messages]);
    const started = performance.now();
    this.connect()
      .then(() => this.producer.sendBatch({
        acks: -1,
        compression: this.o.compression === 'gzip' ? CompressionTypes.GZIP : CompressionTypes.None,
        topicMessages: [...byTopic].map(([topic, messages]) => ({
          topic,
          messages: messages.map((m) => ({
            key: m.key ?? null, value: m.value, headers: m.headers, partition: m.partition,
          })),
        })),
      }))
      .then(() => {
        this.o.logger?.debug({ messages: batch.reduce((n, p) => n + p.messages.length, 0), ms: Math.round(performance.now() - started) }, 'produced');
        for (const p of batch) p.resolve();
      })
      .catch((err: Error) => { const e = new TransportError(`produce failed: ${err.message}`, { cause: err }); for (const p of batch) p.reject(e); });
  }

  async close(): Promise<void> {
    this.flush();
    if (this.connected) await this.producer.disconnect();
  }
}

/** A kafkajs consumer running a {@link BatchHandler}. */
class KafkaConsumer implements Consumer {
  private consumer?: KConsumer;
  private stopped = false;
  private crashes: number[] = [];
  private readyResolve!: () => void;
  private readonly readyPromise = new Promise<void>((r) => (this.readyResolve = r));

  constructor(private readonly kafka: Kafka, private readonly options: ConsumerOptions, private readonly o: KafkaTransport['options']) {}

  ready(): Promise<void> { return this.readyPromise; }

  async run(handler: BatchHandler): Promise<void> {
    const c = this.kafka.consumer({
      groupId: this.options.groupId,
      maxWaitTimeInMs: this.o.fetchMaxWaitMs,
      sessionTimeout: this.o.sessionTimeoutMs,
      heartbeatInterval: this.o.heartbeatIntervalMs,
      allowAutoTopicCreation: true,
      retry: { retries: 10 },
    });
    this.consumer = c;
    c.on(c.events.CRASH, (e) => {
      this.o.logger?.error({ group: this.options.groupId, err: e.payload.error, restart: e.payload.restart }, 'consumer crashed');
      if (e.payload.restart || this.stopped) return;
      const now = Date.now();
      this.crashes = [...this.crashes.filter((t) => now - t < 60_000), now];
      if (this.crashes.length >= 5) { this.o.onFatal?.(e.payload.error); return; }
      // kafkajs gives up on non-retriable errors (e.g. a broker answering SyncGroup with
      // an error during a rebalance): start a new member of the group
      setTimeout(() => {
        if (this.stopped) return;
        this.o.logger?.warn({ group: this.options.groupId }, 'starting a new consumer after a crash');
        void this.run(handler).catch((err: Error) => this.o.onFatal?.(err));
      }, 1000).unref();
    });
    c.on(c.events.GROUP_JOIN, (e) => {
      this.o.logger?.info({ group: this.options.groupId, assignment: e.payload.memberAssignment }, 'partitions assigned');
      if (Object.keys(e.payload.memberAssignment).length > 0) this.readyResolve();
    });
    await c.connect();
    for (const topic of this.options.topics) await c.subscribe({ topic, fromBeginning: this.options.fromBeginning ?? false });
    const maxBatch = this.options.maxBatchSize ?? 500;
    await c.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: this.o.partitionsConsumedConcurrently,
      eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
        // paused: hold this batch (so its partition fetches nothing more) and keep heartbeating
        while (this.paused && isRunning()) {
          await new Promise<void>((r) => { this.waiters.push(r); setTimeout(r, this.o.heartbeatIntervalMs); });
          await heartbeat().catch(() => undefined);
        }
        for (let start = 0; start < batch.messages.length && isRunning() && !isStale(); start += maxBatch) {
          const slice = batch.messages.slice(start, start + maxBatch);
          const messages: ConsumedMessage[] = slice.map((m) => ({
            topic: batch.topic, partition: batch.partition, offset: Number(m.offset), key: m.key ? m.key.toString('utf8') : null,
            value: m.value ?? Buffer.alloc(0), headers: headersOf(m.headers), timestamp: Number(m.timestamp),
          }));
          const b: Batch = { topic: batch.topic, partition: batch.partition, messages };
          this.o.logger?.debug({ topic: batch.topic, partition: batch.partition, first: messages[0]!.offset, last: messages[messages.length - 1]!.offset, group: this.options.groupId, lagMs: Date.now() - messages[0]!.timestamp }, 'batch received');
          let settled = false;
          const done = handler(b).finally(() => { settled = true; });
          // heartbeat from the batch loop while the handler works
          while (!settled) {
            await Promise.race([done.catch(() => undefined), new Promise((r) => setTimeout(r, this.o.heartbeatIntervalMs))]);
            if (!settled) await heartbeat().catch(() => undefined);
          }
          await done; // a failure leaves the offsets uncommitted; kafkajs retries the batch
          if (isStale()) return; // partition revoked meanwhile: its new owner runs it again
          const last = slice[slice.length - 1]!.offset;
          resolveOffset(last);
          void c.commitOffsets([{ topic: batch.topic, partition: batch.partition, offset: String(Number(last) + 1) }])
            .catch((err: Error) => this.o.logger?.warn({ err: err.message, group: this.options.groupId, partition: batch.partition }, 'offset commit failed; the batch may be delivered again'));
          await heartbeat().catch(() => undefined);
        }
      },
    });
  }

  private paused = false;
  private waiters: Array<() => void> = [];

  /**
   * Stops consuming (backpressure): the next batch of every partition is held in the
   * batch loop, which keeps heartbeating, so nothing more is fetched. kafkajs' own
   * pause()/resume() is not used: a partition paused before its first commit is never
   * resumed (kafkajs issue #1599), which stalled partitions here.
   */
  pause(): void { this.paused = true; }
  /** Resumes after {@link pause}. */
  resume(): void { this.paused = false; for (const w of this.waiters.splice(0)) w(); }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.consumer?.disconnect();
    this.consumer = undefined;
  }
}
