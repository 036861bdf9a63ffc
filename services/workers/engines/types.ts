/**
 * Interface of an inference engine: the code that runs one capability's models inside
 * an inference thread (worker_threads), never on the thread that serves HTTP or the
 * event log.
 */

import type { ItemResult } from '../../events/contract.ts';
import { ERROR_STATUS, type ErrorCode } from '../../lib/errors.ts';

/** Settings an engine gets from its worker. */
export interface EngineContext {
  /** model repository folder */
  repository: string;
  /** onnxruntime execution provider */
  executionProvider: 'cpu' | 'cuda';
  /** onnxruntime intra-op threads per session */
  intraOpThreads: number;
}

/** An inference engine for one capability. */
export interface Engine<I = unknown, O = unknown> {
  /**
   * Loads a model (idempotent).
   * @throws Error with `status` 503 when the model is not installed
   */
  load(model: string): Promise<void>;
  /** Frees a model's session. */
  unload(model: string): Promise<void>;
  /**
   * Runs one micro-batch of a model; one result per input, in order. Bad items fail
   * alone; an exception fails the whole micro-batch.
   * @param control items' deadlines and cancellation flags; engines whose items take
   *   seconds (the generative ones) stop an item when it is set ({@link stopOf}), others
   *   may ignore it
   */
  run(model: string, inputs: I[], control?: RunControl): Promise<Array<ItemResult<O>>>;
}

/**
 * Per-item control of a running micro-batch: each item's deadline, and a flag per item
 * that the worker's main thread sets when the item's request is cancelled (its client
 * went away). The flags live in a SharedArrayBuffer, so the inference thread sees them
 * while it runs.
 */
export interface RunControl {
  /** deadline of each item, ms since the epoch (Infinity: none) */
  deadlines: number[];
  /** 1 at an item's index once its request is cancelled (Int32Array over a SharedArrayBuffer) */
  cancelled: Int32Array;
}

/** A control with the given deadlines and no item cancelled. */
export function runControl(deadlines: number[]): RunControl {
  return { deadlines, cancelled: new Int32Array(new SharedArrayBuffer(4 * Math.max(1, deadlines.length))) };
}

/**
 * The control of items `start` to `end` (exclusive) of a run, for one of its micro-batches:
 * their deadlines, and a view of the same shared cancellation flags.
 */
export function sliceControl(control: RunControl, start: number, end: number): RunControl {
  return { deadlines: control.deadlines.slice(start, end), cancelled: control.cancelled.subarray(start, end) };
}

/** The answer to items whose backend failed without an error code (the cause goes to the worker's log, not to clients). */
export const failedToRun = (model: string): string => `model ${model} failed to run; the worker's log has the cause`;

/**
 * Why item `i` must stop now, if it must: its request was cancelled, or its deadline passed.
 * @param now ms since the epoch
 */
export function stopOf(control: RunControl | undefined, i: number, now = Date.now()): 'cancelled' | 'expired' | undefined {
  if (!control) return undefined;
  if (Atomics.load(control.cancelled, i) === 1) return 'cancelled';
  return (control.deadlines[i] ?? Infinity) <= now ? 'expired' : undefined;
}

/**
 * Throws when item `i` must stop ({@link stopOf}).
 * @throws EngineError CANCELLED (499) or DEADLINE_EXCEEDED (504)
 */
export function checkStop(control: RunControl | undefined, i: number): void {
  const why = stopOf(control, i);
  if (why === 'cancelled') throw new EngineError('CANCELLED', 'the request was cancelled while its item ran; the item was stopped');
  if (why === 'expired') throw new EngineError('DEADLINE_EXCEEDED', 'the deadline passed while the item ran; the item was stopped');
}

/** Error carrying an error code (and so an HTTP status) across the thread boundary. */
export class EngineError extends Error {
  readonly status: number;
  /** @param options `cause`: the error underneath (a damaged file's decompression error, …) */
  constructor(readonly code: ErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'EngineError';
    this.status = ERROR_STATUS[code];
  }
}
