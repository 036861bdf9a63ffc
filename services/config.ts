/**
 * Configuration from the environment, validated by env-schema (JSON Schema, ajv)
 * with defaults applied. See README "Configuration" for the table.
 */
import { envSchema } from 'env-schema';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

const schema = {
  type: 'object',
  properties: {
    PORT: { type: 'integer', default: 8080, minimum: 0, maximum: 65535 },
    HOST: { type: 'string', default: '0.0.0.0' },
    LOG_LEVEL: { type: 'string', default: 'info', enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] },
    DATA_DIR: { type: 'string', default: resolve(ROOT, 'data') },
    MODEL_REPOSITORY: { type: 'string', default: resolve(ROOT, 'models') },
    TOPIC_PREFIX: { type: 'string', default: 'lmstream', pattern: '^[A-Za-z0-9._-]+$' },
    TOPIC_PARTITIONS: { type: 'integer', default: 4, minimum: 1, maximum: 1024 },
    REQUEST_TIMEOUT_MS: { type: 'integer', default: 30000, minimum: 1 },
    MODEL_IDLE_UNLOAD_MS: { type: 'integer', default: 300000, minimum: 1000 },
    EXECUTION_PROVIDER: { type: 'string', default: 'cpu', enum: ['cpu', 'cuda'] },
    INFERENCE_THREADS: { type: 'integer', default: 1, minimum: 1, maximum: 64 },
    API_KEYS: { type: 'string', default: '' },
    RATE_LIMIT_MAX: { type: 'integer', default: 6000, minimum: 1 },
    RATE_LIMIT_WINDOW_MS: { type: 'integer', default: 60000, minimum: 1 },
    WORKER_HEARTBEAT_MS: { type: 'integer', default: 2000, minimum: 10 },
  },
} as const;

/** The validated configuration; every field has a value. Times are in ms. */
export interface Config {
  PORT: number;
  HOST: string;
  LOG_LEVEL: string;
  /** folder of the SQLite ledger and key store */
  DATA_DIR: string;
  /** model repository: one folder per model (`<name>/config.json`, `<name>/<version>/model.onnx`) */
  MODEL_REPOSITORY: string;
  TOPIC_PREFIX: string;
  TOPIC_PARTITIONS: number;
  REQUEST_TIMEOUT_MS: number;
  MODEL_IDLE_UNLOAD_MS: number;
  /** onnxruntime execution provider */
  EXECUTION_PROVIDER: 'cpu' | 'cuda';
  INFERENCE_THREADS: number;
  /** comma-separated API keys accepted besides those of the key store */
  API_KEYS: string;
  RATE_LIMIT_MAX: number;
  RATE_LIMIT_WINDOW_MS: number;
  WORKER_HEARTBEAT_MS: number;
}

/**
 * Reads the configuration.
 * @param overrides values that win over the environment (tests)
 * @throws Error when a variable breaks its schema (message names it)
 */
export function loadConfig(overrides: Partial<Record<keyof Config, string | number>> = {}): Config {
  const data = { ...process.env, ...Object.fromEntries(Object.entries(overrides).map(([k, v]) => [k, String(v)])) };
  return envSchema<Config>({ schema, data, dotenv: false });
}
