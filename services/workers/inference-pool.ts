/**
 * The main-thread side of the inference threads. An InferenceThread sends load/unload/run
 * messages to one thread and matches the answers; it starts a new thread when one dies,
 * failing the calls in flight (their items are not committed, so the event log delivers
 * them again). An InferencePool is a model's instance_count threads.
 */
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { isErrorCode } from '../lib/errors.ts';
import { EngineError, failedToRun, type EngineContext, type RunControl } from './engines/types.ts';
import type { ItemResult } from '../events/contract.ts';
import type { ResultSchema } from '../events/codec.ts';
import { decodeResults } from './result-wire.ts';

const THREAD_URL = new URL(`./inference-thread${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url);
const BOOTSTRAP_URL = new URL('./thread-bootstrap.mjs', import.meta.url);
/** Wait before starting a new thread after one died, ms (so a thread that cannot start does not spin). */
const RESPAWN_DELAY_MS = 500;

/** One inference thread running one engine module. */
export class InferenceThread {
  private worker!: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, { model: string; resolve(v: unknown): void; reject(e: Error): void }>();
  /** calls sent and not answered (terminate waits for them: see terminate) */
  private readonly inFlight = new Set<Promise<unknown>>();
  private closed = false;
  /** set while a new thread is about to start after one died: calls wait for it */
  private respawning?: Promise<void>;

  /**
   * @param engineUrl URL of the engine module (exports `createEngine`)
   * @param context settings for the engine
   * @param resultSchema the capability's result schema: results then cross as Avro
   *   (result-wire.ts); without it, as objects (an engine whose results have no schema)
   */
  constructor(private readonly engineUrl: URL, private readonly context: EngineContext, private readonly log: Logger, private readonly resultSchema?: ResultSchema) {
    this.spawn();
  }

  private spawn(): void {
    this.worker = new Worker(BOOTSTRAP_URL, {
      workerData: { entry: THREAD_URL.href, engine: this.engineUrl.href, context: this.context, resultSchema: this.resultSchema },
    });
    this.worker.unref();
    this.worker.on('message', (m: { id: number; ok: boolean; results?: unknown; causes?: string[]; error?: string; code?: string }) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      // micro-batches of a chunked run that failed (answered INFERENCE_FAILED): their causes
      for (const error of m.causes ?? []) this.log.error({ model: p.model, error }, 'inference failed');
      if (m.ok) {
        if (!(m.results instanceof Uint8Array)) p.resolve(m.results);
        else {
          try { p.resolve(decodeResults(this.resultSchema!, m.results)); } catch (err) { p.reject(err as Error); }
        }
      }
      else if (isErrorCode(m.code)) p.reject(new EngineError(m.code, m.error ?? 'inference failed'));
      else {
        // details (paths, stack) stay in the log; the items' answer names the model only
        this.log.error({ model: p.model, error: m.error }, 'inference failed');
        p.reject(new EngineError('INFERENCE_FAILED', failedToRun(p.model)));
      }
    });
    this.worker.on('error', (err) => this.log.error({ err }, 'inference thread error'));
    this.worker.on('exit', (code) => {
      const err = new Error(`inference thread exited with code ${code}`);
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
      if (!this.closed) {
        this.log.warn({ code }, 'inference thread exited; starting a new one');
        // calls made meanwhile wait for the new thread (posted to the dead one they were lost)
        this.respawning = new Promise<void>((r) => setTimeout(r, RESPAWN_DELAY_MS)).then(() => {
          this.respawning = undefined;
          if (!this.closed) this.spawn();
        });
      }
    });
  }

  private call<T>(op: string, model: string, inputs?: unknown[], control?: RunControl, chunk?: number): Promise<T> {
    if (this.closed) return Promise.reject(new Error('inference thread is stopped'));
    const send = () => new Promise<T>((resolve, reject) => {
      if (this.closed) { reject(new Error('inference thread is stopped')); return; }
      const id = this.nextId++;
      this.pending.set(id, { model, resolve: resolve as (v: unknown) => void, reject });
      this.worker.postMessage({ id, op, model, inputs, control, chunk });
    });
    const call = this.respawning ? this.respawning.then(send) : send();
    this.inFlight.add(call);
    void call.catch(() => undefined).finally(() => this.inFlight.delete(call));
    return call;
  }

  /** Loads a model. @throws EngineError(503) when it is not installed */
  load(model: string): Promise<void> { return this.call('load', model); }
  /** Frees a model's session. */
  unload(model: string): Promise<void> { return this.call('unload', model); }
  /**
   * Runs a micro-batch, or several of at most `chunk` items one after another (backlog
   * dispatch: a failure of one of them is its items' answer). @returns one result per input
   * @throws EngineError for a failure of the whole micro-batch; Error when the thread died
   */
  run<O>(model: string, inputs: unknown[], control?: RunControl, chunk?: number): Promise<Array<ItemResult<O>>> { return this.call('run', model, inputs, control, chunk); }

  /**
   * Stops the thread: takes no more calls, waits up to `graceMs` for the calls in flight
   * (a thread terminated while onnxruntime creates a session aborts the whole process
   * with a native `Napi::Error`, as a warm-up followed at once by SIGTERM did), then
   * terminates it; calls still in flight then fail.
   * @param graceMs 0 kills it at once (crash tests)
   */
  async terminate(graceMs = 10_000): Promise<void> {
    this.closed = true;
    if (graceMs > 0 && this.inFlight.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.allSettled([...this.inFlight]), new Promise((r) => { timer = setTimeout(r, graceMs); })]);
      clearTimeout(timer);
    }
    await this.worker.terminate();
  }
}

/**
 * The inference threads of one model: `size` threads (its instance_count) running its
 * backend's engine; each micro-batch goes to the thread with the fewest calls in flight,
 * so up to `size` micro-batches of the model run at once.
 */
export class InferencePool {
  private readonly threads: InferenceThread[];
  private readonly calls: number[];

  /**
   * @param engineUrl the backend's engine module
   * @param size threads, at least 1
   * @param resultSchema see {@link InferenceThread}
   */
  constructor(engineUrl: URL, context: EngineContext, size: number, log: Logger, resultSchema?: ResultSchema) {
    this.threads = Array.from({ length: Math.max(1, size) }, (_, i) => new InferenceThread(engineUrl, context, log.child({ instance: i }), resultSchema));
    this.calls = this.threads.map(() => 0);
  }

  /** Threads of the pool. */
  get size(): number { return this.threads.length; }

  /** Loads the model in every thread. @throws EngineError MODEL_NOT_INSTALLED when it is not installed */
  async load(model: string): Promise<void> { await Promise.all(this.threads.map((t) => t.load(model))); }

  /** Frees the model's sessions in every thread. */
  async unload(model: string): Promise<void> { await Promise.all(this.threads.map((t) => t.unload(model))); }

  /**
   * Runs a micro-batch (or several of at most `chunk` items) on the least busy thread.
   * @throws EngineError for a failure of the whole micro-batch; Error when its thread died
   */
  async run<O>(model: string, inputs: unknown[], control?: RunControl, chunk?: number): Promise<Array<ItemResult<O>>> {
    let i = 0;
    for (let k = 1; k < this.calls.length; k++) if (this.calls[k]! < this.calls[i]!) i = k;
    this.calls[i]!++;
    try { return await this.threads[i]!.run<O>(model, inputs, control, chunk); } finally { this.calls[i]!--; }
  }

  /** Stops every thread (see {@link InferenceThread.terminate}). */
  async terminate(graceMs?: number): Promise<void> { await Promise.all(this.threads.map((t) => t.terminate(graceMs))); }
}
