/**
 * The transport of a process, built from the configuration (README, "Configuration"):
 * the embedded in-memory log (`TRANSPORT=memory`) or Kafka (`TRANSPORT=kafka`). The
 * services (services/runtime.ts) and the bulk connectors (connectors/common.ts) both
 * build theirs here.
 */
import type { SASLOptions } from 'kafkajs';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { KafkaTransport } from './kafka/index.ts';
import { MemoryTransport } from './memory.ts';
import type { Transport } from './types.ts';

/** What the caller decides beyond the configuration. */
export interface TransportHooks {
  /** a Kafka consumer stopped for good (services: exit for the supervisor; default: log only) */
  onFatal?: (err: Error) => void;
}

/** The Kafka transport the KAFKA_* settings describe. */
export function kafkaTransport(config: Config, logger: Logger, hooks: TransportHooks = {}): KafkaTransport {
  const sasl = config.KAFKA_SASL_MECHANISM
    ? ({ mechanism: config.KAFKA_SASL_MECHANISM, username: config.KAFKA_SASL_USERNAME, password: config.KAFKA_SASL_PASSWORD } as SASLOptions)
    : undefined;
  return new KafkaTransport({
    brokers: config.KAFKA_BROKERS.split(',').map((b) => b.trim()).filter(Boolean),
    clientId: config.KAFKA_CLIENT_ID, ssl: config.KAFKA_SSL, sasl,
    lingerMs: config.KAFKA_LINGER_MS, compression: config.KAFKA_COMPRESSION, fetchMaxWaitMs: config.KAFKA_FETCH_MAX_WAIT_MS,
    backgroundFetchMaxWaitMs: config.KAFKA_BACKGROUND_FETCH_MAX_WAIT_MS,
    replicationFactor: config.KAFKA_REPLICATION_FACTOR, sessionTimeoutMs: config.KAFKA_SESSION_TIMEOUT_MS,
    heartbeatIntervalMs: Math.max(100, Math.floor(config.KAFKA_SESSION_TIMEOUT_MS / 10)), logger: logger.child({ component: 'kafka' }),
    onFatal: hooks.onFatal,
  });
}

/** The transport TRANSPORT names. */
export function createTransport(config: Config, logger: Logger, hooks: TransportHooks = {}): Transport {
  return config.TRANSPORT === 'kafka' ? kafkaTransport(config, logger, hooks) : new MemoryTransport({ defaultPartitions: config.TOPIC_PARTITIONS });
}
