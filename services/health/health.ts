/**
 * The main-thread side of the health port (HEALTH_PORT): starts the health thread
 * (services/health/health-thread.ts), and every {@link HEARTBEAT_MS} writes the time
 * (the main event loop's heartbeat) and the readiness flags into the state they share.
 * Any process has one when HEALTH_PORT is set, whatever services it runs (workers and
 * billing get liveness probes too).
 */
import { Worker } from 'node:worker_threads';
import { SLOT, SLOTS } from './slots.ts';

const BOOTSTRAP_URL = new URL('../workers/thread-bootstrap.mjs', import.meta.url);
const ENTRY = new URL(`./health-thread${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url);
/** Period of the main thread's heartbeat, ms. */
export const HEARTBEAT_MS = 200;

/** What the health thread reports; `overloaded` and `draining` are read at each heartbeat. */
export interface HealthSource { started: boolean; draining(): boolean; overloaded(): boolean; }

/** A running health port. */
export interface HealthPort {
  /** the port it listens on */
  port: number;
  close(): Promise<void>;
}

/**
 * Starts the health thread.
 * @param stallMs liveness fails when the main loop has not turned for this long
 * @throws Error when the port cannot be bound
 */
export async function startHealthPort(o: { port: number; host: string; stallMs: number; version: string; source: HealthSource }): Promise<HealthPort> {
  const buffer = new SharedArrayBuffer(SLOTS * Float64Array.BYTES_PER_ELEMENT);
  const state = new Float64Array(buffer);
  const beat = () => {
    state[SLOT.heartbeat] = Date.now();
    state[SLOT.started] = o.source.started ? 1 : 0;
    state[SLOT.draining] = o.source.draining() ? 1 : 0;
    state[SLOT.overloaded] = o.source.overloaded() ? 1 : 0;
  };
  beat();
  const timer = setInterval(beat, HEARTBEAT_MS);
  timer.unref();
  const worker = new Worker(BOOTSTRAP_URL, { workerData: { entry: ENTRY.href, port: o.port, host: o.host, stallMs: o.stallMs, version: o.version, state: buffer } });
  worker.unref();
  const port = await new Promise<number>((resolve, reject) => {
    // the listen error keeps its code and port, as a listen error of the main thread has them
    worker.once('message', (m: { listening?: number; error?: string; code?: string }) => (m.error
      ? reject(Object.assign(new Error(`health port ${o.port}: ${m.error}`), { code: m.code, port: o.port, address: o.host, syscall: 'listen' }))
      : resolve(m.listening!)));
    worker.once('error', reject);
  });
  return {
    port,
    async close() {
      clearInterval(timer);
      await worker.terminate();
    },
  };
}
