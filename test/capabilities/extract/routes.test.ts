/**
 * POST /v1/extract and /v1/extract/batch through the embedded pipeline on the tiny
 * extraction weights: models listed available, answers in the template's shape with a
 * confidence tree, an image (data URL) read by OCR in the worker, per-document failure in
 * a batch (400 at the gateway, 413 in the worker), and only extracted documents billed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Embedded } from '../../../services/embedded.ts';
import { AUTH, post, startService, until } from '../../helpers/service.ts';
import { repositoryWith, useTinyWeights } from '../../helpers/llm.ts';
import { NOT_IMAGES, expectShape, textImage } from './helpers.ts';

useTinyWeights();
// short strings and lists: the tiny random models write each string and list to its limit
const SHORT = { max_value_chars: 40, max_list_items: 3 };
const repo = repositoryWith({ 'mist-extract-1.0': SHORT, 'mist-extract-flash-1.0': SHORT });
let svc: Embedded;
beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_MAX: 1_000_000, MODEL_REPOSITORY: repo }, { capabilities: ['extract'] });
  await until(async () => {
    const res = await svc.gateway.app.inject({ method: 'GET', url: '/v1/models' });
    const models = (res.json() as { models: Array<{ name: string; status: string }> }).models;
    return ['mist-extract-1.0', 'mist-extract-flash-1.0'].every((n) => models.find((m) => m.name === n)?.status === 'available');
  }, 20_000, 'extraction models available');
});
afterAll(async () => { await svc?.close(); });

const TEMPLATE = { sender: 'verbatim-string', amount: 'number', kind: ['receipt', 'bill'], lines: [{ item: 'string' }] };
const TEXT = 'Receipt from NAIVAS SUPERMARKET. Total KES 1,250.00 paid 2 Nov 2026.';

describe('POST /v1/extract on a llama.cpp model', () => {
  it('answers in the template\'s shape with a confidence per field, billed one document', async () => {
    const r = await post(svc, '/v1/extract', { template: TEMPLATE, text: TEXT, model: 'mist-extract-flash-1.0' });
    expect(r.status).toBe(200);
    expect(r.body.model).toBe('mist-extract-flash-1.0');
    expect(r.body.usage).toEqual({ documents: 1 });
    expectShape(TEMPLATE, r.body.data, r.body.confidence);
    // the template may come as a JSON string; the default model is mist-extract-1.0
    const s = await post(svc, '/v1/extract', { template: JSON.stringify({ total: 'number' }), text: TEXT });
    expect(s.status).toBe(200);
    expect(s.body.model).toBe('mist-extract-1.0');
    expectShape({ total: 'number' }, s.body.data, s.body.confidence);
  });

  it('reads an image given as a data URL', async () => {
    const png = await textImage(['NAIVAS SUPERMARKET', 'TOTAL KES 1,250.00']);
    const r = await post(svc, '/v1/extract', { template: { total: 'number' }, image: `data:image/png;base64,${png.toString('base64')}`, model: 'mist-extract-flash-1.0' });
    expect(r.status).toBe(200);
    expectShape({ total: 'number' }, r.body.data, r.body.confidence);
  });

  it('fails documents alone in a batch and bills only extracted ones', async () => {
    const r = await post(svc, '/v1/extract/batch', {
      model: 'mist-extract-flash-1.0',
      documents: [
        { id: 'none', template: { total: 'number' } },
        { id: 'long', template: { total: 'number' }, text: '漢 '.repeat(1500) },
        { id: 3, template: { total: 'number' }, text: TEXT },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body.results[0]).toMatchObject({ id: 'none', data: null, confidence: null, status: 400 });
    expect(r.body.results[1]).toMatchObject({ id: 'long', data: null, confidence: null, status: 413, code: 'CONTEXT_TOO_LONG' });
    expect(r.body.results[2].id).toBe(3);
    expectShape({ total: 'number' }, r.body.results[2].data, r.body.results[2].confidence);
    expect(r.body.usage).toEqual({ documents: 1 });
    await until(async () => {
      const res = await svc.gateway.app.inject({ method: 'GET', url: '/v1/usage', headers: AUTH });
      const rows = (res.json() as { usage: Array<{ capability: string; unit: string; quantity: number }> }).usage;
      // 2 + 1 + 1 (rows are per model): the failed documents are not billed
      return rows.filter((row) => row.capability === 'extract' && row.unit === 'documents').reduce((n, row) => n + row.quantity, 0) === 4;
    }, 10_000, 'the 4 extracted documents in the ledger');
  });

  it('refuses an image that can never be one with 400, as it does without the weights (issue 32)', async () => {
    for (const { what, image, error } of NOT_IMAGES) {
      const r = await post(svc, '/v1/extract', { template: { total: 'number' }, image, model: 'mist-extract-flash-1.0' });
      expect(r.status, what).toBe(400);
      expect(r.body, what).toMatchObject({ status: 400, code: 'INVALID_REQUEST', error: expect.stringMatching(error) });
    }
    const r = await post(svc, '/v1/extract/batch', {
      model: 'mist-extract-flash-1.0',
      documents: [{ id: 'link', template: { total: 'number' }, image: NOT_IMAGES[0]!.image }, { id: 'text', template: { total: 'number' }, text: TEXT }],
    });
    expect(r.status).toBe(200);
    expect(r.body.results[0]).toEqual({ id: 'link', data: null, confidence: null, status: 400, code: 'INVALID_REQUEST', error: 'documents[0].image must be base64 or a data URL; image links are not fetched' });
    expectShape({ total: 'number' }, r.body.results[1].data, r.body.results[1].confidence);
    expect(r.body.usage).toEqual({ documents: 1 });
  });

  it('decodes the 16 images of a full batch without a listener per image on the request\'s signal (issue 33, minor: MaxListenersExceededWarning)', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => { warnings.push(`${w.name}: ${w.message}`); };
    process.on('warning', onWarning);
    try {
      const png = (await textImage(['TOTAL KES 1,250.00'])).toString('base64');
      const r = await post(svc, '/v1/extract/batch', {
        model: 'mist-extract-flash-1.0', documents: Array.from({ length: 16 }, (_, i) => ({ id: i, template: { total: 'number' }, image: png })),
      });
      expect(r.status).toBe(200);
      expect(r.body.usage).toEqual({ documents: 16 });
      // warnings are emitted on the next tick
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.startsWith('MaxListenersExceededWarning'))).toEqual([]);
    } finally { process.off('warning', onWarning); }
  });
});
