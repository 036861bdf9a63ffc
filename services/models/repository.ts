/**
 * The model repository (Triton-style): one folder per model,
 * `<root>/<name>/config.json` and `<root>/<name>/<version>/model.onnx`.
 * A model is installed when both exist.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** `config.json` of a model; engines read their own extra fields. */
export interface ModelConfig {
  name: string;
  capability: string;
  platform: string;
  /** version folder holding model.onnx */
  version: number;
  /** largest micro-batch, items */
  max_batch_size: number;
  /** longest wait for a micro-batch to fill, ms; 0 = what the current event-loop turn queued */
  max_queue_delay_ms: number;
  /** most items queued for this model; more are refused with 503 */
  max_queue_size: number;
  [field: string]: unknown;
}

/** Defaults of the batching fields when config.json leaves them out. */
export const BATCH_DEFAULTS = { max_batch_size: 32, max_queue_delay_ms: 5, max_queue_size: 1024 } as const;

/** Reads models from a repository folder. */
export class ModelRepository {
  private readonly cache = new Map<string, { cfg: ModelConfig | null; until: number }>();

  /** @param cacheMs how long a read config (or its absence) is reused, ms: a model installed meanwhile is seen after this */
  constructor(readonly root: string, private readonly cacheMs = 5000) {}

  /** Folder of a model. */
  dir(name: string): string { return join(this.root, name); }

  /**
   * Config of an installed model.
   * @returns null when the folder, config.json or the version's model.onnx is missing
   * @throws SyntaxError when config.json is not JSON
   */
  config(name: string): ModelConfig | null {
    const hit = this.cache.get(name);
    if (hit && hit.until > Date.now()) return hit.cfg;
    const cfg = this.read(name);
    this.cache.set(name, { cfg, until: Date.now() + this.cacheMs });
    return cfg;
  }

  private read(name: string): ModelConfig | null {
    if (!/^[A-Za-z0-9._-]+$/.test(name)) return null;
    const file = join(this.dir(name), 'config.json');
    if (!existsSync(file)) return null;
    const cfg = { ...BATCH_DEFAULTS, version: 1, ...JSON.parse(readFileSync(file, 'utf8')) } as ModelConfig;
    return existsSync(this.modelPath(name, cfg)) ? cfg : null;
  }

  /** Path of the ONNX file of a model version. */
  modelPath(name: string, cfg: Pick<ModelConfig, 'version'>): string {
    return join(this.dir(name), String(cfg.version), 'model.onnx');
  }

  /** Whether a model is installed. */
  installed(name: string): boolean {
    return this.config(name) !== null;
  }
}
