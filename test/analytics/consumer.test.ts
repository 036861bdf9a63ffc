/**
 * The analytics consumer in embedded mode (services/analytics/consumer.ts, issue 16):
 * answered requests reach the analytics store as minute buckets through the outcomes
 * topic, in their own consumer group, once each.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Embedded } from '../../services/embedded.ts';
import { post, startService, until } from '../helpers/service.ts';

let svc: Embedded;
beforeAll(async () => { svc = await startService({ RATE_LIMIT_MAX: 1_000_000, OUTCOME_EVENTS: 'true' }, { capabilities: ['language-id'] }); }, 60_000);
afterAll(async () => { await svc?.close(); });

describe('analytics consumer', () => {
  it('folds the outcomes of answered and refused requests into minute buckets, by label and status', async () => {
    const texts = ['Habari za asubuhi, rafiki yangu mpendwa', 'Bonjour à tous et bonne journée', 'Guten Morgen, wie geht es dir heute?'];
    for (let i = 0; i < 30; i++) expect((await post(svc, '/v1/language-id', { text: texts[i % 3], model: 'lid-neural-608' })).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await post(svc, '/v1/language-id', { text: '' })).status).toBe(400);
    await svc.gateway.app.inject({ method: 'POST', url: '/v1/language-id', payload: { text: 'no key' } });
    const from = Date.now() - 3_600_000, to = Date.now() + 60_000;
    const total = async () => (await svc.analytics.store.buckets(from, to)).reduce((n, b) => n + b.events, 0);
    await until(async () => (await total()) >= 35, 10_000, 'the 35 outcomes in the store');
    const buckets = await svc.analytics.store.buckets(from, to);
    const byLabel = (label: string) => buckets.filter((b) => b.label === label && b.status === 200).reduce((n, b) => n + b.items, 0);
    expect([byLabel('swh_Latn'), byLabel('fra_Latn'), byLabel('deu_Latn')]).toEqual([10, 10, 10]);
    expect(buckets.filter((b) => b.status === 400).reduce((n, b) => n + b.events, 0)).toBe(4);
    expect(buckets.find((b) => b.status === 400)!.code).toBe('INVALID_REQUEST');
    expect(buckets.find((b) => b.status === 401)!.keyId).toBe('anonymous');
    expect(buckets.filter((b) => b.status === 200).reduce((n, b) => n + b.billable, 0)).toBe(30);
    expect(await total()).toBe(35);
  });
});
