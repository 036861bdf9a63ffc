/**
 * Entry of an inference thread (worker_threads). It owns the onnxruntime sessions of
 * one capability's engine, so `session.run()` never blocks the main event loop.
 * Messages in: {id, op: 'load'|'unload'|'run', model, inputs?, control?, chunk?} (control's
 * flags are shared memory: the main thread sets them while the run goes on; a run of more
 * than `chunk` inputs is run as micro-batches of `chunk`, see the worker's backlog
 * dispatch); out: {id, ok, results?, causes?, error?, code?} (causes: errors of micro-batches of a
 * chunked run, each answered INFERENCE_FAILED).
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { ItemResult } from '../events/contract.ts';
import { failed } from '../events/results.ts';
import { EngineError, failedToRun, sliceControl, type Engine, type EngineContext, type RunControl } from './engines/types.ts';

interface ThreadData { engine: string; context: EngineContext; }
const data = workerData as ThreadData;
const mod = (await import(data.engine)) as { createEngine(ctx: EngineContext): Engine };
const engine = mod.createEngine(data.context);

/**
 * Runs `inputs` as micro-batches of at most `chunk` items, one after another. A chunk
 * whose engine throws answers only its own items: an EngineError's code, else
 * INFERENCE_FAILED with the cause in `causes` (for the worker's log), as a whole call
 * that throws is answered.
 */
async function runChunked(model: string, inputs: unknown[], control: RunControl | undefined, chunk: number, causes: string[]): Promise<ItemResult[]> {
  if (inputs.length <= chunk) return engine.run(model, inputs, control);
  const results: ItemResult[] = [];
  for (let s = 0; s < inputs.length; s += chunk) {
    const e = Math.min(inputs.length, s + chunk);
    const part = control ? sliceControl(control, s, e) : undefined;
    try {
      results.push(...await engine.run(model, inputs.slice(s, e), part));
    } catch (err) {
      const r = err instanceof EngineError ? failed(err.code, err.message) : failed('INFERENCE_FAILED', failedToRun(model));
      if (!(err instanceof EngineError)) causes.push((err as Error).message ?? String(err));
      for (let i = s; i < e; i++) results.push(r);
    }
  }
  return results;
}

parentPort!.on('message', async (msg: { id: number; op: 'load' | 'unload' | 'run'; model: string; inputs?: unknown[]; control?: RunControl; chunk?: number }) => {
  try {
    if (msg.op === 'load') await engine.load(msg.model);
    else if (msg.op === 'unload') await engine.unload(msg.model);
    const causes: string[] = [];
    const results = msg.op === 'run' ? await runChunked(msg.model, msg.inputs ?? [], msg.control, msg.chunk ?? Infinity, causes) : undefined;
    parentPort!.postMessage({ id: msg.id, ok: true, results, causes });
  } catch (err) {
    // an EngineError's code and message are the items' answer; anything else (onnxruntime
    // failing, a bug) carries no code and is reported to the worker's log, not to clients
    const e = err as { message?: string; code?: string; name?: string };
    parentPort!.postMessage({ id: msg.id, ok: false, error: e.message ?? String(err), code: e.name === 'EngineError' ? e.code : undefined });
  }
});
