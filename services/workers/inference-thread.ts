/**
 * Entry of an inference thread (worker_threads). It owns the onnxruntime sessions of
 * one capability's engine, so `session.run()` never blocks the main event loop.
 * Messages in: {id, op: 'load'|'unload'|'run', model, inputs?, control?, chunk?} (control's
 * flags are shared memory: the main thread sets them while the run goes on; a run of more
 * than `chunk` inputs is run as micro-batches of `chunk`, see the worker's backlog
 * dispatch); out: {id, ok, results?, causes?, error?, code?} (causes: the errors of items
 * answered INFERENCE_FAILED, for the worker's log). With a `resultSchema` in workerData the
 * results travel as one Avro array in a transferred buffer (result-wire.ts), else as
 * objects.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { ItemResult } from '../events/contract.ts';
import { failed } from '../events/results.ts';
import type { ResultSchema } from '../events/codec.ts';
import { EngineError, failedToRun, sliceControl, type Engine, type EngineContext, type RunControl } from './engines/types.ts';
import { encodeResults } from './result-wire.ts';

interface ThreadData { engine: string; context: EngineContext; resultSchema?: ResultSchema; }
const data = workerData as ThreadData;
const mod = (await import(data.engine)) as { createEngine(ctx: EngineContext): Engine };
const engine = mod.createEngine(data.context);

/** Distinct causes kept per call (a backend that fails every item would repeat one cause per item). */
const MAX_CAUSES = 8;

/**
 * Runs one micro-batch. A backend that throws something other than an EngineError (a bug
 * that some input triggers) is run again on each half, down to single items, so that only
 * the items that also fail alone are answered INFERENCE_FAILED (their causes go to
 * `causes`) and the others get their results: one hostile text does not fail the texts
 * micro-batched with it. A micro-batch of n items with one such text costs about
 * 2·log2(n) more calls; one where every item fails, 2n − 1. An EngineError is the answer
 * of the whole micro-batch and is thrown on.
 * @throws EngineError from the backend
 */
async function runIsolating(model: string, inputs: unknown[], control: RunControl | undefined, causes: string[]): Promise<ItemResult[]> {
  try {
    return await engine.run(model, inputs, control);
  } catch (err) {
    if (err instanceof EngineError) throw err;
    if (inputs.length <= 1) {
      const cause = (err as Error)?.message ?? String(err);
      if (causes.length < MAX_CAUSES && !causes.includes(cause)) causes.push(cause);
      return inputs.map(() => failed('INFERENCE_FAILED', failedToRun(model)));
    }
    const mid = Math.ceil(inputs.length / 2);
    const half = (s: number, e: number) => runIsolating(model, inputs.slice(s, e), control ? sliceControl(control, s, e) : undefined, causes);
    return [...await half(0, mid), ...await half(mid, inputs.length)];
  }
}

/**
 * Runs `inputs` as micro-batches of at most `chunk` items, one after another, each with
 * {@link runIsolating}. A chunk whose backend throws an EngineError answers its own items
 * with the error's code; a whole call that is one chunk throws it, as the worker expects.
 */
async function runChunked(model: string, inputs: unknown[], control: RunControl | undefined, chunk: number, causes: string[]): Promise<ItemResult[]> {
  if (inputs.length <= chunk) return runIsolating(model, inputs, control, causes);
  const results: ItemResult[] = [];
  for (let s = 0; s < inputs.length; s += chunk) {
    const e = Math.min(inputs.length, s + chunk);
    const part = control ? sliceControl(control, s, e) : undefined;
    try {
      results.push(...await runIsolating(model, inputs.slice(s, e), part, causes));
    } catch (err) {
      const r = failed((err as EngineError).code, (err as EngineError).message);
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
    if (results && data.resultSchema) {
      const invalid: number[] = [];
      const bytes = encodeResults(data.resultSchema, results, msg.model, invalid);
      if (invalid.length > 0 && causes.length < MAX_CAUSES) causes.push(`results of items ${invalid.slice(0, MAX_CAUSES).join(', ')} do not match schema ${data.resultSchema}`);
      parentPort!.postMessage({ id: msg.id, ok: true, results: bytes, causes }, [bytes.buffer]);
    } else parentPort!.postMessage({ id: msg.id, ok: true, results, causes });
  } catch (err) {
    // an EngineError's code and message are the items' answer; anything else (onnxruntime
    // failing, a bug) carries no code and is reported to the worker's log, not to clients
    const e = err as { message?: string; code?: string; name?: string };
    parentPort!.postMessage({ id: msg.id, ok: false, error: e.message ?? String(err), code: e.name === 'EngineError' ? e.code : undefined });
  }
});
