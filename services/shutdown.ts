/**
 * Graceful shutdown on SIGINT and SIGTERM, within a grace period: the first signal starts
 * `close()`; the process exits 0 when it has closed, 1 when it failed, and at the end of
 * the grace period whatever is still running. That last exit is a SIGKILL of the process
 * itself, not `process.exit()`: `process.exit()` waits for every worker thread to stop,
 * and a thread inside a native call (an onnxruntime run of a 20,000-character text, a
 * model load) stops only when the call returns, so the exit came 2.7 s past a 10 s grace
 * (and a thread blocked for a minute held the process for that minute).
 */
import type { Logger } from 'pino';

/** Longest wait at the forced exit for the last log line to be written, ms. */
export const FLUSH_MS = 250;

/** What {@link onShutdownSignals} needs. */
export interface ShutdownOptions {
  /** from the first signal to the forced exit, ms (SHUTDOWN_GRACE_MS) */
  graceMs: number;
  logger: Logger;
  /** stops everything in order; its settling ends the process */
  close(): Promise<void>;
  /** called once, when the first signal arrives (e.g. readiness goes false) */
  onStop?(): void;
}

/** Installs the handlers of the module comment (once per process). */
export function onShutdownSignals(o: ShutdownOptions): void {
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      o.onStop?.();
      o.logger.info({ signal, graceMs: o.graceMs }, 'shutting down');
      setTimeout(() => {
        o.logger.error({ graceMs: o.graceMs }, 'shutdown did not finish within the grace period; exiting now');
        // the log line is written asynchronously: end once it is out, or 250 ms later at most
        const kill = () => process.kill(process.pid, 'SIGKILL');
        setTimeout(kill, FLUSH_MS);
        o.logger.flush(kill);
      }, o.graceMs).unref();
      o.close().then(() => process.exit(0), (err) => { o.logger.error({ err }, 'shutdown failed'); process.exit(1); });
    });
  }
}
