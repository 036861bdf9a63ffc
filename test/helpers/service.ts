/**
 * Starts a real embedded service for a test: real HTTP handling (app.inject), the
 * in-memory event log, real workers with onnxruntime in inference threads and a real
 * SQLite ledger in a fresh temporary folder.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { loadConfig, type Config } from '../../services/config.ts';
import { startEmbedded, type Embedded, type EmbeddedOptions } from '../../services/embedded.ts';

/** The API key every test service accepts. */
export const KEY = 'test-key-0123456789';
/** Authorization header for {@link KEY}. */
export const AUTH = { authorization: `Bearer ${KEY}` };

/** Starts a service; `overrides` win over the environment. */
export async function startService(overrides: Partial<Record<keyof Config, string | number>> = {}, opts: EmbeddedOptions = {}): Promise<Embedded> {
  const dir = mkdtempSync(join(tmpdir(), 'lmstream-test-'));
  const config = loadConfig({ DATA_DIR: dir, API_KEYS: KEY, LOG_LEVEL: 'silent', WORKER_HEARTBEAT_MS: 200, ...overrides });
  return startEmbedded(config, { logger: pino({ level: config.LOG_LEVEL }), ...opts });
}

/** POSTs JSON with the test key. */
export async function post(svc: Embedded, url: string, payload: unknown, headers: Record<string, string> = AUTH) {
  const res = await svc.gateway.app.inject({ method: 'POST', url, payload: payload as object, headers });
  return { status: res.statusCode, body: res.json() as Record<string, any> };
}

/** Waits until `check` is true or `ms` pass. @throws Error on time-out */
export async function until(check: () => boolean | Promise<boolean>, ms = 10_000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}
