/**
 * Request ids are the gateway's own (issue 11, finding 1): a client's `X-Request-Id` is
 * echoed and logged, never used as the correlation id or the usage event id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Embedded } from '../../services/embedded.ts';
import { KEY, KEY_B, startService, until } from '../helpers/service.ts';

let svc: Embedded;
beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_MAX: 100_000 });
  await until(() => svc.gateway.liveWorkers.canServe('language-id', 'lid-lite-608'), 5000, 'heartbeat');
});
afterAll(async () => { await svc.close(); });

const lid = (key: string, text: string, requestId: string) => svc.gateway.app.inject({
  method: 'POST', url: '/v1/language-id', payload: { text, model: 'lid-lite-608' },
  headers: { authorization: `Bearer ${key}`, 'x-request-id': requestId },
});

describe('request ids', () => {
  it('gives each of two tenants its own answer when both send the same X-Request-Id at once (regression: answers were swapped)', async () => {
    const calls = Array.from({ length: 20 }, (_, i) => i % 2 === 0
      ? { key: KEY, text: 'Guten Morgen, wie geht es dir heute? Ich hoffe, gut.', want: 'deu' }
      : { key: KEY_B, text: 'Buenos días, ¿cómo estás hoy? Espero que muy bien.', want: 'spa' });
    const res = await Promise.all(calls.map((c) => lid(c.key, c.text, 'same-id')));
    expect(res.map((r) => r.statusCode)).toEqual(Array(20).fill(200));
    expect(res.map((r) => r.json().language)).toEqual(calls.map((c) => c.want));
    const ids = res.map((r) => String(r.headers['x-request-id']));
    expect(new Set(ids).size).toBe(20);
    expect(res.every((r) => r.headers['x-client-request-id'] === 'same-id')).toBe(true);
  });

  it('bills every call once, whatever X-Request-Id it repeats, for every key (regression: repeats were billed once in all)', async () => {
    // the first test's 20 answers are billed first
    await until(async () => (await svc.ledger.count()) === 20, 5000, "the first test's usage");
    const before = await svc.ledger.count();
    const res = await Promise.all([
      ...Array.from({ length: 10 }, () => lid(KEY, 'Good morning, how are you today?', 'reused')),
      ...Array.from({ length: 10 }, () => lid(KEY_B, 'Good morning, how are you today?', 'reused')),
    ]);
    expect(res.map((r) => r.statusCode)).toEqual(Array(20).fill(200));
    await until(async () => (await svc.ledger.count()) === before + 20, 5000, 'ledger');
    const rows = await svc.ledger.report();
    const byKey = Object.fromEntries(rows.map((r) => [r.key_id, r.requests]));
    expect(Object.values(byKey).reduce((a, b) => a + b, 0)).toBe(before + 20);
  });

  it('ignores an X-Request-Id it cannot log safely, and still answers', async () => {
    const res = await lid(KEY, 'Bonjour tout le monde, comment allez-vous ?', 'x'.repeat(500));
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-client-request-id']).toBeUndefined();
  });
});
