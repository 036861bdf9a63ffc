/**
 * The Kafka transport (kafkajs). Producer: acks=all, compression, and send() calls of
 * many requests gathered into one `sendBatch` (at once when idle, else up to a short
 * linger). Consumers: `eachBatch` with manual offsets; a batch's offsets are committed
 * only after its handler (and those of the partition's earlier batches, when several
 * are in flight) resolved. The commit request is not awaited before the next fetch: a
 * lost commit only means a redelivery, which the pipeline tolerates. Heartbeats are sent
 * from the batch loop. Optional manual assignment of chosen partitions.
 */
import { AssignerProtocol, CompressionTypes, Kafka, Partitioners, logLevel, type Admin, type ICustomPartitioner, type PartitionAssigner, type Consumer as KConsumer, type KafkaConfig, type Producer as KProducer, type SASLOptions } from 'kafkajs';
import type { Logger } from 'pino';
import {
  type BatchHandler, type ConsumedMessage, type Consumer, type ConsumerOptions, type OutgoingMessage,
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
  /**
   * the same for consumers off the request path (`background`: billing, worker
   * heartbeats, control commands); default 500. A broker answers a fetch as soon as
   * data arrives, so this costs latency only on brokers that hold the whole wait
   * (librdkafka's mock cluster), and saves the empty fetches of idle topics.
   */
  backgroundFetchMaxWaitMs?: number;
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
      lingerMs: 1, maxBatchMessages: 500, compression: 'gzip', fetchMaxWaitMs: 100, backgroundFetchMaxWaitMs: 500, partitionsConsumedConcurrently: 4,
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

  private admin?: Promise<Admin>;

  async consumerLag(groupId: string, topic: string): Promise<number> {
    try {
      this.admin ??= (async () => { const a = this.kafka.admin(); await a.connect(); return a; })();
      const admin = await this.admin;
      const [ends, [committed]] = await Promise.all([admin.fetchTopicOffsets(topic), admin.fetchOffsets({ groupId, topics: [topic] })]);
      const done = new Map((committed?.partitions ?? []).map((p) => [p.partition, Number(p.offset)]));
      return ends.reduce((n, p) => n + Number(p.high) - Math.max(done.get(p.partition) ?? -1, Number(p.low)), 0);
    } catch (err) {
      const admin = this.admin;
      this.admin = undefined;
      void admin?.then((a) => a.disconnect()).catch(() => undefined);
      throw new TransportError(`consumer lag of ${groupId} on ${topic} unknown: ${(err as Error).message}`, { cause: err });
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
    if (this.admin) await (await this.admin.catch(() => undefined))?.disconnect().catch(() => undefined);
  }
}

interface Pending { topic: string; messages: OutgoingMessage[]; resolve(): void; reject(e: Error): void; }

/**
 * Messages that name a partition go there (reply-partition). Keyed messages: kafkajs'
 * DefaultPartitioner (Kafka's murmur2, as the embedded log).
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
      if (args.message.partition != null) return args.message.partition;
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

/**
 * Gathers send() calls into one acks=all sendBatch. An idle producer (no produce request
 * awaiting its acknowledgement) sends what the current event-loop turn gathered at once;
 * while a request is in flight, messages gather until it is acknowledged or `lingerMs`
 * passed, whichever comes first (or `maxBatchMessages` are waiting). So a lone request
 * pays no linger, and under load batches grow with the broker's round trip (as Nagle's
 * algorithm does for TCP).
 */
class LingerProducer implements Producer {
  private pending: Pending[] = [];
  private count = 0;
  private timer?: NodeJS.Timeout;
  private immediate?: NodeJS.Immediate;
  /** produce requests sent and not yet acknowledged */
  private inFlight = 0;
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
      else if (this.inFlight === 0) this.immediate ??= setImmediate(() => this.flush());
      else this.timer ??= setTimeout(() => this.flush(), this.o.lingerMs);
    });
  }

  async sendBatch(topicMessages: Array<{ topic: string; messages: OutgoingMessage[] }>): Promise<void> {
    await Promise.all(topicMessages.map((t) => this.send(t.topic, t.messages)));
  }

  private flush(): void {
    if (this.timer) { clearTimeout(this.timer); this.timer = undefined; }
    if (this.immediate) { clearImmediate(this.immediate); this.immediate = undefined; }
    const batch = this.pending;
    this.pending = [];
    this.count = 0;
    if (batch.length === 0) return;
    this.sticky.epoch++;
    const byTopic = new Map<string, OutgoingMessage[]>();
    for (const p of batch) {
      const list = byTopic.get(p.topic);
      if (list) list.push(...p.messages); else byTopic.set(p.topic, [...p.messages]);
    }
    this.inFlight++;
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
      .catch((err: Error) => { const e = new TransportError(`produce failed: ${err.message}`, { cause: err }); for (const p of batch) p.reject(e); })
      .finally(() => {
        this.inFlight--;
        // what gathered meanwhile goes now rather than at its linger timer
        if (this.inFlight === 0 && this.pending.length > 0) this.flush();
      });
  }

  async close(): Promise<void> {
    this.flush();
    if (this.connected) await this.producer.disconnect();
  }
}

