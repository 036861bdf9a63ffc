/**
 * The operator dashboard in a real browser (issue 16): Chromium (Debian's `chromium`,
 * driven by playwright-core) opens GET /dashboard on the embedded service after known
 * traffic (300 language-ID texts in 3 languages and 20 bad requests from one key, 5 texts
 * from a second), the key is typed in, and the page shows those counts, the three
 * languages with their shares and the error count, with no console error (a
 * Content-Security-Policy violation is one); the second key sees only its own traffic; an
 * admin key also sees the bulk ingestion jobs, latest first, with their language mix (texts
 * per label, confidence, no-language share), the consumer lag and the live workers; a wrong
 * key after a right one leaves none of the right one's figures on the page. Screenshots go to
 * test-output/dashboard.png (admin) and dashboard-phone.png.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Embedded } from '../../services/embedded.ts';
import { DASHBOARD_CSP } from '../../services/gateway/routes/dashboard.ts';
import { topicsFor } from '../../services/events/topics.ts';
import { KEY, KEY_B, UNTIL_MIN_MS, post, startService, until } from '../helpers/service.ts';

const CHROMIUM = '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
if (!available && process.env.CI) throw new Error('CI needs Chromium for the dashboard test: apt-get install chromium');
const OUT = join(import.meta.dirname, '..', '..', 'test-output');
const ADMIN = 'admin-key-0123456789';

describe.skipIf(!available)('GET /dashboard in Chromium', () => {
  let svc: Embedded;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    svc = await startService({ RATE_LIMIT_MAX: 1_000_000, OUTCOME_EVENTS: 'true', API_ADMIN_KEYS: ADMIN }, { capabilities: ['language-id'] });
    const texts = ['Habari za asubuhi, rafiki yangu mpendwa', 'Bonjour à tous et bonne journée', 'Guten Morgen, wie geht es dir heute?'];
    for (let i = 0; i < 300; i++) expect((await post(svc, '/v1/language-id', { text: texts[i % 3], model: 'lid-neural-608' })).status).toBe(200);
    for (let i = 0; i < 20; i++) expect((await post(svc, '/v1/language-id', { text: '' })).status).toBe(400);
    for (let i = 0; i < 5; i++) expect((await post(svc, '/v1/language-id', { text: texts[1], model: 'lid-neural-608' }, { authorization: `Bearer ${KEY_B}` })).status).toBe(200);
    // two bulk ingestion jobs, as connectors/lid-source.ts writes them: web1 has 20 Swahili,
    // 10 German and 10 texts in no language; news has 6 French
    const topic = topicsFor('lmstream').requests('language-id');
    const bulk = [...Array<string>(20).fill(texts[0]!), ...Array<string>(10).fill(texts[2]!), ...Array<string>(10).fill('1234 5678 9012')].map((text): readonly [string, string] => ['web1', text])
      .concat(Array.from({ length: 6 }, (): readonly [string, string] => ['news', texts[1]!]));
    await svc.transport.producer().send(topic, await Promise.all(bulk.map(async ([job, text], i) => ({
      key: null, value: await svc.codec.encode('language-id/request', { text, model: 'lid-neural-608', mode: 'coverage', topK: 1, candidates: null }),
      headers: { 'request-id': job, 'item-index': String(i), 'key-id': `bulk:${job}` },
    }))));
    // an older job, first by name: its one outcome 20 minutes ago
    await svc.transport.producer().send(topicsFor('lmstream').outcomes, [{
      key: 'bulk:aaa-old',
      value: await svc.codec.encode('common/outcome', { events: [{
        requestId: 'aaa-old', itemIndex: 0, keyId: 'bulk:aaa-old', source: 'bulk', capability: 'language-id', model: 'lid-neural-608', status: 200, code: null,
        items: 1, billable: 1, queueMs: 1, inferenceMs: 1, totalMs: 2, label: 'eng_Latn', confidenceBucket: 9, timestampMs: Date.now() - 20 * 60_000,
      }] }),
    }]);
    const total = async () => (await svc.analytics.store.buckets(0, Date.now() + 60_000)).reduce((n, b) => n + b.events, 0);
    await until(async () => (await total()) === 372, 20_000, 'the 372 outcomes in analytics');
    await svc.gateway.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(svc.gateway.app.server.address() as { port: number }).port}`;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });
  afterAll(async () => { await browser?.close(); await svc?.close(); });

  /** Opens the dashboard in a fresh context (fresh sessionStorage) with a key; collects console errors. */
  async function open(key: string, width = 1100): Promise<{ page: Page; errors: string[] }> {
    const context = await browser.newContext({ viewport: { width, height: 1400 } });
    // waits for what the page shows, with a bound far above what it takes on a busy machine
    context.setDefaultTimeout(UNTIL_MIN_MS);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    page.on('pageerror', (e) => errors.push(e.message));
    const res = await page.goto(`${base}/dashboard`);
    expect(res!.headers()['content-security-policy']).toBe(DASHBOARD_CSP);
    await page.fill('#key', key);
    await page.click('button[type=submit]');
    await page.waitForSelector('#main:not([hidden])');
    return { page, errors };
  }
  const cells = (page: Page, table: string) => page.$$eval(`#${table} tbody tr`, (rows) => rows.map((r) => Array.from(r.querySelectorAll('td')).map((td) => td.textContent ?? '')));

  it('shows the key\'s counts, languages with their shares and errors, with no console error', async () => {
    const { page, errors } = await open(KEY);
    await page.waitForFunction(() => document.querySelectorAll('#t-languages tbody tr').length === 3);
    expect(await page.textContent('#c-events')).toBe('320');
    expect(await page.textContent('#c-items')).toBe('300');
    expect(await page.textContent('#c-errors')).toBe('20 (6.3 %)');
    const languages = await cells(page, 't-languages');
    expect(languages.map((r) => [r[0], r[1], r[2]]).sort()).toEqual([['deu_Latn', '100', '33.3 %'], ['fra_Latn', '100', '33.3 %'], ['swh_Latn', '100', '33.3 %']]);
    expect(await cells(page, 't-errors')).toEqual([['400', 'INVALID_REQUEST', '20', '6.3 %']]);
    // the refused requests count for the model they named (the default one): 320 requests, 300 items
    expect((await cells(page, 't-usage')).map((r) => r.slice(0, 5))).toEqual([['language-id', 'lid-neural-608', '320', '300', '300']]);
    expect(await page.$$('#chart-rate canvas')).toHaveLength(1);
    // bulk ingestion and the pipeline are an admin's
    expect(await page.isVisible('#bulk-none')).toBe(true);
    expect(await page.isVisible('#pipeline-note')).toBe(true);
    expect(errors).toEqual([]);
  });

  it('shows an admin key each bulk ingestion\'s language mix, confidence and no-language share, the consumer lag and the live workers', async () => {
    const { page, errors } = await open(ADMIN);
    await page.waitForFunction(() => document.querySelectorAll('#t-bulk-labels tbody tr').length > 0 && document.querySelectorAll('#t-workers tbody tr').length > 0);
    // the latest job is shown first (news and web1 ran in the same minute: by name), not the
    // first by name (regression: it opened on the alphabetically first job)
    expect(await page.textContent('#b-texts')).toBe('6');
    expect(await page.$$eval('#bulk-select option', (o) => o.map((x) => x.textContent))).toEqual(['news', 'web1', 'aaa-old']);
    // every key's traffic: 325 API requests and 47 bulk items
    expect(await page.textContent('#c-events')).toBe('372');
    await page.selectOption('#bulk-select', 'web1');
    await page.waitForFunction(() => document.getElementById('b-texts')?.textContent === '40');
    expect((await cells(page, 't-bulk-labels')).map((r) => r.slice(0, 3))).toEqual([['swh_Latn', '20', '50.0 %'], ['deu_Latn', '10', '25.0 %'], ['zxx_Zxxx', '10', '25.0 %']]);
    expect(await page.textContent('#b-labels')).toBe('3');
    expect(await page.textContent('#b-zxx')).toBe('25.0 %');
    const confidence = await cells(page, 't-bulk-confidence');
    expect(confidence).toHaveLength(10);
    expect(confidence.reduce((n, r) => n + Number(r[1]), 0)).toBe(40);
    // the API's language mix leaves bulk ingestion out
    expect((await cells(page, 't-languages')).map((r) => [r[0], r[1]]).sort()).toEqual([['deu_Latn', '100'], ['fra_Latn', '105'], ['swh_Latn', '100']]);
    const lag = Object.fromEntries((await cells(page, 't-lag')).map((r) => [r[0], r[2]]));
    for (const g of ['lmstream.workers.language-id', 'lmstream.billing', 'lmstream.analytics']) expect(Number(lag[g]), g).toBeGreaterThanOrEqual(0);
    const workers = await cells(page, 't-workers');
    expect(workers.map((r) => r[0])).toEqual(['language-id']);
    expect(workers[0]![2]).toContain('lid-neural-608');
    mkdirSync(OUT, { recursive: true });
    await page.screenshot({ path: join(OUT, 'dashboard.png'), fullPage: true });
    expect(errors).toEqual([]);
  });

  it('shows a second key only its own traffic, and works on a phone-sized screen', async () => {
    const { page, errors } = await open(KEY_B, 390);
    await page.waitForFunction(() => document.querySelectorAll('#t-languages tbody tr').length === 1);
    expect(await page.textContent('#c-events')).toBe('5');
    expect((await cells(page, 't-languages')).map((r) => r.slice(0, 3))).toEqual([['fra_Latn', '5', '100.0 %']]);
    // nothing wider than the screen
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(OUT, 'dashboard-phone.png'), fullPage: true });
    expect(errors).toEqual([]);
  });

  it('says so when the key is wrong, and shows nothing of the key entered before (regression: the earlier key\'s figures stayed)', async () => {
    const { page } = await open(KEY);
    await page.waitForFunction(() => document.getElementById('c-events')?.textContent === '320');
    await page.fill('#key', 'not-a-key');
    await page.click('button[type=submit]');
    await page.waitForFunction(() => /key/i.test(document.getElementById('status')?.textContent ?? ''));
    expect(await page.textContent('#status')).toMatch(/unknown or revoked API key/);
    expect(await page.isHidden('#main')).toBe(true);
    // and stays so through the next refreshes (every 5 s)
    await page.waitForTimeout(6000);
    expect(await page.isHidden('#main')).toBe(true);
    expect(await page.textContent('#status')).toMatch(/unknown or revoked API key/);
  });
});
