/**
 * Options of a capability worker (services/workers/worker.ts): what it is given to work
 * with, and its settings, validated with their defaults (services/lib/options.ts). The
 * composition root maps the environment onto the settings (services/compose.ts; README,
 * "Configuration", names the variables).
 */
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import type { Capability } from '../capabilities/index.ts';
import type { EventCodec } from '../events/codec.ts';
import { TOPIC_PARTITIONS, TOPIC_PREFIX, resolveSettings, type SettingsSchema } from '../lib/options.ts';
import type { Transport } from '../transport/types.ts';
import type { BatchPolicy } from './batcher.ts';

/** Settings of a worker. Times in ms. */
export interface WorkerSettings {
  /** first part of its topic and consumer-group names (TOPIC_PREFIX) */
  topicPrefix: string;
  /** partitions of the request topic when the worker creates it (TOPIC_PARTITIONS) */
  partitions: number;
  /** model repository folder (MODEL_REPOSITORY) */
  modelRepository: string;
  /** onnxruntime execution provider (EXECUTION_PROVIDER) */
  executionProvider: 'cpu' | 'cuda';
  /** onnxruntime intra-op threads per inference thread (INFERENCE_THREADS) */
  inferenceThreads: number;
  /** idle time after which a model's inference pool stops (MODEL_IDLE_UNLOAD_MS; spec: 5 idle minutes); preloaded models stay */
  modelIdleUnloadMs: number;
  /**
   * models loaded when the worker starts, and kept loaded (MODEL_PRELOAD): `none`; `default`,
   * the capability's default model (the model of a request that names none); `all`, every
   * model of the capability. Models not installed here are left out.
   */
  preload: 'none' | 'default' | 'all';
  /** heartbeat period on the workers topic (WORKER_HEARTBEAT_MS) */
  heartbeatMs: number;
  /** consumed batches per request partition worked on at once; offsets still committed in order (WORKER_MAX_IN_FLIGHT_BATCHES) */
  maxInFlightBatches: number;
  /** tries of a crashing item before it goes to the dead-letter topic (DLQ_MAX_ATTEMPTS) */
  dlqMaxAttempts: number;
  /** write outcome events of bulk items for analytics (OUTCOME_EVENTS) */
  outcomeEvents: boolean;
  /**
   * backlog dispatch: while a model's queue holds this many full micro-batches, they go
   * to its inference thread in one call and their results out in one produce (1: off;
   * WORKER_BACKLOG_MICRO_BATCHES)
   */
  backlogMicroBatches: number;
}

/** JSON Schema of {@link WorkerSettings}: types, bounds and defaults. */
export const WORKER_SETTINGS_SCHEMA: SettingsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    topicPrefix: TOPIC_PREFIX,
    partitions: TOPIC_PARTITIONS,
    modelRepository: { type: 'string', default: fileURLToPath(new URL('../../models', import.meta.url)) },
    executionProvider: { type: 'string', default: 'cpu', enum: ['cpu', 'cuda'] },
    inferenceThreads: { type: 'integer', default: 1, minimum: 1, maximum: 64 },
    modelIdleUnloadMs: { type: 'integer', default: 300_000, minimum: 1000 },
    preload: { type: 'string', default: 'default', enum: ['none', 'default', 'all'] },
    heartbeatMs: { type: 'integer', default: 2000, minimum: 10 },
    maxInFlightBatches: { type: 'integer', default: 8, minimum: 1 },
    dlqMaxAttempts: { type: 'integer', default: 3, minimum: 1 },
    outcomeEvents: { type: 'boolean', default: true },
    backlogMicroBatches: { type: 'integer', default: 4, minimum: 1, maximum: 64 },
  },
};

/**
 * A worker's settings: validated, defaults applied.
 * @throws OptionsError naming the setting that breaks its schema
 */
export const workerSettings = (input: Partial<WorkerSettings> = {}): WorkerSettings => resolveSettings('worker', WORKER_SETTINGS_SCHEMA, input);

/** What a worker is built with. */
export interface WorkerOptions {
  capability: Capability;
  transport: Transport;
  codec: EventCodec;
  logger: Logger;
  /** its settings; each one left out takes its default */
  settings?: Partial<WorkerSettings>;
  /** unique per process; default a random UUID */
  instanceId?: string;
  /** batching settings that win over every model's config.json (BATCH_MAX_QUEUE_DELAY_MS; tests) */
  batchPolicy?: Partial<BatchPolicy>;
}
