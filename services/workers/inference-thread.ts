/**
 * Entry of an inference thread (worker_threads). It owns the onnxruntime sessions of
 * one capability's engine, so `session.run()` never blocks the main event loop.
 * Messages in: {id, op: 'load'|'unload'|'run', model, inputs?, control?} (control's flags
 * are shared memory: the main thread sets them while the run goes on); out: {id, ok, results?, error?, code?}.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Engine, EngineContext, RunControl } from './engines/types.ts';

interface ThreadData { engine: string; context: EngineContext; }
const data = workerData as ThreadData;
const mod = (await import(data.engine)) as { createEngine(ctx: EngineContext): Engine };
const engine = mod.createEngine(data.context);

parentPort!.on('message', async (msg: { id: number; op: 'load' | 'unload' | 'run'; model: string; inputs?: unknown[]; control?: RunControl }) => {
  try {
    if (msg.op === 'load') await engine.load(msg.model);
    else if (msg.op === 'unload') await engine.unload(msg.model);
    const results = msg.op === 'run' ? await engine.run(msg.model, msg.inputs ?? [], msg.control) : undefined;
    parentPort!.postMessage({ id: msg.id, ok: true, results });
  } catch (err) {
    // an EngineError's code and message are the items' answer; anything else (onnxruntime
    // failing, a bug) carries no code and is reported to the worker's log, not to clients
    const e = err as { message?: string; code?: string; name?: string };
    parentPort!.postMessage({ id: msg.id, ok: false, error: e.message ?? String(err), code: e.name === 'EngineError' ? e.code : undefined });
  }
});
