/**
 * Options of the Kafka transport (services/transport/kafka/transport.ts). The
 * composition root builds them from the configuration (services/compose.ts).
 */
import type { SASLOptions } from 'kafkajs';
import type { Logger } from 'pino';

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

/** Defaults of the optional settings (each field's comment names its own). */
export const KAFKA_DEFAULTS = {
  lingerMs: 1, maxBatchMessages: 500, compression: 'gzip', fetchMaxWaitMs: 100, backgroundFetchMaxWaitMs: 500, partitionsConsumedConcurrently: 4,
  sessionTimeoutMs: 30_000, heartbeatIntervalMs: 3000, replicationFactor: 1,
} as const;
