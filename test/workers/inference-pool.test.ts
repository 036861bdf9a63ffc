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
import { InferencePool } from '../../services/workers/inference-pool.ts';

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

const pools: InferencePool[] = [];
afterEach(async () => { await Promise.all(pools.splice(0).map((p) => p.terminate(0))); });

function pool(size: number): InferencePool {
  const dir = mkdtempSync(join(tmpdir(), 'engine-'));
  writeFileSync(join(dir, 'engine.mjs'), ENGINE);
  const p = new InferencePool(pathToFileURL(join(dir, 'engine.mjs')), { repository: dir, executionProvider: 'cpu', intraOpThreads: 1 }, size, pino({ level: 'silent' }));
  pools.push(p);
  return p;
}

type Out = { threadId: number; started: number; ended: number };

describe('InferencePool', () => {
  it('runs micro-batches of one model on several threads at once with instance_count 2', async () => {
    const p = pool(2);
    await p.load('m');
    const [a, b] = await Promise.all([p.run<Out>('m', [{ hold: 400 }]), p.run<Out>('m', [{ hold: 400 }])]);
    const x = a![0]!.output!;
    const y = b![0]!.output!;
    expect(x.threadId).not.toBe(y.threadId);
    // they overlapped: each started before the other ended
    expect(x.started).toBeLessThan(y.ended);
    expect(y.started).toBeLessThan(x.ended);
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
