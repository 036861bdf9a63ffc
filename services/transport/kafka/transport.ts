/**
 * The Kafka transport (kafkajs); its producer, consumer, partitioner and assigner are
 * files of their own in this folder. Producer: acks=all, compression, and send() calls of
 * many requests gathered into one `sendBatch` (at once when idle, else up to a short
 * linger). Consumers: `eachBatch` with manual offsets; a batch's offsets are committed
 * only after its handler (and those of the partition's earlier batches, when several
 * are in flight) resolved. The commit request is not awaited before the next fetch: a
 * lost commit only means a redelivery, which the pipeline tolerates. Heartbeats are sent
 * from the batch loop. Optional manual assignment of chosen partitions.
 */
import { Kafka, logLevel, type Admin, type KafkaConfig } from 'kafkajs';
import { type Consumer, type ConsumerOptions, type Producer, type TopicSpec, type Transport, TransportError } from '../types.ts';
import { KafkaConsumer } from './consumer.ts';
import { resolveKafkaOptions, type KafkaTransportOptions, type ResolvedKafkaOptions } from './options.ts';
import { StickyPartitioner } from './partitioner.ts';
import { LingerProducer } from './producer.ts';

const LEVELS: Record<number, 'error' | 'warn' | 'info' | 'debug'> = { [logLevel.ERROR]: 'error', [logLevel.WARN]: 'warn', [logLevel.INFO]: 'info', [logLevel.DEBUG]: 'debug' };

/** Kafka implementation of {@link Transport}. */
export class KafkaTransport implements Transport {
  readonly kafka: Kafka;
  private producerInstance?: LingerProducer;
  private readonly consumers = new Set<KafkaConsumer>();
  readonly options: ResolvedKafkaOptions;

  /** @throws OptionsError naming a setting that breaks its schema */
  constructor(options: KafkaTransportOptions) {
    this.options = resolveKafkaOptions(options);
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
      // only a broken connection retires the shared admin client: other groups' lags are
      // asked on it at the same moment, and a topic that does not exist yet (a capability
      // without workers) could fail them all (a likely cause of an empty lag table in one CI run)
      if (/Connection/i.test((err as Error).name ?? '')) {
        const admin = this.admin;
        this.admin = undefined;
        void admin?.then((a) => a.disconnect()).catch(() => undefined);
      }
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