/**
 * A partition assigner for manual assignment: the listed partitions of every subscribed
 * topic go to one member of the group (the first by member id), nothing else is
 * assigned. Used where a group has one member that reads chosen partitions (a gateway's
 * reply partition), so it fetches nothing from the others.
 */
function fixedPartitions(partitions: number[]): PartitionAssigner {
  const name = `lmstream-fixed-partitions-${partitions.join('-')}`;
  return () => ({
    name,
    version: 0,
    async assign({ members, topics }) {
      const [first] = members.map((m) => m.memberId).sort();
      if (!first) return [];
      const assignment = Object.fromEntries(topics.map((t) => [t, partitions]));
      return members.map(({ memberId }) => ({
        memberId,
        memberAssignment: AssignerProtocol.MemberAssignment.encode({ version: 0, assignment: memberId === first ? assignment : {}, userData: Buffer.alloc(0) }),
      }));
    },
    protocol({ topics }) {
      return { name, metadata: AssignerProtocol.MemberMetadata.encode({ version: 0, topics, userData: Buffer.alloc(0) }) };
    },
  });
}

/**
 * One handed-out batch of a partition whose handler has not finished, or whose
 * finish waits on an earlier batch. `first`/`last` are offsets.
 */
interface InFlight { first: number; last: number; state: 'running' | 'done' | 'failed'; settled: Promise<void>; }

/**
 * A kafkajs consumer running a {@link BatchHandler}.
 *
 * With `maxInFlightBatches` > 1 the batch loop does not wait for a handler: it resolves
 * the batch's offsets (so kafkajs fetches on from there) and tracks the batch per
 * partition; offsets are committed in offset order, each only once its batch and every
 * earlier one have been handled. A failed batch makes the partition seek back to its
 * first offset, so it and everything after it are delivered again. A batch that starts
 * at or before the end of the tracked ones means the fetch position went back (a seek,
 * or a rebalance that restarted from the committed offset): the older tracking is
 * dropped, and those batches count only through their new delivery.
 */
class KafkaConsumer implements Consumer {
  private consumer?: KConsumer;
  private stopped = false;
  private crashes: number[] = [];
  private readyResolve!: () => void;
  private readonly readyPromise = new Promise<void>((r) => (this.readyResolve = r));
  /** per `topic|partition`: batches in flight, in offset order */
  private readonly inFlight = new Map<string, InFlight[]>();
  private readonly commits = new Set<Promise<unknown>>();
  /** per `topic|partition`: the failed batch the partition seeks back to */
  private readonly rewinds = new Map<string, { offset: number; pending: boolean; notBefore: number; attempts: number }>();

  constructor(private readonly kafka: Kafka, private readonly options: ConsumerOptions, private readonly o: KafkaTransport['options']) {}

  ready(): Promise<void> { return this.readyPromise; }

