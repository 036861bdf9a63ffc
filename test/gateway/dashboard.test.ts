/**
 * The operator dashboard in a real browser (issue 16): Chromium (Debian's `chromium`,
 * driven by playwright-core) opens GET /dashboard on the embedded service after known
 * traffic (300 language-ID texts in 3 languages and 20 bad requests from one key, 5 texts
 * from a second), the key is typed in, and the page shows those counts, the three
 * languages with their shares and the error count, with no console error (a
 * Content-Security-Policy violation is one); the second key sees only its own traffic. A
 * screenshot goes to test-output/dashboard.png.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Embedded } from '../../services/embedded.ts';
import { DASHBOARD_CSP } from '../../services/gateway/routes/dashboard.ts';
import { KEY, KEY_B, post, startService, until } from '../helpers/service.ts';

const CHROMIUM = '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
if (!available && process.env.CI) throw new Error('CI needs Chromium for the dashboard test: apt-get install chromium');
const OUT = join(import.meta.dirname, '..', '..', 'test-output');

describe.skipIf(!available)('GET /dashboard in Chromium', () => {
  let svc: Embedded;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    svc = await startService({ RATE_LIMIT_MAX: 1_000_000, OUTCOME_EVENTS: 'true' }, { capabilities: ['language-id'] });
    const texts = ['Habari za asubuhi, rafiki yangu mpendwa', 'Bonjour à tous et bonne journée', 'Guten Morgen, wie geht es dir heute?'];
    for (let i = 0; i < 300; i++) expect((await post(svc, '/v1/language-id', { text: texts[i % 3], model: 'lid-neural-608' })).status).toBe(200);
    for (let i = 0; i < 20; i++) expect((await post(svc, '/v1/language-id', { text: '' })).status).toBe(400);
    for (let i = 0; i < 5; i++) expect((await post(svc, '/v1/language-id', { text: texts[1], model: 'lid-neural-608' }, { authorization: `Bearer ${KEY_B}` })).status).toBe(200);
    const total = async () => (await svc.analytics.store.buckets(0, Date.now() + 60_000)).reduce((n, b) => n + b.events, 0);
    await until(async () => (await total()) === 325, 20_000, 'the 325 outcomes in analytics');
    await svc.gateway.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(svc.gateway.app.server.address() as { port: number }).port}`;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  }, 120_000);
  afterAll(async () => { await browser?.close(); await svc?.close(); });

  /** Opens the dashboard in a fresh context (fresh sessionStorage) with a key; collects console errors. */
  async function open(key: string, width = 1100): Promise<{ page: Page; errors: string[] }> {
    const context = await browser.newContext({ viewport: { width, height: 1400 } });
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
    mkdirSync(OUT, { recursive: true });
    await page.screenshot({ path: join(OUT, 'dashboard.png'), fullPage: true });
    expect(errors).toEqual([]);
  }, 60_000);

  it('shows a second key only its own traffic, and works on a phone-sized screen', async () => {
    const { page, errors } = await open(KEY_B, 390);
    await page.waitForFunction(() => document.querySelectorAll('#t-languages tbody tr').length === 1);
    expect(await page.textContent('#c-events')).toBe('5');
    expect((await cells(page, 't-languages')).map((r) => r.slice(0, 3))).toEqual([['fra_Latn', '5', '100.0 %']]);
    // nothing wider than the screen
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(errors).toEqual([]);
  }, 60_000);

  it('says so when the key is wrong', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${base}/dashboard`);
    await page.fill('#key', 'not-a-key');
    await page.click('button[type=submit]');
    await page.waitForFunction(() => (document.getElementById('status')?.textContent ?? '').length > 0);
    expect(await page.textContent('#status')).toMatch(/key/i);
    expect(await page.isHidden('#main')).toBe(true);
  }, 60_000);
});
