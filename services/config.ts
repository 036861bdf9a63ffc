/**
 * Configuration from the environment, validated by env-schema (JSON Schema, ajv)
 * with defaults applied. See README "Configuration" for the table. A variable that maps
 * onto a component's setting takes its type, default and bounds from the component's
 * options schema (services/workers/options.ts, services/gateway/options.ts,
 * services/transport/kafka/options.ts), so they are written once; services/compose.ts
 * maps the configuration onto each component's options.
 */
import { envSchema } from 'env-schema';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import { GATEWAY_SETTINGS_SCHEMA as G } from './gateway/options.ts';
import { TOPIC_PARTITIONS, TOPIC_PREFIX, envProperty } from './lib/options.ts';
import { KAFKA_SETTINGS_SCHEMA as K } from './transport/kafka/options.ts';
import { WORKER_SETTINGS_SCHEMA as W } from './workers/options.ts';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

const schema = {
  type: 'object',
  properties: {
    PORT: { type: 'integer', default: 8080, minimum: 0, maximum: 65535 },
    HOST: { type: 'string', default: '0.0.0.0' },
    LOG_LEVEL: { type: 'string', default: 'info', enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] },
    LOG_REQUESTS: envProperty(G, 'logRequests'),
    OUTCOME_EVENTS: envProperty(G, 'outcomeEvents'),
    DATA_DIR: { type: 'string', default: resolve(ROOT, 'data') },
    MODEL_REPOSITORY: envProperty(W, 'modelRepository'),
    TOPIC_PREFIX,
    TOPIC_PARTITIONS,
    REQUEST_TIMEOUT_MS: envProperty(G, 'requestTimeoutMs'),
    MODEL_IDLE_UNLOAD_MS: envProperty(W, 'modelIdleUnloadMs'),
    MODEL_PRELOAD: envProperty(W, 'preload'),
    EXECUTION_PROVIDER: envProperty(W, 'executionProvider'),
    INFERENCE_THREADS: envProperty(W, 'inferenceThreads'),
    // read where they are used, in the inference threads (services/llm/llama.ts, the
    // model repository's `weights` paths, services/capabilities/extract/ocr.ts); checked here at start
    LLAMA_GPU: { type: 'string', default: 'auto', enum: ['auto', 'false', 'cuda', 'vulkan', 'metal'] },
    MODEL_WEIGHTS_DIR: { type: 'string', default: '' },
    TESSDATA_PREFIX: { type: 'string', default: '' },
    API_KEYS: { type: 'string', default: '' },
    API_ADMIN_KEYS: { type: 'string', default: '' },
    RATE_LIMIT_MAX: envProperty(G, 'rateLimitMax'),
    RATE_LIMIT_WINDOW_MS: envProperty(G, 'rateLimitWindowMs'),
    RATE_LIMIT_ANON_MAX: envProperty(G, 'rateLimitAnonMax'),
    RATE_LIMIT_READ_MAX: envProperty(G, 'rateLimitReadMax'),
    TRUST_PROXY: envProperty(G, 'trustProxy'),
    BODY_TIMEOUT_MS: envProperty(G, 'bodyTimeoutMs'),
    MAX_INFLIGHT_BODY_BYTES: envProperty(G, 'maxInflightBodyBytes'),
    MAX_INFLIGHT_ITEMS: { type: 'string', default: '', pattern: '^([a-z-]+=\\d+)?(,[a-z-]+=\\d+)*$' },
    QUEUE_TARGET_MS: { type: 'string', default: '', pattern: '^([a-z-]+=\\d+)?(,[a-z-]+=\\d+)*$' },
    SHUTDOWN_GRACE_MS: envProperty(G, 'shutdownGraceMs'),
    HEALTH_PORT: { type: 'integer', default: 0, minimum: 0, maximum: 65535 },
    LIVENESS_STALL_MS: { type: 'integer', default: 10000, minimum: 1000 },
    METRICS_TOKEN: envProperty(G, 'metricsToken'),
    IMAGE_THREADS: envProperty(G, 'imageThreads'),
    WORKER_HEARTBEAT_MS: envProperty(W, 'heartbeatMs'),
    TRANSPORT: { type: 'string', default: 'memory', enum: ['memory', 'kafka'] },
    KAFKA_BROKERS: { type: 'string', default: 'localhost:9092' },
    KAFKA_CLIENT_ID: envProperty(K, 'clientId'),
    KAFKA_SSL: envProperty(K, 'ssl'),
    KAFKA_SASL_MECHANISM: { type: 'string', default: '', enum: ['', 'plain', 'scram-sha-256', 'scram-sha-512'] },
    KAFKA_SASL_USERNAME: { type: 'string', default: '' },
    KAFKA_SASL_PASSWORD: { type: 'string', default: '' },
    KAFKA_LINGER_MS: envProperty(K, 'lingerMs'),
    KAFKA_COMPRESSION: envProperty(K, 'compression'),
    KAFKA_FETCH_MAX_WAIT_MS: envProperty(K, 'fetchMaxWaitMs'),
    KAFKA_BACKGROUND_FETCH_MAX_WAIT_MS: envProperty(K, 'backgroundFetchMaxWaitMs'),
    WORKER_MAX_IN_FLIGHT_BATCHES: envProperty(W, 'maxInFlightBatches'),
    WORKER_BACKLOG_MICRO_BATCHES: envProperty(W, 'backlogMicroBatches'),
    KAFKA_REPLICATION_FACTOR: envProperty(K, 'replicationFactor'),
    SCHEMA_REGISTRY_URL: { type: 'string', default: '' },
    SCHEMA_REGISTRY_PORT: { type: 'integer', default: 8081, minimum: 0, maximum: 65535 },
    DATABASE_URL: { type: 'string', default: '' },
    DLQ_MAX_ATTEMPTS: envProperty(W, 'dlqMaxAttempts'),
    KAFKA_SESSION_TIMEOUT_MS: envProperty(K, 'sessionTimeoutMs'),
    BATCH_MAX_QUEUE_DELAY_MS: { type: 'integer', default: -1, minimum: -1 },
    ANALYTICS_MINUTES_RETENTION_MS: { type: 'integer', default: 7 * 86_400_000, minimum: 3_600_000 },
    ANALYTICS_HOURS_RETENTION_MS: { type: 'integer', default: 400 * 86_400_000, minimum: 86_400_000 },
  },
};

