/**
 * Templates as grammars (services/capabilities/extract/template.ts) and the answer built
 * from a generation (fill.ts): every leaf type's schema, nulls for missing values, the
 * verbatim check, integers and dates the grammar cannot rule out, confidences of the
 * data's shape (an empty list has none) and their calibration.
 */
import { describe, expect, it } from 'vitest';
import { fillTemplate } from '../../../services/capabilities/extract/fill.ts';
import { isCalendarDate, templateSchema } from '../../../services/capabilities/extract/template.ts';
import type { GeneratedToken } from '../../../services/llm/generate.ts';
import { spanProbability } from '../../../services/llm/generate.ts';

const LIMITS = { maxValueChars: 50, maxListItems: 5 };

/** A generation of `text` in tokens of `size` characters, each with probability `p`. */
function tokensOf(text: string, p = 0.9, size = 3): GeneratedToken[] {
  const out: GeneratedToken[] = [];
  for (let i = 0; i < text.length; i += size) out.push({ token: i as never, probability: p, start: i, end: Math.min(text.length, i + size) });
  return out;
}

describe('templateSchema', () => {
  it('gives every leaf type of the spec its schema, each nullable, lists bounded', () => {
    const s = templateSchema({
      a: 'verbatim-string', b: 'string', c: 'number', d: 'integer', e: 'date', f: 'date-time', g: 'boolean',
      h: ['x', 'y'], i: [['p', 'q', 'r']], j: ['string'], k: [{ n: 'string' }], l: { m: 'number' },
    }, LIMITS);
    expect(s).toMatchObject({ type: 'object', additionalProperties: false, required: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l'] });
    const p = (s as { properties: Record<string, unknown> }).properties;
    expect(p.a).toEqual({ oneOf: [{ type: 'string', maxLength: 50 }, { type: 'null' }] });
    expect(p.c).toEqual({ type: ['number', 'null'] });
    expect(p.d).toEqual({ type: ['integer', 'null'] });
    expect(p.e).toEqual({ oneOf: [{ type: 'string', format: 'date' }, { type: 'null' }] });
    expect(p.f).toEqual({ oneOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }] });
    expect(p.g).toEqual({ type: ['boolean', 'null'] });
    expect(p.h).toEqual({ enum: ['x', 'y', null] });
    expect(p.i).toEqual({ type: 'array', items: { enum: ['p', 'q', 'r'] }, maxItems: 3 });
    expect(p.j).toEqual({ type: 'array', items: { type: 'string', maxLength: 50 }, maxItems: 5 });
    expect(p.k).toMatchObject({ type: 'array', maxItems: 5, items: { type: 'object', required: ['n'] } });
    expect(p.l).toMatchObject({ type: 'object', properties: { m: { type: ['number', 'null'] } } });
  });
  it('knows calendar dates', () => {
    expect(isCalendarDate('2026-02-28')).toBe(true);
    expect(isCalendarDate('2026-02-30')).toBe(false);
    expect(isCalendarDate('2026-11-02T09:00:00Z')).toBe(true);
  });
});

describe('fillTemplate', () => {
  const template = { sender: 'verbatim-string', amount: 'number', count: 'integer', when: 'date', tags: [['fuel', 'food']], items: [{ name: 'string' }], notes: ['string'], kind: ['receipt', 'bill'] };
  it('keeps values the document supports and nulls those the template rules out, with confidence 0', () => {
    const out = { sender: 'NAIVAS  Ltd', amount: 1250, count: 2.5, when: '2026-02-30', tags: ['fuel', 'fuel', 'food'], items: [], notes: ['a'], kind: 'bill' };
    const text = JSON.stringify(out);
    const f = fillTemplate(template, text, tokensOf(text), 'Receipt from NAIVAS Ltd, total 1,250');
    expect(f.data).toEqual({ sender: 'NAIVAS  Ltd', amount: 1250, count: null, when: null, tags: ['fuel', 'food'], items: [], notes: ['a'], kind: 'bill' });
    const c = f.confidence as Record<string, any>;
    expect(c.count).toBe(0);
    expect(c.when).toBe(0);
    expect(c.items).toEqual([]);
    expect(c.tags).toHaveLength(2);
    expect(c.notes).toHaveLength(1);
    for (const v of [c.sender, c.amount, c.kind, ...c.tags, ...c.notes]) { expect(v).toBeGreaterThan(0); expect(v).toBeLessThan(1); }
    // a verbatim value that is not in the document is nulled
    const forged = JSON.stringify({ ...out, sender: 'CARREFOUR' });
    expect((fillTemplate(template, forged, tokensOf(forged), 'Receipt from NAIVAS Ltd').data as any).sender).toBeNull();
  });
  it('gives a value the probability of its tokens, calibrated by a temperature', () => {
    const text = '{"sender":null,"amount":7,"count":null,"when":null,"tags":[],"items":[{"name":"x"}],"notes":[],"kind":null}';
    const tokens = tokensOf(text, 0.5, 1);
    const f = fillTemplate(template, text, tokens, '');
    const c = f.confidence as Record<string, any>;
    // "7" is one character: one token of 0.5
    expect(c.amount).toBeCloseTo(0.5, 12);
    expect(c.sender).toBeCloseTo(0.5 ** 4, 12);
    expect(c.items).toHaveLength(1);
    expect(c.items[0].name).toBeCloseTo(0.5 ** 3, 12);
    const hot = fillTemplate(template, text, tokens, '', 2).confidence as Record<string, any>;
    expect(hot.amount).toBeCloseTo(Math.SQRT1_2, 12);
    expect(spanProbability(tokens, 0, 0)).toBe(1);
  });
  it('fills missing keys with null and a missing list with []', () => {
    const f = fillTemplate({ a: 'string', b: ['string'], c: { d: 'number' } }, '{}', [], '');
    expect(f).toEqual({ data: { a: null, b: [], c: { d: null } }, confidence: { a: 0, b: [], c: { d: 0 } } });
  });
});
