/**
 * Model sessions load lazily and on warm-up, unload after the idle time, and the
 * correlation id of an HTTP request reaches the logs of the worker that served it.
 */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
    const reg = svc.gateway.liveWorkers;
    await until(() => reg.canServe('language-id', 'lid-lite-608'), 5000, 'heartbeat');
    expect(reg.isLoaded('language-id', 'lid-lite-608')).toBe(false);
    expect((await post(svc, '/v1/language-id', { text: 'Good morning everybody', model: 'lid-lite-608' })).status).toBe(200);
    // the request loaded the model; the worker's log says when it unloads (polling the
    // heartbeats for the loaded state could miss it: on a busy machine the 1 s idle time
    // can pass between two looks)
    await until(() => lines.some((l) => l.msg === 'model unloaded after idle time' && l.model === 'lid-lite-608'), 60_000, 'unload logged');
    // and the heartbeats say so
    await until(() => !reg.isLoaded('language-id', 'lid-lite-608'), 60_000, 'unloaded in the heartbeats');
  });

  it("carries the gateway's request id into the worker logs, and logs the client's X-Request-Id beside it", async () => {
    const res = await svc.gateway.app.inject({
      method: 'POST', url: '/v1/language-id/batch', payload: { texts: ['un deux trois', 'one two three'], model: 'lid-lite-608' },
      headers: { authorization: 'Bearer test-key-0123456789', 'x-request-id': 'trace-me-42' },
    });
    expect(res.statusCode).toBe(200);
    // the request id is the gateway's own (a random UUID); the client's is echoed and logged as such
    const id = String(res.headers['x-request-id']);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(res.headers['x-client-request-id']).toBe('trace-me-42');
    await until(() => lines.some((l) => l.msg === 'micro-batch done'), 2000, 'worker log');
    const gateway = lines.filter((l) => l.reqId === id);
    expect(gateway.length).toBeGreaterThan(0);
    expect(gateway.some((l) => l.clientReqId === 'trace-me-42')).toBe(true);
    const worker = lines.filter((l) => l.msg === 'micro-batch done' && (l.correlationIds as string[]).some((c) => c.startsWith(`${id}:`)));
    expect(worker.flatMap((l) => l.correlationIds as string[]).filter((c) => c.startsWith(`${id}:`)).sort()).toEqual([`${id}:0`, `${id}:1`]);
    expect(worker[0]!.service).toBe('worker:language-id');
    expect(lines.some((l) => (l.correlationIds as string[] | undefined)?.some((c) => c.startsWith('trace-me-42')))).toBe(false);
  });
});

describe('backpressure', () => {
  it('pauses fetching when the queues fill and resumes when they drain, answering every item', async () => {
    const { startService: start, post: send } = await import('../helpers/service.ts');
    const { CapabilityWorker } = await import('../../services/workers/worker.ts');
    const s = await start({}, { capabilities: [] });
    const logs: Array<Record<string, unknown>> = [];
    // a model repository whose lid-lite-608 queues at most 8 items (its config.json says so)
    const repo = mkdtempSync(join(tmpdir(), 'small-queue-'));
    cpSync(join(import.meta.dirname, '..', '..', 'models', 'lid-lite-608'), join(repo, 'lid-lite-608'), { recursive: true });
    const cfgFile = join(repo, 'lid-lite-608', 'config.json');
    writeFileSync(cfgFile, JSON.stringify({ ...JSON.parse(readFileSync(cfgFile, 'utf8')), max_batch_size: 2, dynamic_batching: { max_queue_delay_ms: 50, max_queue_size: 8 } }));
    const w = new CapabilityWorker({
      capability: 'language-id', transport: s.transport, codec: s.codec, settings: { heartbeatMs: 200, modelRepository: repo },
      logger: pino({ level: 'info' }, new Writable({ write(c, _e, cb) { for (const l of String(c).split('\n')) if (l) logs.push(JSON.parse(l)); cb(); } })),
    });
    await w.start();
    try {
      await until(() => s.gateway.liveWorkers.canServe('language-id', 'lid-lite-608'), 5000, 'heartbeat');
      const r = await send(s, '/v1/language-id/batch', { texts: Array.from({ length: 40 }, (_, i) => `hello number ${i} my friend`), model: 'lid-lite-608' });
      expect(r.body.error ?? '').toBe('');
      expect(r.status).toBe(200);
      expect(r.body.results).toHaveLength(40);
      expect(logs.some((l) => l.msg === 'paused fetching: queues nearly full')).toBe(true);
      expect(logs.some((l) => l.msg === 'resumed fetching')).toBe(true);
    } finally { await w.stop(); await s.close(); }
  });
});