/** Names of every environment variable the services read (deploy files are checked against it). */
export const CONFIG_KEYS: readonly string[] = Object.keys(schema.properties);

/** The validated configuration; every field has a value. Times are in ms. */
export interface Config {
  PORT: number;
  HOST: string;
  LOG_LEVEL: string;
  /** one log line per HTTP request and response (Fastify request logging) */
  LOG_REQUESTS: boolean;
  /** write outcome events for analytics (gateways and workers) */
  OUTCOME_EVENTS: boolean;
  /** folder of the SQLite ledger and key store */
  DATA_DIR: string;
  /** model repository: one folder per model (`<name>/config.json`, `<name>/<version>/model.onnx`) */
  MODEL_REPOSITORY: string;
  /** llama.cpp backend of the generative models: auto, false, cuda, vulkan, metal */
  LLAMA_GPU: string;
  /** folder of operator-supplied GGUF weights (config.json `weights` names `${MODEL_WEIGHTS_DIR}/<model>.gguf`) */
  MODEL_WEIGHTS_DIR: string;
  /** folder of Tesseract language data, searched before Debian's */
  TESSDATA_PREFIX: string;
  /** analytics: how long one-minute buckets are kept before they are rolled up into hours, ms */
  ANALYTICS_MINUTES_RETENTION_MS: number;
  /** analytics: how long hour buckets are kept, ms */
  ANALYTICS_HOURS_RETENTION_MS: number;
  TOPIC_PREFIX: string;
  TOPIC_PARTITIONS: number;
  REQUEST_TIMEOUT_MS: number;
  MODEL_IDLE_UNLOAD_MS: number;
  MODEL_PRELOAD: 'none' | 'default' | 'all';
  /** onnxruntime execution provider */
  EXECUTION_PROVIDER: 'cpu' | 'cuda';
  INFERENCE_THREADS: number;
  /** comma-separated API keys accepted besides those of the key store */
  API_KEYS: string;
  /** comma-separated admin keys accepted besides stored ones (GET /v1/analytics shows every key's traffic) */
  API_ADMIN_KEYS: string;
  /** billable units one API key may ask for per window, over every route together (429 beyond) */
  RATE_LIMIT_MAX: number;
  /** the rate-limit window, ms */
  RATE_LIMIT_WINDOW_MS: number;
  /** requests per window from one client address without a valid key: failed authentication and the public GET routes */
  RATE_LIMIT_ANON_MAX: number;
  RATE_LIMIT_READ_MAX: number;
  /** Fastify `trustProxy`: '' (the socket's address is the client's), `true`, a hop count, or comma-separated proxy addresses/CIDRs */
  TRUST_PROXY: string;
  /** longest time to receive a whole request (headers and body), ms; 408 after it */
  BODY_TIMEOUT_MS: number;
  /** request bodies (declared sizes, bytes) a gateway reads and holds at once; 503 beyond */
  MAX_INFLIGHT_BODY_BYTES: number;
  /** items a gateway has in flight per capability, `capability=N,...` over the defaults (services/gateway/load-shedding.ts); 503 beyond */
  MAX_INFLIGHT_ITEMS: string;
  /** queue wait tolerated per capability, ms, `capability=ms,...` over the defaults; the in-flight limit adapts to it (services/gateway/load-shedding.ts) */
  QUEUE_TARGET_MS: string;
  /** longest time from SIGTERM/SIGINT to exit, ms */
  SHUTDOWN_GRACE_MS: number;
  /** port of the health thread's /health and /ready (services/health); 0 = none */
  HEALTH_PORT: number;
  /** the health port's /health fails when the main event loop has not turned for this long, ms */
  LIVENESS_STALL_MS: number;
  /** bearer token of GET /metrics; empty = /metrics answers 403 */
  METRICS_TOKEN: string;
  /** threads that check and decode extraction images (services/capabilities/extract/images.ts) */
  IMAGE_THREADS: number;
  WORKER_HEARTBEAT_MS: number;
  /** event log: `memory` (embedded) or `kafka` */
  TRANSPORT: 'memory' | 'kafka';
  /** comma-separated host:port list */
  KAFKA_BROKERS: string;
  KAFKA_CLIENT_ID: string;
  KAFKA_SSL: boolean;
  KAFKA_SASL_MECHANISM: '' | 'plain' | 'scram-sha-256' | 'scram-sha-512';
  KAFKA_SASL_USERNAME: string;
  KAFKA_SASL_PASSWORD: string;
  /** producer linger, ms */
  KAFKA_LINGER_MS: number;
  KAFKA_COMPRESSION: 'none' | 'gzip';
  /** broker wait on an empty fetch, ms */
  KAFKA_FETCH_MAX_WAIT_MS: number;
  /** the same for consumers off the request path: billing, worker heartbeats, control commands */
  KAFKA_BACKGROUND_FETCH_MAX_WAIT_MS: number;
  /** consumed batches per request partition a worker works on at once (offsets still committed in order) */
  WORKER_MAX_IN_FLIGHT_BATCHES: number;
  /** micro-batches a worker hands its inference thread in one call while that many wait (1: off) */
  WORKER_BACKLOG_MICRO_BATCHES: number;
  KAFKA_REPLICATION_FACTOR: number;
  /** Confluent-compatible registry; empty in Kafka mode = this process serves its own */
  SCHEMA_REGISTRY_URL: string;
  /** port of the project's own registry when it is served */
  SCHEMA_REGISTRY_PORT: number;
  /** PostgreSQL URL of the ledger and key store in distributed mode; empty = SQLite under DATA_DIR */
  DATABASE_URL: string;
  /** attempts before a failing request item goes to the dead-letter topic */
  DLQ_MAX_ATTEMPTS: number;
  /** consumer session timeout: how long a dead worker keeps its partitions, ms */
  KAFKA_SESSION_TIMEOUT_MS: number;
  /** when >= 0, overrides every model's max_queue_delay_ms */
  BATCH_MAX_QUEUE_DELAY_MS: number;
}

