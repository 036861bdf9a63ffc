/**
 * `config.json` of a model in the model repository (after NVIDIA Triton's model
 * configuration): the backend that runs it, batching, instances, typed inputs and outputs
 * and the version policy, checked with a JSON Schema (ajv) when the model is read; a
 * backend's own fields (features, calibration, ...) sit beside them and are checked by
 * the backend. The batching defaults live here and nowhere else.
 */
import AjvModule, { type ErrorObject } from 'ajv';
import { CAPABILITIES, type Capability } from '../capabilities/index.ts';

/** Triton's tensor data types that the project's backends use. */
export const DATA_TYPES = ['bool', 'int8', 'int32', 'int64', 'float16', 'float32', 'float64', 'string', 'bytes'] as const;

/** A typed input or output of a model: element type and dimensions (names for variable ones: N, L, C). */
export interface TensorSpec {
  data_type: (typeof DATA_TYPES)[number];
  dims: Array<number | string>;
  /** what it holds */
  doc?: string;
}

/** The dynamic batcher's settings (Triton's `dynamic_batching`). */
export interface DynamicBatching {
  /** longest wait for a micro-batch to fill, ms; 0 = what the current event-loop turn queued */
  max_queue_delay_ms: number;
  /** most items queued for the model */
  max_queue_size: number;
  /** batch sizes the backend runs best at, largest first (a micro-batch is cut to the largest that fits) */
  preferred_batch_size?: number[];
  /**
   * Continuous batching (the generative backends, whose items take seconds): each item is
   * handed to the backend as soon as one of its `max_batch_size` slots per instance is free
   * and answered as soon as it is done, instead of waiting for a micro-batch to fill and
   * for its slowest item; the backend evaluates the items in flight together (llama.cpp
   * sequences of one context). `max_queue_delay_ms` and `preferred_batch_size` do not apply.
   */
  continuous?: boolean;
}

/** Which version folders serve (Triton's `version_policy`): the highest, or a named one. */
export type VersionPolicy = { latest: Record<string, never> } | { specific: { version: number } };

/** `config.json` with every default applied. Backends read their own extra fields. */
export interface ModelConfig {
  name: string;
  capability: Capability;
  /** the backend that runs the model (a capability module's `backends`, services/capabilities/) */
  backend: string;
  /** largest micro-batch, items */
  max_batch_size: number;
  dynamic_batching: DynamicBatching;
  /** inference threads that run this model at once */
  instance_count: number;
  version_policy: VersionPolicy;
  /** file of a version folder that holds the weights */
  model_file: string;
  /**
   * Weights kept outside the version folders (a GGUF file an operator supplies): paths
   * tried in order, relative to the model's folder or absolute, with `${VAR}` replaced by
   * the environment variable (a path whose variable is unset is skipped), e.g.
   * `["${MODEL_WEIGHTS_DIR}/purplemist-flash-1.0.gguf", "1/model.gguf"]`. The first file
   * that exists serves, as version 1; none = not installed.
   */
  weights?: string[];
  /** typed inputs (absent for a model with `weights`: the GGUF file declares its own) */
  inputs: Record<string, TensorSpec>;
  outputs: Record<string, TensorSpec>;
  [field: string]: unknown;
}

/** Defaults of the optional fields. */
export const MODEL_DEFAULTS = {
  max_batch_size: 32,
  dynamic_batching: { max_queue_delay_ms: 5, max_queue_size: 1024 },
  instance_count: 1,
  version_policy: { latest: {} },
  model_file: 'model.onnx',
} as const;

const TENSOR = {
  type: 'object', required: ['data_type', 'dims'], additionalProperties: false,
  properties: {
    data_type: { enum: [...DATA_TYPES] },
    dims: { type: 'array', minItems: 1, items: { anyOf: [{ type: 'integer', minimum: -1 }, { type: 'string', pattern: '^[A-Z]$' }] } },
    doc: { type: 'string' },
  },
} as const;

/** The JSON Schema of config.json. */
export const MODEL_CONFIG_SCHEMA = {
  type: 'object',
  required: ['name', 'capability', 'backend'],
  properties: {
    name: { type: 'string', pattern: '^[A-Za-z0-9._-]+$' },
    capability: { enum: [...CAPABILITIES] },
    backend: { type: 'string', pattern: '^[a-z0-9.-]+$' },
    max_batch_size: { type: 'integer', minimum: 1, maximum: 65536 },
    dynamic_batching: {
      type: 'object', additionalProperties: false,
      properties: {
        max_queue_delay_ms: { type: 'number', minimum: 0, maximum: 60_000 },
        max_queue_size: { type: 'integer', minimum: 1 },
        preferred_batch_size: { type: 'array', items: { type: 'integer', minimum: 1 } },
        continuous: { type: 'boolean' },
      },
    },
    instance_count: { type: 'integer', minimum: 1, maximum: 64 },
    version_policy: {
      oneOf: [
        { type: 'object', required: ['latest'], additionalProperties: false, properties: { latest: { type: 'object', additionalProperties: false } } },
        { type: 'object', required: ['specific'], additionalProperties: false, properties: { specific: { type: 'object', required: ['version'], additionalProperties: false, properties: { version: { type: 'integer', minimum: 1 } } } } },
      ],
    },
    model_file: { type: 'string', pattern: '^[A-Za-z0-9._-]+$' },
    weights: { type: 'array', minItems: 1, maxItems: 16, items: { type: 'string', minLength: 1, maxLength: 4096 } },
    inputs: { type: 'object', minProperties: 1, additionalProperties: TENSOR },
    outputs: { type: 'object', minProperties: 1, additionalProperties: TENSOR },
  },
  // a model with version folders (an ONNX graph) declares its tensors; a GGUF model's
  // weights file declares its own
  if: { not: { required: ['weights'] } },
  then: { required: ['inputs', 'outputs'] },
} as const;

const Ajv = AjvModule.default ?? AjvModule;
const validate = new Ajv({ allErrors: false, strict: false }).compile(MODEL_CONFIG_SCHEMA);

/** A config.json that breaks its schema; the message names the file and the field. */
export class ModelConfigError extends Error {
  readonly code = 'MODEL_CONFIG_INVALID';
  constructor(message: string) {
    super(message);
    this.name = 'ModelConfigError';
  }
}

const where = (e: ErrorObject) => (e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : '(top level)');

/**
 * Checks a parsed config.json and applies the defaults.
 * @param file its path, for messages
 * @param folder the model's folder name, which must be its `name`
 * @throws ModelConfigError naming the file and the field
 */
export function parseModelConfig(raw: unknown, file: string, folder: string): ModelConfig {
  if (!validate(raw)) {
    const e = validate.errors![0]!;
    throw new ModelConfigError(`${file}: ${where(e)} ${e.message ?? 'is invalid'}${e.params && 'allowedValues' in e.params ? ` (${(e.params.allowedValues as unknown[]).join(', ')})` : ''}`);
  }
  const cfg = raw as Partial<ModelConfig> & { name: string };
  if (cfg.name !== folder) throw new ModelConfigError(`${file}: name "${cfg.name}" is not the folder's name "${folder}"`);
  return {
    ...MODEL_DEFAULTS, inputs: {}, outputs: {}, ...cfg,
    dynamic_batching: { ...MODEL_DEFAULTS.dynamic_batching, ...cfg.dynamic_batching },
  } as ModelConfig;
}
