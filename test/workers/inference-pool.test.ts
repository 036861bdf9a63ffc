/**
 * The inference pool (issue 12, items 4 and 9): instance_count threads run micro-batches
 * at once; a thread that dies is replaced, and the calls it held fail with a clear error.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { runControl } from '../../services/workers/engines/types.ts';
import { InferencePool } from '../../services/workers/inference-pool.ts';
import type { ResultSchema } from '../../services/events/codec.ts';

/**
 * A test engine: each item's output says which thread ran it and when its micro-batch
 * started and ended; it holds its thread busy for `hold` ms, and an input `crash` ends the
 * thread (process.exit in a worker thread stops that thread).
 */
const ENGINE = `
import { threadId } from 'node:worker_threads';
export function createEngine() {
  return {
    async load() {}, async unload() {},
    async run(model, inputs) {
      if (inputs.some((i) => i.crash)) process.exit(3);
      const started = Date.now();
      const hold = inputs[0]?.hold ?? 0;
      while (Date.now() - started < hold) { /* busy, as inference is */ }
      return inputs.map(() => ({ output: { threadId, started, ended: Date.now() }, failure: null }));
    },
  };
}`;

/**
 * A test engine for backlog dispatch: each item's output is the size of the engine call
 * that ran it; a call holding an input `fail` throws an EngineError.
 */
const CHUNK_ENGINE = `
import { EngineError } from ${JSON.stringify(new URL('../../services/workers/engines/types.ts', import.meta.url).href)};
export function createEngine() {
  return {
    async load() {}, async unload() {},
    async run(model, inputs, control) {
      if (inputs.some((i) => i.fail)) throw new EngineError('INVALID_REQUEST', 'a bad item in this micro-batch');
      if (inputs.some((i) => i.bug)) throw new TypeError('a bug in the backend');
      return inputs.map((i, k) => ({ output: { size: inputs.length, x: i.x, cancelled: Atomics.load(control.cancelled, k) }, failure: null }));
    },
  };
}`;

/**
 * A test engine answering language-ID results: an input `bad` gets an output that breaks
 * the result schema (no `top`, a string confidence), as a buggy backend might.
 */
const LID_ENGINE = `
export function createEngine() {
  return {
    async load() {}, async unload() {},
    async run(model, inputs) {
      return inputs.map((i) => i.bad
        ? { output: { language: 'swh', confidence: 'high' }, failure: null }
        : { output: { language: 'swh', script: 'Latn', label: 'swh_Latn', languageName: 'Swahili', confidence: 0.5 + i.x / 100, top: [{ label: 'swh_Latn', language: 'swh', score: 0.5 }], warnings: [], text: null }, failure: null });
    },
  };
}`;

const pools: InferencePool[] = [];
afterEach(async () => { await Promise.all(pools.splice(0).map((p) => p.terminate(0))); });

function pool(size: number, engine = ENGINE, resultSchema?: ResultSchema): InferencePool {
  const dir = mkdtempSync(join(tmpdir(), 'engine-'));
  writeFileSync(join(dir, 'engine.mjs'), engine);
  const p = new InferencePool(pathToFileURL(join(dir, 'engine.mjs')), { repository: dir, executionProvider: 'cpu', intraOpThreads: 1 }, size, pino({ level: 'silent' }), resultSchema);
  pools.push(p);
  return p;
}

type Out = { threadId: number; started: number; ended: number };

