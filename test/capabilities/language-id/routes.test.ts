/**
 * The language-ID routes' answers as HTTP text (services/capabilities/language-id/routes.ts).
 */
import fastJsonStringify from 'fast-json-stringify';
import { describe, expect, it } from 'vitest';
import { BATCH_ANSWER } from '../../../services/capabilities/language-id/routes.ts';
import { AUTH, servicesClosedAfterEach } from '../../helpers/service.ts';

const service = servicesClosedAfterEach();

describe('POST /v1/language-id/batch', () => {
  it('writes the answer as the response schema would: its fields only, the same text', async () => {
    const svc = await service();
    const texts = ['Guten Morgen, wie geht es dir heute?', 'Habari za asubuhi, rafiki yangu?', '12345 67890', 'console.log("hello world");', 'Ẹ kú àárọ̀, ṣé àlàáfíà ni?'];
    const res = await svc.gateway.app.inject({ method: 'POST', url: '/v1/language-id/batch', payload: { texts, model: 'lid-lite-608', top_k: 2 }, headers: AUTH });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = res.json() as { results: Array<Record<string, unknown>>; usage: unknown };
    expect(body.results).toHaveLength(texts.length);
    expect(body.usage).toEqual({ texts: texts.length });
    for (const r of body.results) {
      expect(Object.keys(r).sort()).toEqual(['confidence', 'label', 'language', 'language_name', 'script', 'top', 'warnings']);
      for (const c of r.top as Array<Record<string, unknown>>) expect(Object.keys(c).sort()).toEqual(['label', 'language', 'score']);
    }
    // fast-json-stringify drops what its schema does not name: the same text means nothing extra was written
    expect(res.payload).toBe(fastJsonStringify(BATCH_ANSWER as object)(body));
  });

  it('keeps the error schema for a refused batch', async () => {
    const svc = await service();
    const res = await svc.gateway.app.inject({ method: 'POST', url: '/v1/language-id/batch', payload: { texts: [], model: 'lid-lite-608' }, headers: AUTH });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: expect.any(String) });
  });
});
