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
   */
  run(model: string, inputs: I[]): Promise<Array<ItemResult<O>>>;
}

/** Error carrying an error code (and so an HTTP status) across the thread boundary. */
export class EngineError extends Error {
  readonly status: number;
  constructor(readonly code: ErrorCode, message: string) {
    super(message);
    this.name = 'EngineError';
    this.status = ERROR_STATUS[code];
  }
}