describe('InferencePool', () => {
  it('runs micro-batches of one model on several threads at once with instance_count 2', async () => {
    const p = pool(2);
    await p.load('m');
    // each holds its thread 2 s: far longer than the second call takes to reach its thread on a busy machine
    const [a, b] = await Promise.all([p.run<Out>('m', [{ hold: 2000 }]), p.run<Out>('m', [{ hold: 2000 }])]);
    const x = a![0]!.output!;
    const y = b![0]!.output!;
    expect(x.threadId).not.toBe(y.threadId);
    // they overlapped: each started before the other ended
    expect(x.started).toBeLessThan(y.ended);
    expect(y.started).toBeLessThan(x.ended);
  });

  it('runs a backlog dispatch as micro-batches of at most chunk items; a micro-batch that fails or throws answers only its own items (issue 17)', async () => {
    const p = pool(1, CHUNK_ENGINE);
    const inputs = Array.from({ length: 10 }, (_, x) => ({ x, fail: x === 5 }));
    const control = runControl(inputs.map(() => Infinity));
    Atomics.store(control.cancelled, 9, 1);
    const results = await p.run<{ size: number; x: number; cancelled: number }>('m', inputs, control, 4);
    expect(results.map((r) => r.output?.size ?? r.failure!.code)).toEqual([4, 4, 4, 4, 'INVALID_REQUEST', 'INVALID_REQUEST', 'INVALID_REQUEST', 'INVALID_REQUEST', 2, 2]);
    expect(results.map((r) => r.output?.x ?? null)).toEqual([0, 1, 2, 3, null, null, null, null, 8, 9]);
    // each micro-batch sees its own items' cancellation flags
    expect(results[9]!.output!.cancelled).toBe(1);
    expect(results[8]!.output!.cancelled).toBe(0);
    // a backend that throws something else: its micro-batch runs again in halves, and only
    // the item that throws alone is answered INFERENCE_FAILED ([0, 1, 2] → [0, 1] → [0], [1]; [2])
    const buggy = await p.run<{ size: number }>('m', Array.from({ length: 6 }, (_, x) => ({ x, bug: x === 1 })), runControl(Array(6).fill(Infinity)), 3);
    expect(buggy.map((r) => r.output?.size ?? r.failure!.code)).toEqual([1, 'INFERENCE_FAILED', 1, 3, 3, 3]);
    // without chunk, one call
    expect((await p.run<{ size: number }>('m', inputs.slice(0, 5), runControl([1, 2, 3, 4, 5].map(() => Infinity))))[0]!.output!.size).toBe(5);
  });

  it('answers only the items a buggy backend fails on alone, also in a call of one micro-batch, with cancellation flags kept per half (hostile input)', async () => {
    const p = pool(1, CHUNK_ENGINE);
    const inputs = Array.from({ length: 8 }, (_, x) => ({ x, bug: x === 2 || x === 7 }));
    const control = runControl(inputs.map(() => Infinity));
    Atomics.store(control.cancelled, 5, 1);
    const results = await p.run<{ x: number; cancelled: number }>('m', inputs, control);
    expect(results.map((r) => r.output?.x ?? r.failure!.code)).toEqual([0, 1, 'INFERENCE_FAILED', 3, 4, 5, 6, 'INFERENCE_FAILED']);
    expect(results.map((r) => r.output?.cancelled ?? null)).toEqual([0, 0, null, 0, 0, 1, 0, null]);
    // every item failing: each answered, none lost
    const all = await p.run('m', Array.from({ length: 5 }, (_, x) => ({ x, bug: true })), runControl(Array(5).fill(Infinity)));
    expect(all.map((r) => r.failure?.code)).toEqual(Array(5).fill('INFERENCE_FAILED'));
  });

  it('brings results back as Avro of the result schema, and answers a result that breaks the schema INFERENCE_FAILED alone (issue 17)', async () => {
    const p = pool(1, LID_ENGINE, 'language-id/result');
    const rs = await p.run<{ confidence: number; top: unknown[] }>('m', [{ x: 1 }, { x: 2, bad: true }, { x: 3 }]);
    expect(rs[0]!.output).toEqual({ language: 'swh', script: 'Latn', label: 'swh_Latn', languageName: 'Swahili', confidence: 0.51, top: [{ label: 'swh_Latn', language: 'swh', score: 0.5 }], warnings: [], text: null });
    expect(rs[1]!.output).toBeNull();
    expect(rs[1]!.failure).toMatchObject({ code: 'INFERENCE_FAILED' });
    expect(rs[1]!.failure!.error).toContain('language-id/result');
    expect(rs[2]!.output!.confidence).toBe(0.53);
  });

  it('runs them one after another with instance_count 1', async () => {
    const p = pool(1);
    const [a, b] = await Promise.all([p.run<Out>('m', [{ hold: 200 }]), p.run<Out>('m', [{ hold: 200 }])]);
    const [first, second] = [a![0]!.output!, b![0]!.output!].sort((u, v) => u.started - v.started);
    expect(first!.threadId).toBe(second!.threadId);
    expect(second!.started).toBeGreaterThanOrEqual(first!.ended);
  });

  it('fails the calls of a thread that died with a clear error, and starts a new thread for the next ones (regression: a call made while it restarted was lost)', async () => {
    const p = pool(1);
    const before = (await p.run<Out>('m', [{}]))[0]!.output!.threadId;
    await expect(p.run('m', [{ crash: true }])).rejects.toThrow('inference thread exited with code 3');
    // made while the new thread is not started yet: it waits for it
    const after = await p.run<Out>('m', [{}]);
    expect(after[0]!.output!.threadId).not.toBe(before);
  });
});
