/**
 * Model sessions load lazily and on warm-up, unload after the idle time, and the
 * correlation id of an HTTP request reaches the logs of the worker that served it.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Embedded } from '../../services/embedded.ts';
import { post, startService, until } from '../helpers/service.ts';

const lines: Array<Record<string, unknown>> = [];
const sink = new Writable({ write(chunk, _enc, cb) { for (const l of String(chunk).split('\n')) if (l) lines.push(JSON.parse(l)); cb(); } });

let svc: Embedded;
beforeAll(async () => {
  svc = await startService({ MODEL_IDLE_UNLOAD_MS: 1000, LOG_LEVEL: 'debug' }, { logger: pino({ level: 'debug' }, sink) });
});
afterAll(async () => { await svc.close(); });

describe('model lifecycle', () => {
  it('loads a model on first use and unloads it after the idle time', async () => {
    const reg = svc.gateway.registry;
    await until(() => reg.canServe('language-id', 'lid-lite-608'), 5000, 'heartbeat');
    expect(reg.isLoaded('language-id', 'lid-lite-608')).toBe(false);
    expect((await post(svc, '/v1/language-id', { text: 'Good morning everybody', model: 'lid-lite-608' })).status).toBe(200);
    await until(() => reg.isLoaded('language-id', 'lid-lite-608'), 5000, 'loaded');
    await until(() => !reg.isLoaded('language-id', 'lid-lite-608'), 8000, 'unloaded after idle');
    expect(lines.some((l) => l.msg === 'model unloaded after idle time' && l.model === 'lid-lite-608')).toBe(true);
  });

  it('carries the correlation id from the HTTP request into the worker logs', async () => {
    const res = await svc.gateway.app.inject({
      method: 'POST', url: '/v1/language-id/batch', payload: { texts: ['un deux trois', 'one two three'], model: 'lid-lite-608' },
      headers: { authorization: 'Bearer test-key-0123456789', 'x-request-id': 'trace-me-42' },
    });
    expect(res.statusCode).toBe(200);
    await until(() => lines.some((l) => l.msg === 'micro-batch done'), 2000, 'worker log');
    const gateway = lines.filter((l) => l.reqId === 'trace-me-42');
    expect(gateway.length).toBeGreaterThan(0);
    const worker = lines.filter((l) => l.msg === 'micro-batch done' && (l.correlationIds as string[]).some((c) => c.startsWith('trace-me-42:')));
    expect(worker.flatMap((l) => l.correlationIds as string[]).filter((c) => c.startsWith('trace-me-42:')).sort()).toEqual(['trace-me-42:0', 'trace-me-42:1']);
    expect(worker[0]!.service).toBe('worker:language-id');
  });
});
