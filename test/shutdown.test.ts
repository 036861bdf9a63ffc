/**
 * Shutdown within the grace period (services/shutdown.ts): at its end the process goes,
 * whatever still runs. Regression (issue 33, D): the exit ran past SHUTDOWN_GRACE_MS,
 * because `process.exit()` waits for worker threads and a thread inside a native call stops
 * only when the call returns; here a thread blocked for 60 s in a native call would have
 * held the process for those 60 s.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const SHUTDOWN = pathToFileURL(join(import.meta.dirname, '..', 'services', 'shutdown.ts')).href;

describe('onShutdownSignals', () => {
  it('ends the process at the grace period though a thread is inside a native call and close() never settles', async () => {
    const script = `
      import { Worker } from 'node:worker_threads';
      import pino from 'pino';
      import { onShutdownSignals } from ${JSON.stringify(SHUTDOWN)};
      // a thread blocked 60 s in a native call, as an inference thread inside onnxruntime is
      new Worker("import('node:child_process').then((m) => m.execSync('sleep 60'))", { eval: true });
      onShutdownSignals({ graceMs: 1000, logger: pino(), close: () => new Promise(() => {}) });
      setInterval(() => {}, 1000);
      console.log(JSON.stringify({ msg: 'ready' }));`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: join(import.meta.dirname, '..'), stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (d: Buffer) => { out += String(d); if (out.includes('"ready"')) resolve(); });
      child.once('exit', () => reject(new Error(`exited before it was ready: ${out}`)));
    });
    // 'close', not 'exit': the output written before the end is read by then (under load the
    // last line came after 'exit')
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
    const t0 = Date.now();
    child.kill('SIGTERM');
    const end = await Promise.race([exited, new Promise<'still running'>((r) => setTimeout(() => r('still running'), 45_000))]);
    if (end === 'still running') child.kill('SIGKILL');
    // gone at the 1 s grace (the bound is far from the 60 s the thread would hold it for)
    expect(end).toEqual({ code: null, signal: 'SIGKILL' });
    expect(Date.now() - t0).toBeLessThan(45_000);
  });
});