/**
 * Where a store lives: DATABASE_URL (PostgreSQL) when set, else a SQLite file in DATA_DIR.
 * @param file SQLite file name, e.g. `ledger.db`
 */
export function storeTarget(config: Pick<Config, 'DATABASE_URL' | 'DATA_DIR'>, file: string): string {
  return config.DATABASE_URL || resolve(config.DATA_DIR, file);
}

/**
 * Reads the configuration.
 * @param overrides values that win over the environment (tests)
 * @throws Error when a variable breaks its schema (message names it)
 */
export function loadConfig(overrides: Partial<Record<keyof Config, string | number>> = {}): Config {
  const data: Record<string, string | undefined> = { ...process.env, ...Object.fromEntries(Object.entries(overrides).map(([k, v]) => [k, String(v)])) };
  try {
    return envSchema<Config>({ schema, data, dotenv: false });
  } catch (err) {
    throw configError(err, data);
  }
}

/** Variables whose values are secrets: a configuration error names them, never shows them. */
const SECRET = /KEY|TOKEN|PASSWORD|SECRET|DATABASE_URL|USERNAME/;

/** An invalid configuration: one variable, its value and the rule it breaks. */
export class ConfigError extends Error {
  readonly code = 'CONFIG_INVALID';
  /** the variable */
  readonly variable: string;
  constructor(variable: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ConfigError';
    this.variable = variable;
  }
}

/**
 * The {@link ConfigError} of env-schema's error (ajv's first error): `PORT="abc" must be
 * integer`, `LOG_LEVEL="loud" must be one of fatal, error, ...`; a secret's value is not shown.
 */
function configError(err: unknown, data: Record<string, string | undefined>): Error {
  const first = (err as { errors?: Array<{ instancePath: string; keyword: string; message?: string; params: Record<string, unknown> }> }).errors?.[0];
  if (!first) return err as Error;
  const variable = first.instancePath.replace(/^\//, '');
  const raw = data[variable];
  const value = raw === undefined ? '(not set)' : SECRET.test(variable) ? '(secret, not shown)' : JSON.stringify(raw.length > 80 ? `${raw.slice(0, 80)}…` : raw);
  const rule = first.keyword === 'enum' ? `must be one of ${(first.params.allowedValues as unknown[]).join(', ')}` : first.message ?? first.keyword;
  return new ConfigError(variable, `configuration: ${variable}=${value} ${rule} (README, "Configuration")`, { cause: err });
}
