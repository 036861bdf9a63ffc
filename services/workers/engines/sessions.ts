/**
 * The loaded models of an engine: each opened once (concurrent loads share one promise),
 * opened again after a failed load, and released on unload. Used by every backend: those
 * whose models hold an onnxruntime session release it; others (llama.cpp) say how to close.
 */
import type { InferenceSession } from 'onnxruntime-node';

/** What a backend loads for one model: at least its onnxruntime session. */
export interface LoadedModel { session: InferenceSession; }

/** See the module comment. */
export class LoadedModels<T> {
  private readonly models = new Map<string, Promise<T>>();

  /**
   * @param open loads a model; throws EngineError MODEL_NOT_INSTALLED when it is not installed
   * @param close frees a loaded model (default: release its onnxruntime session)
   */
  constructor(private readonly open: (name: string) => Promise<T>, private readonly close: (model: T) => Promise<void> = (m) => (m as LoadedModel).session.release()) {}

  /** The loaded model, loading it on first use. @throws what `open` throws */
  get(name: string): Promise<T> {
    let p = this.models.get(name);
    if (!p) {
      p = this.open(name);
      this.models.set(name, p);
      p.catch(() => this.models.delete(name));
    }
    return p;
  }

  /** Releases a model's session (nothing when it is not loaded). */
  async unload(name: string): Promise<void> {
    const p = this.models.get(name);
    this.models.delete(name);
    if (p) await this.close(await p);
  }
}
