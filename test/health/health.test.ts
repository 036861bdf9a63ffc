/**
 * The health port (issue 11, finding 8): a thread of its own answers liveness and
 * readiness whatever the main event loop is doing; liveness fails only when the main
 * loop is stuck.
 */
import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { startHealthPort, type HealthPort } from '../../services/health/health.ts';
import { until } from '../helpers/service.ts';

let port: HealthPort | undefined;
afterEach(async () => { await port?.close(); port = undefined; });

describe('health port', () => {
  it('answers liveness, and readiness from the flags the main thread sets', async () => {
    const source = { started: false, draining: () => false, overloaded: () => false };
    port = await startHealthPort({ port: 0, host: '127.0.0.1', stallMs: 1000, version: '9.9.9', source });
    const base = `http://127.0.0.1:${port.port}`;
    const live = await fetch(`${base}/health`);
    expect(live.status).toBe(200);
    expect(await live.json()).toMatchObject({ status: 'ok', version: '9.9.9' });
    expect(await (await fetch(`${base}/ready`)).json()).toEqual({ ready: false, reasons: ['starting'], loop_stall_ms: expect.any(Number) });
    source.started = true;
    let overloaded = true;
    source.overloaded = () => overloaded;
    // the main thread publishes its flags to the health thread periodically: wait for them
    let busy = { status: 0, reasons: [] as string[] };
    await until(async () => {
      const r = await fetch(`${base}/ready`);
      busy = { status: r.status, reasons: (await r.json()).reasons };
      return busy.reasons.join() === 'overloaded';
    }, 60_000, 'readiness off for overload alone');
    expect(busy.status).toBe(503);
    overloaded = false;
    await until(async () => (await fetch(`${base}/ready`)).status === 200, 60_000, 'readiness back');
    expect((await fetch(`${base}/metrics`)).status).toBe(404);
  });

  it('answers at once while the main thread is blocked, and fails liveness once it has been stuck past the limit', async () => {
    // a stall limit far above what a child process takes to start on a busy machine
    port = await startHealthPort({ port: 0, host: '127.0.0.1', stallMs: 5000, version: '1', source: { started: true, draining: () => false, overloaded: () => false } });
    // a child process asks while this thread is blocked (spawnSync blocks the event loop):
    // at once, then every 200 ms until liveness fails (bounded: 5 minutes)
    const url = `http://127.0.0.1:${port.port}/health`;
    const script = `const ask = async () => { const r = await fetch('${url}'); return r.status + ' ' + (await r.json()).status; };
      console.log(await ask());
      for (let i = 0; i < 1500; i++) { await new Promise((r) => setTimeout(r, 200)); const a = await ask(); if (a !== '200 ok') { console.log(a); break; } }`;
    const out = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }).stdout;
    expect(out.trim().split('\n')).toEqual(['200 ok', '503 stalled']);
    // the main loop turns again: alive
    await until(async () => (await fetch(`http://127.0.0.1:${port!.port}/health`)).status === 200, 60_000, 'alive again');
  });
});
