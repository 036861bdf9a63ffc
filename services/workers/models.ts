/**
 * The models of a worker's capability: which are installed in the model repository,
 * their inference pools (instance_count threads running the model's backend, started on
 * first use or warm-up), and unloading them after MODEL_IDLE_UNLOAD_MS idle (spec: "a
 * model service shuts down after 5 idle minutes"; the pool's threads stop with it).
 */
import type { Logger } from 'pino';
import { BACKENDS, modelsOf, resultSchemaOf, type Capability } from '../capabilities/index.ts';
import type { ItemResult, ModelStatus } from '../events/contract.ts';
import type { ModelRepository } from '../models/repository.ts';
import { EngineError, type EngineContext, type RunControl } from './engines/types.ts';
import { InferencePool } from './inference-pool.ts';

/** See the module comment. */
export class WorkerModels {
  private readonly pools = new Map<string, InferencePool>();
  private readonly lastUsed = new Map<string, number>();
  private readonly loaded = new Set<string>();
  /** models kept loaded whatever their idle time (preloaded: MODEL_PRELOAD) */
  private readonly pinned = new Set<string>();

  /**
   * @param idleMs idle time after which a model is unloaded, ms
   * @param depth items queued for a model now
   */
  constructor(
    private readonly capability: Capability,
    private readonly repo: ModelRepository,
    private readonly context: EngineContext,
    private readonly idleMs: number,
    private readonly depth: (model: string) => number,
    private readonly log: Logger,
  ) {}

  /** Whether the model can run here: a valid config, its backend and its files. */
  installed(model: string): boolean { return this.repo.installed(model); }

  /** The models of the capability as a heartbeat reports them. */
  status(): ModelStatus[] {
    return modelsOf(this.capability).map((name) => {
      let cfg = null;
      try { cfg = this.repo.config(name); } catch { /* reported at start-up */ }
      return { name, installed: cfg !== null, languages: Number(cfg?.languages ?? 0), loaded: this.loaded.has(name), queueDepth: this.depth(name) };
    });
  }

  /** The model's pool, started when missing. @throws EngineError MODEL_NOT_INSTALLED */
  private pool(model: string): InferencePool {
    let pool = this.pools.get(model);
    if (!pool) {
      const cfg = this.installed(model) ? this.repo.config(model) : null;
      if (!cfg) throw new EngineError('MODEL_NOT_INSTALLED', `model ${model} is not installed`);
      pool = new InferencePool(BACKENDS[cfg.backend]!.module, this.context, cfg.instance_count, this.log.child({ model }), resultSchemaOf(this.capability));
      this.pools.set(model, pool);
    }
    return pool;
  }

  /**
   * Loads a model into its inference threads.
   * @throws EngineError MODEL_NOT_INSTALLED when it is not installed here
   */
  async load(model: string): Promise<void> {
    await this.pool(model).load(model);
    this.used(model);
    this.log.info({ model }, 'model loaded');
  }

  /**
   * Runs a micro-batch of a model on one of its threads; more than `chunk` inputs run as
   * micro-batches of `chunk` one after another (backlog dispatch).
   * @throws EngineError for a failure of the whole micro-batch; Error when its thread died
   */
  async run(model: string, inputs: unknown[], control?: RunControl, chunk?: number): Promise<ItemResult[]> {
    const results = await this.pool(model).run(model, inputs, control, chunk);
    this.used(model);
    return results;
  }

  /** Micro-batches of a model that may run at once (its instance_count; 1 when not installed). */
  instances(model: string): number {
    try { return this.repo.config(model)?.instance_count ?? 1; } catch { return 1; }
  }

  private used(model: string): void {
    this.loaded.add(model);
    this.lastUsed.set(model, Date.now());
  }

  /**
   * Loads a model and keeps it loaded (no idle unload).
   * @throws EngineError MODEL_NOT_INSTALLED when it is not installed here
   */
  async loadPinned(model: string): Promise<void> {
    this.pinned.add(model);
    await this.load(model);
  }

  /** Loads every model of a warm-up command for this capability, in the background. */
  warmUp(cmd: { capability: string; models: string[] }): void {
    if (cmd.capability !== this.capability) return;
    for (const model of cmd.models) void this.load(model).catch((err) => this.log.warn({ err, model }, 'warm-up failed'));
  }

  /** Unloads the models idle longer than the idle time with nothing queued, stopping their threads. */
  async unloadIdle(): Promise<void> {
    const now = Date.now();
    for (const model of [...this.loaded]) {
      if (this.pinned.has(model) || now - (this.lastUsed.get(model) ?? 0) < this.idleMs || this.depth(model) > 0) continue;
      this.loaded.delete(model);
      const pool = this.pools.get(model);
      this.pools.delete(model);
      await pool?.terminate().catch(() => undefined);
      this.log.info({ model }, 'model unloaded after idle time');
    }
  }

  /** Stops every pool (see InferenceThread.terminate: graceMs 0 kills at once). */
  async terminate(graceMs?: number): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((p) => p.terminate(graceMs)));
  }
}
