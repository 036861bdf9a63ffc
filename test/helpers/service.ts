/**
 * Starts a real embedded service for a test: real HTTP handling (app.inject), the
 * in-memory event log, real workers with onnxruntime in inference threads and a real
 * SQLite ledger in a fresh temporary folder.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach } from 'vitest';
import { loadConfig, type Config } from '../../services/config.ts';
import { startEmbedded, type Embedded, type EmbeddedOptions } from '../../services/embedded.ts';

/** The API key every test service accepts. */
export const KEY = 'test-key-0123456789';
/** Authorization header for {@link KEY}. */
export const AUTH = { authorization: `Bearer ${KEY}` };

/**
 * Request deadline of a test service unless the test sets its own, ms: far from what any
 * request of the tests takes on a machine many times slower than a developer's (a model's
 * first request loads it: 12–15 s for a diacnet model on an idle 2-core machine, and a
 * request that waited past the default 30 s failed a test on a busy one). A test of
 * deadline behaviour sets `REQUEST_TIMEOUT_MS` itself and makes the work slow on purpose.
 */
export const TEST_REQUEST_TIMEOUT_MS = 600_000;

/**
 * Queue-wait targets of test services (QUEUE_TARGET_MS): 10 minutes for every capability, so
 * that no request of a test is shed because the machine is busy or a test holds items in a
 * slow worker on purpose; the tests of load shedding set their own.
 */
export const TEST_QUEUE_TARGETS = 'language-id=600000,diacritize=600000,decide=600000,questions=600000,extract=600000';

/**
 * Starts a service; `overrides` win over the environment (and over {@link TEST_REQUEST_TIMEOUT_MS}, {@link TEST_QUEUE_TARGETS}).
 * Models load on first use (MODEL_PRELOAD none) unless a test sets MODEL_PRELOAD: most
 * tests use one or two models, and preloading the defaults would load others they never use.
 */
export async function startService(overrides: Partial<Record<keyof Config, string | number>> = {}, opts: EmbeddedOptions = {}): Promise<Embedded> {
  const dir = mkdtempSync(join(tmpdir(), 'lmstream-test-'));
  const config = loadConfig({
    DATA_DIR: dir, API_KEYS: `${KEY},${KEY_B}`, LOG_LEVEL: 'silent', WORKER_HEARTBEAT_MS: 200, REQUEST_TIMEOUT_MS: TEST_REQUEST_TIMEOUT_MS, QUEUE_TARGET_MS: TEST_QUEUE_TARGETS, MODEL_PRELOAD: 'none',
    // tests poll their own usage and analytics every 20 ms while they wait for an event
    RATE_LIMIT_READ_MAX: 1_000_000, ...overrides,
  });
  return startEmbedded(config, { logger: pino({ level: config.LOG_LEVEL }), ...opts });
}

/** POSTs JSON with the test key. */
export async function post(svc: Embedded, url: string, payload: unknown, headers: Record<string, string> = AUTH) {
  const res = await svc.gateway.app.inject({ method: 'POST', url, payload: payload as object, headers });
  return { status: res.statusCode, body: res.json() as Record<string, any> };
}

/**
 * Least time {@link until} waits before it gives up, ms, whatever bound its caller gives:
 * a test waits for the event it needs, and a bound that a busy machine can pass (the
 * callers' bounds were a few seconds, what the event takes on an idle one) fails a test
 * that would have passed. Two minutes is many times what any awaited event takes here.
 */
export const UNTIL_MIN_MS = 120_000;

/**
 * Waits until `check` is true, looking every 20 ms.
 * @param ms the caller's bound; the wait lasts at least {@link UNTIL_MIN_MS}
 * @throws Error naming `what` when the bound passes first
 */
export async function until(check: () => boolean | Promise<boolean>, ms = UNTIL_MIN_MS, what = 'condition'): Promise<void> {
  const end = Date.now() + Math.max(ms, UNTIL_MIN_MS);
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A second API key every test service accepts (a second tenant). */
export const KEY_B = 'test-key-b-9876543210';

/**
 * Starts a language-ID worker on a service's log that holds each item `delayMs` before
 * running it (its micro-batches wait that long), so that tests can act while items are
 * in flight. Stop it with `stop()`.
 */
export async function slowWorker(svc: Embedded, delayMs: number): Promise<import('../../services/workers/worker.ts').CapabilityWorker> {
  const { CapabilityWorker } = await import('../../services/workers/worker.ts');
  const w = new CapabilityWorker({
    capability: 'language-id', transport: svc.transport, codec: svc.codec, logger: pino({ level: 'silent' }),
    settings: { heartbeatMs: 200 }, batchPolicy: { maxQueueDelayMs: delayMs, maxBatchSize: 100_000 },
  });
  await w.start();
  await until(() => svc.gateway.liveWorkers.canServe('language-id', 'lid-lite-608'), UNTIL_MIN_MS, 'heartbeat of the slow worker');
  return w;
}

/**
 * A starter of services that are closed after each test of the calling test file (call
 * it at the file's top level: it registers the `afterEach`).
 */
export function servicesClosedAfterEach(): (...args: Parameters<typeof startService>) => Promise<Embedded> {
  const running: Embedded[] = [];
  afterEach(async () => { await Promise.all(running.splice(0).map((s) => s.close())); });
  return async (...args) => {
    const s = await startService(...args);
    running.push(s);
    return s;
  };
}
