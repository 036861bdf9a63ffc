/**
 * The composition root's map from the configuration (environment variables, README
 * "Configuration") to each component's own options: the workers' and gateways'
 * settings, the Kafka transport's options, and the transport itself. Components never
 * see the configuration: each validates its own settings (services/lib/options.ts), so
 * its options say what it may touch. The services (services/runtime.ts) and the bulk
 * connectors (connectors/common.ts) build theirs here.
 */
import type { SASLOptions } from 'kafkajs';
import type { Logger } from 'pino';
import { ConfigError, type Config } from './config.ts';
import { parseInflightItems, parseQueueTargets } from './gateway/load-shedding.ts';
import type { GatewaySettings } from './gateway/options.ts';
import { KafkaTransport, type KafkaTransportOptions } from './transport/kafka/index.ts';
import { MemoryTransport } from './transport/memory.ts';
import type { Transport } from './transport/types.ts';
import type { BatchPolicy } from './workers/batcher.ts';
import type { WorkerSettings } from './workers/options.ts';

/** A worker's settings from the configuration. */
export function workerSettingsOf(c: Config): WorkerSettings {
  return {
    topicPrefix: c.TOPIC_PREFIX, partitions: c.TOPIC_PARTITIONS, modelRepository: c.MODEL_REPOSITORY,
    executionProvider: c.EXECUTION_PROVIDER, inferenceThreads: c.INFERENCE_THREADS, modelIdleUnloadMs: c.MODEL_IDLE_UNLOAD_MS, preload: c.MODEL_PRELOAD,
    heartbeatMs: c.WORKER_HEARTBEAT_MS, maxInFlightBatches: c.WORKER_MAX_IN_FLIGHT_BATCHES, dlqMaxAttempts: c.DLQ_MAX_ATTEMPTS, outcomeEvents: c.OUTCOME_EVENTS,
    backlogMicroBatches: c.WORKER_BACKLOG_MICRO_BATCHES,
  };
}

/** The batching settings the configuration sets over every model's config.json (BATCH_MAX_QUEUE_DELAY_MS ≥ 0). */
export function batchPolicyOf(c: Config): Partial<BatchPolicy> {
  return c.BATCH_MAX_QUEUE_DELAY_MS >= 0 ? { maxQueueDelayMs: c.BATCH_MAX_QUEUE_DELAY_MS } : {};
}

/** A `capability=N,...` variable parsed, its error a ConfigError naming the variable and value. */
function capabilityNumbers<T>(variable: 'MAX_INFLIGHT_ITEMS' | 'QUEUE_TARGET_MS', value: string, parse: (v: string) => T): T {
  try { return parse(value); } catch (err) {
    throw new ConfigError(variable, `configuration: ${variable}=${JSON.stringify(value)} ${(err as Error).message.replace(`${variable}: `, '')} (README, "Configuration")`, { cause: err });
  }
}

/**
 * A gateway's settings from the configuration.
 * @throws ConfigError when MAX_INFLIGHT_ITEMS or QUEUE_TARGET_MS names an unknown capability or a bad number
 */
export function gatewaySettingsOf(c: Config): GatewaySettings {
  return {
    topicPrefix: c.TOPIC_PREFIX, requestTimeoutMs: c.REQUEST_TIMEOUT_MS, shutdownGraceMs: c.SHUTDOWN_GRACE_MS,
    workerHeartbeatMs: c.WORKER_HEARTBEAT_MS, bodyTimeoutMs: c.BODY_TIMEOUT_MS, trustProxy: c.TRUST_PROXY, logRequests: c.LOG_REQUESTS, outcomeEvents: c.OUTCOME_EVENTS,
    rateLimitMax: c.RATE_LIMIT_MAX, rateLimitWindowMs: c.RATE_LIMIT_WINDOW_MS, rateLimitAnonMax: c.RATE_LIMIT_ANON_MAX, rateLimitReadMax: c.RATE_LIMIT_READ_MAX,
    maxInflightBodyBytes: c.MAX_INFLIGHT_BODY_BYTES, maxInflightItems: capabilityNumbers('MAX_INFLIGHT_ITEMS', c.MAX_INFLIGHT_ITEMS, parseInflightItems),
    queueTargetMs: capabilityNumbers('QUEUE_TARGET_MS', c.QUEUE_TARGET_MS, parseQueueTargets),
    metricsToken: c.METRICS_TOKEN, imageThreads: c.IMAGE_THREADS,
  };
}

/** What the caller decides beyond the configuration. */
export interface TransportHooks {
  /** a Kafka consumer stopped for good (services: exit for the supervisor; default: log only) */
  onFatal?: (err: Error) => void;
}

/** The Kafka transport's options the KAFKA_* settings describe. */
export function kafkaOptionsOf(c: Config, logger: Logger, hooks: TransportHooks = {}): KafkaTransportOptions {
  const sasl = c.KAFKA_SASL_MECHANISM
    ? ({ mechanism: c.KAFKA_SASL_MECHANISM, username: c.KAFKA_SASL_USERNAME, password: c.KAFKA_SASL_PASSWORD } as SASLOptions)
    : undefined;
  return {
    brokers: c.KAFKA_BROKERS.split(',').map((b) => b.trim()).filter(Boolean),
    clientId: c.KAFKA_CLIENT_ID, ssl: c.KAFKA_SSL, sasl,
    lingerMs: c.KAFKA_LINGER_MS, compression: c.KAFKA_COMPRESSION, fetchMaxWaitMs: c.KAFKA_FETCH_MAX_WAIT_MS,
    backgroundFetchMaxWaitMs: c.KAFKA_BACKGROUND_FETCH_MAX_WAIT_MS,
    replicationFactor: c.KAFKA_REPLICATION_FACTOR, sessionTimeoutMs: c.KAFKA_SESSION_TIMEOUT_MS,
    heartbeatIntervalMs: Math.max(100, Math.floor(c.KAFKA_SESSION_TIMEOUT_MS / 10)), logger: logger.child({ component: 'kafka' }),
    onFatal: hooks.onFatal,
  };
}

/** The transport TRANSPORT names: Kafka, or the embedded in-memory log. */
export function createTransport(c: Config, logger: Logger, hooks: TransportHooks = {}): Transport {
  return c.TRANSPORT === 'kafka' ? new KafkaTransport(kafkaOptionsOf(c, logger, hooks)) : new MemoryTransport({ defaultPartitions: c.TOPIC_PARTITIONS });
}