  async run(handler: BatchHandler): Promise<void> {
    const c = this.kafka.consumer({
      groupId: this.options.groupId,
      maxWaitTimeInMs: this.options.background ? this.o.backgroundFetchMaxWaitMs : this.o.fetchMaxWaitMs,
      sessionTimeout: this.o.sessionTimeoutMs,
      heartbeatInterval: this.o.heartbeatIntervalMs,
      allowAutoTopicCreation: true,
      retry: { retries: 10 },
      ...(this.options.partitions ? { partitionAssigners: [fixedPartitions(this.options.partitions)] } : {}),
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
      // fetching restarts from the committed offsets: batches still in flight are delivered again
      this.inFlight.clear();
      this.rewinds.clear();
      if (Object.keys(e.payload.memberAssignment).length > 0) this.readyResolve();
    });
    await c.connect();
    for (const topic of this.options.topics) await c.subscribe({ topic, fromBeginning: this.options.fromBeginning ?? false });
    const maxBatch = this.options.maxBatchSize ?? 500;
    const maxInFlight = Math.max(1, this.options.maxInFlightBatches ?? 1);
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
        const key = `${batch.topic}|${batch.partition}`;
        for (let start = 0; start < batch.messages.length && isRunning() && !isStale() && !this.paused; start += maxBatch) {
          const slice = batch.messages.slice(start, start + maxBatch);
          const first = Number(slice[0]!.offset);
          const rewind = this.rewinds.get(key);
          if (rewind?.pending) {
            // fetched before the seek to a failed batch took effect: delivered again after it
            if (first > rewind.offset) return;
            rewind.pending = false;
            const wait = rewind.notBefore - Date.now();
            if (wait > 0) await new Promise((r) => setTimeout(r, wait));
          }
          const messages: ConsumedMessage[] = slice.map((m) => ({
            topic: batch.topic, partition: batch.partition, offset: Number(m.offset), key: m.key ? m.key.toString('utf8') : null,
            value: m.value ?? Buffer.alloc(0), headers: headersOf(m.headers), timestamp: Number(m.timestamp),
          }));
          const last = messages[messages.length - 1]!.offset;
          this.o.logger?.debug({ topic: batch.topic, partition: batch.partition, first, last, group: this.options.groupId, lagMs: Date.now() - messages[0]!.timestamp }, 'batch received');
          let list = this.inFlight.get(key);
          if (!list || (list.length > 0 && first <= list[list.length - 1]!.last)) this.inFlight.set(key, list = []);
          const entry: InFlight = { first, last, state: 'running', settled: Promise.resolve() };
          list.push(entry);
          const tracked = list;
          entry.settled = handler({ topic: batch.topic, partition: batch.partition, messages }).then(
            () => { entry.state = 'done'; },
            (err: unknown) => {
              entry.state = 'failed';
              this.o.logger?.warn({ err, group: this.options.groupId, topic: batch.topic, partition: batch.partition, offset: first }, 'batch failed; it will be delivered again');
            },
          ).then(() => this.advance(c, key, batch.topic, batch.partition, tracked));
          // kafkajs fetches on from here; the commit waits for the handler (advance)
          resolveOffset(String(last));
          // at most maxInFlight batches per partition: wait for the oldest, heartbeating
          while (tracked.length >= maxInFlight && this.inFlight.get(key) === tracked) {
            await Promise.race([tracked[0]!.settled, new Promise((r) => setTimeout(r, this.o.heartbeatIntervalMs))]);
            await heartbeat().catch(() => undefined);
          }
        }
      },
    });
  }

  /**
   * Commits the handled prefix of a partition's batches; after a failed batch, seeks
   * the partition back to it and holds its redelivery for 100 ms (doubling up to 5 s
   * while it keeps failing), so a failing batch does not spin.
   */
  private advance(c: KConsumer, key: string, topic: string, partition: number, list: InFlight[]): void {
    if (this.inFlight.get(key) !== list) return; // tracking dropped: delivered again
    try { this.commitOrRewind(c, key, topic, partition, list); } catch (err) {
      // e.g. a seek after the consumer stopped: the uncommitted batches are delivered again
      this.o.logger?.warn({ err, group: this.options.groupId, topic, partition }, 'could not commit or seek; uncommitted batches will be delivered again');
    }
  }

  private commitOrRewind(c: KConsumer, key: string, topic: string, partition: number, list: InFlight[]): void {
    let committed: number | undefined;
    while (list.length > 0 && list[0]!.state === 'done') committed = list.shift()!.last;
    if (committed !== undefined) {
      const p = c.commitOffsets([{ topic, partition, offset: String(committed + 1) }])
        .catch((err: Error) => this.o.logger?.warn({ err: err.message, group: this.options.groupId, partition }, 'offset commit failed; the batch may be delivered again'))
        .finally(() => this.commits.delete(p));
      this.commits.add(p);
    }
    if (list[0]?.state === 'failed') {
      const offset = list[0].first;
      this.inFlight.delete(key);
      const prev = this.rewinds.get(key);
      const attempts = prev?.offset === offset ? prev.attempts : 0;
      this.rewinds.set(key, { offset, pending: true, notBefore: Date.now() + Math.min(5000, 100 * 2 ** attempts), attempts: attempts + 1 });
      if (!this.stopped) c.seek({ topic, partition, offset: String(offset) });
    }
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

  /** Holds new batches, waits for those in flight and their commits, then leaves the group. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.paused = true;
    await Promise.all([...this.inFlight.values()].flat().map((e) => e.settled));
    await Promise.all([...this.commits]);
    await this.consumer?.disconnect();
    this.consumer = undefined;
  }
}
