/**
 * The `llama-extract` engine (services/capabilities/extract/backends/llama-extract.ts) on
 * the tiny extraction weights: the answer always has the template's shape for every leaf
 * type (the grammar), confidences have the data's shape, images are read by OCR, a
 * document past the context fails alone with 413, and a running document stops when its
 * request is cancelled.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine, userMessage } from '../../../services/capabilities/extract/backends/llama-extract.ts';
import { runControl } from '../../../services/workers/engines/types.ts';
import { repositoryWith, useTinyWeights } from '../../helpers/llm.ts';
import { expectShape, textImage } from './helpers.ts';

useTinyWeights();
// short strings and lists: the tiny random models write each string and list to its limit
const SHORT = { max_value_chars: 40, max_list_items: 3 };
const engine = createEngine({ repository: repositoryWith({ 'mist-extract-1.0': SHORT, 'mist-extract-flash-1.0': SHORT }), executionProvider: 'cpu', intraOpThreads: 1 });
const MODELS_UNDER_TEST = ['mist-extract-1.0', 'mist-extract-flash-1.0'];
afterAll(async () => { for (const m of MODELS_UNDER_TEST) await engine.unload(m); });

const TEMPLATES: Array<Record<string, unknown>> = [
  { sender: 'verbatim-string', amount: 'number', reference: 'string', date: 'date' },
  { paid: 'boolean', count: 'integer', kind: ['receipt', 'bill', 'letter'], tags: [['fuel', 'food', 'rent']], at: 'date-time' },
  { items: [{ name: 'string', qty: 'integer', price: 'number' }], notes: ['string'], payer: { name: 'string', phone: 'verbatim-string' } },
];
const TEXT = 'QK72HS9 Confirmed. Ksh2,500.00 sent to JANE WANJIKU 0712345678 on 2/11/26 at 9:13 AM. New M-PESA balance is Ksh7,300.00.';

describe('llama-extract engine', () => {
  for (const model of MODELS_UNDER_TEST) {
    it(`keeps every template's shape (${model})`, async () => {
      const rs = await engine.run(model, TEMPLATES.map((t) => ({ model, template: JSON.stringify(t), text: TEXT, image: null, instructions: 'Dates are day/month/year.' })));
      rs.forEach((r, i) => {
        expect(r.failure).toBeNull();
        expectShape(TEMPLATES[i], JSON.parse(r.output!.data), JSON.parse(r.output!.confidence));
      });
    });
  }

  it('reads an image by OCR and puts its text in the prompt', async () => {
    const png = await textImage(['NAIVAS SUPERMARKET', 'TOTAL KES 1,250.00']);
    const [r] = await engine.run('mist-extract-flash-1.0', [{ model: 'mist-extract-flash-1.0', template: JSON.stringify(TEMPLATES[0]), text: null, image: png, instructions: null }]);
    expect(r!.failure).toBeNull();
    expectShape(TEMPLATES[0], JSON.parse(r!.output!.data), JSON.parse(r!.output!.confidence));
    const msg = userMessage(TEMPLATES[0], 'typed text', 'read text', 'an instruction');
    expect(msg).toMatch(/^Template:\n\{"sender":"verbatim-string".*\n\nInstructions: an instruction\n\nDocument:\ntyped text\n\nText read from the document's image:\nread text$/s);
  });

  it('fails a document past the context with 413 alone, and stops a cancelled one', async () => {
    const model = 'mist-extract-flash-1.0';
    const doc = (text: string) => ({ model, template: JSON.stringify(TEMPLATES[2]), text, image: null, instructions: null });
    const control = runControl([Infinity, Infinity, Infinity]);
    Atomics.store(control.cancelled, 2, 1);
    const rs = await engine.run(model, [doc('漢'.repeat(2000)), doc(TEXT), doc(TEXT)], control);
    expect(rs[0]!.failure).toMatchObject({ status: 413, code: 'CONTEXT_TOO_LONG' });
    expect(rs[0]!.failure!.error).toMatch(/maximum context length of 4096 tokens/);
    expect(rs[1]!.failure).toBeNull();
    expect(rs[2]!.failure).toMatchObject({ status: 499, code: 'CANCELLED' });
  });

  it('fails alone a document whose template cannot be a grammar (regression: a NUL in a key failed the whole micro-batch)', async () => {
    const model = 'mist-extract-flash-1.0';
    const rs = await engine.run(model, [
      { model, template: JSON.stringify({ 'a\u0000b': 'number' }), text: TEXT, image: null, instructions: null },
      { model, template: JSON.stringify({ 'quote"and\\backslash': 'number', 'ключ': ['a"', 'b\\'] }), text: TEXT, image: null, instructions: null },
    ]);
    expect(rs[0]!.failure).toMatchObject({ status: 400, code: 'INVALID_REQUEST', error: expect.stringMatching(/cannot be turned into a grammar/) });
    expect(rs[1]!.failure).toBeNull();
    expect(Object.keys(JSON.parse(rs[1]!.output!.data))).toEqual(['quote"and\\backslash', 'ключ']);
  });
});

