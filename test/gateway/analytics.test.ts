/**
 * GET /v1/analytics (issue 16) on the embedded pipeline: known traffic (30 language-ID
 * texts in 3 languages and 4 bad requests from one key, 5 texts from a second) comes back
 * grouped by label and status with its errors and latency percentiles; a key sees only its
 * own traffic, an admin key every key's; the query's limits.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Embedded } from '../../services/embedded.ts';
import { AUTH, KEY_B, post, startService, until } from '../helpers/service.ts';

const ADMIN = 'admin-key-0123456789';
let svc: Embedded;
const get = async (url: string, key: Record<string, string> = AUTH) => {
  const res = await svc.gateway.app.inject({ method: 'GET', url, headers: key });
  return { status: res.statusCode, body: res.json() as Record<string, any> };
};
const B = { authorization: `Bearer ${KEY_B}` };
const A = { authorization: `Bearer ${ADMIN}` };

beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_MAX: 1_000_000, API_ADMIN_KEYS: ADMIN, OUTCOME_EVENTS: 'true' }, { capabilities: ['language-id'] });
  const texts = ['Habari za asubuhi, rafiki yangu mpendwa', 'Bonjour à tous et bonne journée', 'Guten Morgen, wie geht es dir heute?'];
  for (let i = 0; i < 30; i++) expect((await post(svc, '/v1/language-id', { text: texts[i % 3], model: 'lid-neural-608' })).status).toBe(200);
  for (let i = 0; i < 4; i++) expect((await post(svc, '/v1/language-id', { text: '' })).status).toBe(400);
  for (let i = 0; i < 5; i++) expect((await post(svc, '/v1/language-id', { text: texts[0], model: 'lid-neural-608' }, B)).status).toBe(200);
  await until(async () => (await get('/v1/analytics', A)).body.totals?.events === 39, 10_000, 'the 39 outcomes in analytics');
});
afterAll(async () => { await svc?.close(); });

describe('GET /v1/analytics', () => {
  it('groups a key\'s own traffic by label, with counts, errors and latency percentiles', async () => {
    const r = await get('/v1/analytics?group_by=label,status');
    expect(r.status).toBe(200);
    expect(r.body.scope).toMatch(/^env-/);
    expect(r.body.totals).toMatchObject({ events: 34, items: 30, billable: 30, errors: 4 });
    const byLabel = Object.fromEntries(r.body.series.map((s: any) => [`${s.group.label}|${s.group.status}`, s.totals]));
    expect(byLabel['swh_Latn|200'].items).toBe(10);
    expect(byLabel['fra_Latn|200'].items).toBe(10);
    expect(byLabel['deu_Latn|200'].items).toBe(10);
    expect(byLabel['|400']).toMatchObject({ events: 4, errors: 4, items: 0 });
    const swh = byLabel['swh_Latn|200'];
    expect(swh.p50_ms).toBeGreaterThan(0);
    expect(swh.p99_ms).toBeGreaterThanOrEqual(swh.p50_ms);
    expect(swh.confidence.reduce((a: number, b: number) => a + b, 0)).toBe(10);
    // one point per step with events, inside the range
    const points = r.body.series.flatMap((s: any) => s.points);
    expect(points.reduce((n: number, p: any) => n + p.events, 0)).toBe(34);
    for (const p of points) expect(Date.parse(p.t)).toBeGreaterThanOrEqual(Date.parse(r.body.from));
  });

  it('shows a key only its own traffic; an admin key sees every key and may filter by key', async () => {
    const b = await get('/v1/analytics', B);
    expect(b.body.totals).toMatchObject({ events: 5, items: 5 });
    const own = (await get('/v1/analytics')).body.scope as string;
    expect((await get(`/v1/analytics?key=${encodeURIComponent(b.body.scope)}`)).status).toBe(403);
    expect((await get(`/v1/analytics?key=${encodeURIComponent(own)}`)).status).toBe(200);
    const all = await get('/v1/analytics?group_by=key', A);
    expect(all.body.scope).toBe('all keys');
    expect(all.body.totals.events).toBe(39);
    expect(all.body.series.map((s: any) => s.totals.events).sort()).toEqual([34, 5]);
    expect((await get(`/v1/analytics?key=${encodeURIComponent(b.body.scope)}`, A)).body.totals.events).toBe(5);
    expect((await get('/v1/analytics?capability=decide', A)).body.totals.events).toBe(0);
    expect((await get('/v1/analytics', {})).status).toBe(401);
  });

  it('splits traffic by source: all of it came through the gateway', async () => {
    const r = await get('/v1/analytics?group_by=source', A);
    expect(r.body.series.map((s: any) => [s.group.source, s.totals.events])).toEqual([['gateway', 39]]);
    expect((await get('/v1/analytics?source=bulk', A)).body.totals.events).toBe(0);
  });

  it('shows an admin key the consumer lag of the pipeline\'s groups and the live workers with their models; other keys get 403', async () => {
    const r = await get('/v1/analytics/pipeline', A);
    expect(r.status).toBe(200);
    const groups = Object.fromEntries(r.body.consumer_groups.map((g: any) => [g.group, g]));
    for (const g of ['lmstream.workers.language-id', 'lmstream.billing', 'lmstream.analytics']) {
      expect(groups[g], g).toBeDefined();
      expect(groups[g].lag).toBeGreaterThanOrEqual(0);
    }
    const lid = r.body.workers.filter((w: any) => w.capability === 'language-id');
    expect(lid).toHaveLength(1);
    expect(lid[0].models.find((m: any) => m.name === 'lid-neural-608')).toMatchObject({ installed: true, loaded: true });
    expect(lid[0].last_heartbeat_ms).toBeGreaterThanOrEqual(0);
    expect((await get('/v1/analytics/pipeline')).status).toBe(403);
    expect((await get('/v1/analytics/pipeline', {})).status).toBe(401);
  });

  it('refuses a malformed query with 400', async () => {
    for (const q of ['step=2m', 'group_by=text', 'from=2026-11-02T00:00:00Z&to=2026-11-01T00:00:00Z', 'from=0&to=99999999999999', 'from=0&to=86400000&step=1m&x=1', 'status=abc', 'source=other', 'group_by=source,text', `label=${'x'.repeat(257)}`]) {
      const r = await get(`/v1/analytics?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.code).toBe('INVALID_REQUEST');
    }
    // 1,441 one-minute steps
    expect((await get('/v1/analytics?from=0&to=86460000&step=1m')).status).toBe(400);
  });
});
