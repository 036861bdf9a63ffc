/**
 * The models of a worker's capability: which are installed in the model repository,
 * which are loaded in its inference thread, loading them (on first use and on warm-up
 * commands) and unloading them after MODEL_IDLE_UNLOAD_MS idle (spec: "a model service
 * shuts down after 5 idle minutes").
 */
import type { Logger } from 'pino';
import { modelsOf, type Capability } from '../capabilities.ts';
import type { ModelStatus } from '../events/contract.ts';
import type { ModelRepository } from '../models/repository.ts';
import { EngineError } from './engines/types.ts';
import type { InferenceThread } from './inference-pool.ts';

/** See the module comment. */
export class WorkerModels {
  private readonly lastUsed = new Map<string, number>();
  private readonly loaded = new Set<string>();

  /**
   * @param thread the inference thread; undefined when the capability has no engine yet
   * @param idleMs idle time after which a model is unloaded, ms
   * @param depth items queued for a model now
   */
  constructor(
    private readonly capability: Capability,
    private readonly repo: ModelRepository,
    private readonly thread: InferenceThread | undefined,
    private readonly idleMs: number,
    private readonly depth: (model: string) => number,
    private readonly log: Logger,
  ) {}

  /** Whether the model can run here: an engine and the model's files. */
  installed(model: string): boolean { return this.thread !== undefined && this.repo.installed(model); }

  /** The models of the capability as a heartbeat reports them. */
  status(): ModelStatus[] {
    return modelsOf(this.capability).map((name) => {
      const cfg = this.thread ? this.repo.config(name) : null;
      return { name, installed: cfg !== null, languages: Number(cfg?.languages ?? 0), loaded: this.loaded.has(name), queueDepth: this.depth(name) };
    });
  }

  /** Notes that a model ran (it is loaded, and not idle). */
  used(model: string): void {
    this.loaded.add(model);
    this.lastUsed.set(model, Date.now());
  }

  /**
   * Loads a model into the inference thread.
   * @throws EngineError MODEL_NOT_INSTALLED when it is not installed here
   */
  async load(model: string): Promise<void> {
    if (!this.thread || !this.repo.installed(model)) throw new EngineError('MODEL_NOT_INSTALLED', `model ${model} is not installed`);
    await this.thread.load(model);
    this.used(model);
    this.log.info({ model }, 'model loaded');
  }

  /** Loads every model of a warm-up command for this capability, in the background. */
  warmUp(cmd: { capability: string; models: string[] }): void {
    if (cmd.capability !== this.capability) return;
    for (const model of cmd.models) void this.load(model).catch((err) => this.log.warn({ err, model }, 'warm-up failed'));
  }

  /** Unloads the models idle longer than the idle time with nothing queued. */
  async unloadIdle(): Promise<void> {
    const now = Date.now();
    for (const model of [...this.loaded]) {
      if (now - (this.lastUsed.get(model) ?? 0) < this.idleMs || this.depth(model) > 0) continue;
      this.loaded.delete(model);
      await this.thread?.unload(model).catch(() => undefined);
      this.log.info({ model }, 'model unloaded after idle time');
    }
  }
}
