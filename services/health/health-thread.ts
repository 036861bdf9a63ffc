/**
 * Entry of the health thread (worker_threads): a small HTTP server on HEALTH_PORT with its
 * own event loop, so liveness and readiness probes are answered at once however busy the
 * main thread is (a main event loop serving 1,000 connections takes a connection from
 * the listen queue about once per turn, and probes on the main port waited seconds).
 *
 * It reads the state the main thread writes into a SharedArrayBuffer (services/health/health.ts):
 * - `GET /health` (liveness): 200 `{status: "ok", version, loop_stall_ms}` while the main
 *   thread's heartbeat is younger than `stallMs`, else 503 `{status: "stalled"}`: a
 *   process whose main loop is stuck is restarted, a busy one is not;
 * - `GET /ready` (readiness): 200 while the process has started, is not draining, not
 *   overloaded and its heartbeat is younger than 1 s, else 503 with the reason.
 * Messages in: none. workerData: `{port, host, stallMs, version, state: SharedArrayBuffer}`.
 */
import { createServer } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';
import { SLOT } from './slots.ts';

const data = workerData as { port: number; host: string; stallMs: number; version: string; state: SharedArrayBuffer };
const state = new Float64Array(data.state);

const server = createServer((req, res) => {
  const stall = Math.max(0, Date.now() - state[SLOT.heartbeat]!);
  const send = (status: number, body: object) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
    res.end(text);
  };
  const path = (req.url ?? '/').split('?')[0];
  if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, { error: 'only GET', status: 405, code: 'METHOD_NOT_ALLOWED' });
  if (path === '/health') {
    return stall < data.stallMs
      ? send(200, { status: 'ok', version: data.version, loop_stall_ms: stall })
      : send(503, { status: 'stalled', version: data.version, loop_stall_ms: stall, error: `the main event loop has not turned for ${stall} ms`, });
  }
  if (path === '/ready') {
    const reasons = [
      ...(state[SLOT.started] === 1 ? [] : ['starting']),
      ...(state[SLOT.draining] === 1 ? ['draining'] : []),
      ...(state[SLOT.overloaded] === 1 ? ['overloaded'] : []),
      ...(stall >= 1000 ? ['main event loop stalled'] : []),
    ];
    return send(reasons.length === 0 ? 200 : 503, { ready: reasons.length === 0, reasons, loop_stall_ms: stall });
  }
  send(404, { error: `route ${req.method} ${path} not found`, status: 404, code: 'NOT_FOUND' });
});
server.keepAliveTimeout = 5000;
server.listen(data.port, data.host, () => {
  const address = server.address();
  parentPort!.postMessage({ listening: typeof address === 'object' && address ? address.port : data.port });
});
server.on('error', (err: NodeJS.ErrnoException) => parentPort!.postMessage({ error: err.message, code: err.code }));
parentPort!.on('message', (m: { close?: boolean }) => { if (m.close) server.close(() => process.exit(0)); });
