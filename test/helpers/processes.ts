/**
 * Runs services as separate processes (`node --import tsx services/main.ts --service ...`),
 * as a deployment would, and waits for each to log that it started.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { NODE_FLAGS } from '../../services/node-flags.ts';

const MAIN = fileURLToPath(new URL('../../services/main.ts', import.meta.url));

/** A service process. */
export interface ServiceProcess { name: string; child: ChildProcess; logs: Array<Record<string, unknown>>; kill(signal?: NodeJS.Signals): Promise<void>; }

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/**
 * Starts `services/main.ts` with the given services and environment.
 * @throws Error when it exits or does not log "started" within `timeoutMs`
 */
export async function startProcess(name: string, services: string[], env: Record<string, string>, timeoutMs = 300_000, nodeArgs: string[] = []): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [...NODE_FLAGS, ...nodeArgs, '--import', 'tsx', MAIN, ...services.flatMap((s) => ['--service', s])], {
    env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Array<Record<string, unknown>> = [];
  let stderr = '';
  let buf = '';
  child.stderr!.on('data', (d: Buffer) => { stderr += String(d); });
  const started = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start in ${timeoutMs} ms\n${stderr.slice(-2000)}`)), timeoutMs);
    child.stdout!.on('data', (d: Buffer) => {
      buf += String(d);
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        try {
          const entry = JSON.parse(line) as Record<string, unknown>;
          logs.push(entry);
          if (entry.msg === 'started') { clearTimeout(timer); resolve(); }
        } catch { /* not JSON */ }
      }
    });
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`${name} exited with ${code}\n${stderr.slice(-2000)}\n${JSON.stringify(logs.filter((l) => Number(l.level) >= 40).slice(-5))}`)); });
  });
  await started;
  return {
    name, child, logs,
    kill: async (signal = 'SIGTERM') => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill(signal);
      await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}
