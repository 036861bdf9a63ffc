/**
 * Options of the Kafka transport (services/transport/kafka/transport.ts). The
 * composition root builds them from the configuration (services/compose.ts); the transport validates them ({@link resolveKafkaOptions}).
 */
import type { SASLOptions } from 'kafkajs';
import type { Logger } from 'pino';
import { resolveSettings, type SettingsSchema } from '../../lib/options.ts';

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

/** The options with every default applied. */
export type ResolvedKafkaOptions = Required<Omit<KafkaTransportOptions, 'ssl' | 'sasl' | 'logger' | 'onFatal'>> & KafkaTransportOptions;

/**
 * JSON Schema of the transport's plain settings: types, bounds and defaults (each field's
 * comment above names its own). `sasl`, `logger` and `onFatal` are objects the
 * composition root builds and are not checked here.
 */
export const KAFKA_SETTINGS_SCHEMA: SettingsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    brokers: { type: 'array', default: ['localhost:9092'], minItems: 1, items: { type: 'string', pattern: '^\\S+:\\d+$' } },
    clientId: { type: 'string', default: 'lmstream', minLength: 1 },
    ssl: { type: 'boolean', default: false },
    lingerMs: { type: 'integer', default: 1, minimum: 0 },
    maxBatchMessages: { type: 'integer', default: 500, minimum: 1 },
    compression: { type: 'string', default: 'gzip', enum: ['none', 'gzip'] },
    fetchMaxWaitMs: { type: 'integer', default: 100, minimum: 1 },
    backgroundFetchMaxWaitMs: { type: 'integer', default: 500, minimum: 1 },
    partitionsConsumedConcurrently: { type: 'integer', default: 4, minimum: 1 },
    sessionTimeoutMs: { type: 'integer', default: 30_000, minimum: 1000 },
    heartbeatIntervalMs: { type: 'integer', default: 3000, minimum: 100 },
    replicationFactor: { type: 'integer', default: 1, minimum: 1 },
  },
};

/**
 * The options with every default applied, the plain settings validated.
 * @throws OptionsError naming the setting that breaks its schema
 */
export function resolveKafkaOptions(options: KafkaTransportOptions): ResolvedKafkaOptions {
  const { sasl, logger, onFatal, ...plain } = options;
  return { ...resolveSettings<Omit<ResolvedKafkaOptions, 'sasl' | 'logger' | 'onFatal'>>('kafka transport', KAFKA_SETTINGS_SCHEMA, plain), sasl, logger, onFatal };
}
