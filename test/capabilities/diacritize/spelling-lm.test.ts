/**
 * The spelling model of the diacnet models (services/capabilities/diacritize/
 * spelling-lm.ts, built by scripts/spelling-lm.ts): Witten–Bell probabilities as the
 * formula gives them, summing to one after every prefix; forms of a shape the model has
 * seen outscore others of the same letters; the packed file reads back what was written,
 * a damaged part fails when read; and the weights of word types.
 */
import { describe, expect, it } from 'vitest';
import { END_SYMBOL, openSpellingLm, packSpellingLm, SPELLING_CACHE_KEY_MAX, SPELLING_CACHE_MAX, SpellingLm, START_SYMBOL } from '../../../services/capabilities/diacritize/spelling-lm.ts';
import { buildSpellingArrays, COUNT_STEP, DICTIONARY_FORM_WEIGHT, spellingForms, textFormCounts } from '../../../scripts/spelling-lm.ts';
import { formsOfLine } from '../../../scripts/word-lm.ts';
import { packedPartsOf } from '../../../services/capabilities/diacritize/word-lm-format.ts';

/** Turkish-like forms: "ö" after "g" and before "k", "ş" before "a". */
const FORMS = new Map([['gök', 2], ['gökler', 1], ['göktaşı', 1], ['kaşar', 1], ['başka', 3], ['kol', 1], ['gol', 0], ['kış', -1]]);

describe('spelling model', () => {
  it('gives Witten–Bell probabilities: (C(h c) + T(h) · P(c | shorter h)) / (C(h) + T(h)), over a uniform floor', () => {
    const m = new SpellingLm(buildSpellingArrays(new Map([['ab', 1]]), 2));
    // symbols: ^ $ a b and one outside the alphabet: 5; after the empty history a, b and $ once each
    const uniform = 1 / 5;
    const empty = (n: number) => (n + 3 * uniform) / (3 + 3);
    // each history of one symbol (^, a, b) was followed once by one symbol
    const one = (n: number, lower: number) => (n + lower) / (1 + 1);
    expect(m.probAfter('', 'a')).toBeCloseTo(one(1, empty(1)), 12);
    expect(m.probAfter('a', 'b')).toBeCloseTo(one(1, empty(1)), 12);
    expect(m.probAfter('ab', END_SYMBOL)).toBeCloseTo(one(1, empty(1)), 12);
    expect(m.probAfter('', 'b')).toBeCloseTo(one(0, empty(1)), 12);
    // a letter outside the alphabet gets the floor's share of every level
    expect(m.probAfter('', 'x')).toBeCloseTo(one(0, empty(0)), 12);
    expect(m.logProb('ab')).toBeCloseTo(3 * Math.log(one(1, empty(1))), 12);
  });

  it('sums to one over the alphabet (and one symbol outside it) after every prefix', () => {
    const a = buildSpellingArrays(FORMS, 4);
    const m = new SpellingLm(a);
    const symbols = [...a.alphabet].map((cp) => String.fromCodePoint(cp));
    expect(symbols).toContain(START_SYMBOL);
    for (const prefix of ['', 'g', 'gö', 'gök', 'başk', 'xyz', 'kaşa']) {
      const sum = [...symbols, 'Ω'].reduce((s, c) => s + m.probAfter(prefix, c), 0);
      expect(sum).toBeCloseTo(1, 6);
    }
  });

  it('scores a form of a shape it has seen above the same letters spelt otherwise', () => {
    const m = new SpellingLm(buildSpellingArrays(FORMS));
    expect(m.logProb('gökhan')).toBeGreaterThan(m.logProb('gokhan'));
    expect(m.logProb('başkan')).toBeGreaterThan(m.logProb('baskan'));
    expect(m.logProb('göktaş')).toBeGreaterThan(m.logProb('goktas'));
    expect(m.logProb('')).toBeLessThan(0);
    // forms of weight 0 or less are not counted: without "gol" and "kış" the model is the same
    const without = buildSpellingArrays(new Map([...FORMS].filter(([f]) => f !== 'gol' && f !== 'kış')));
    expect([...without.gramKey]).toEqual([...buildSpellingArrays(FORMS).gramKey]);
    expect([...without.gramCount]).toEqual([...buildSpellingArrays(FORMS).gramCount]);
  });

  it('answers the same when asked again, after SPELLING_CACHE_MAX other forms, and for a form too long to keep', () => {
    const m = new SpellingLm(buildSpellingArrays(FORMS));
    const long = 'gök'.repeat(SPELLING_CACHE_KEY_MAX);
    const first = [m.logProb('gökhan'), m.logProb(long)];
    for (let i = 0; i <= SPELLING_CACHE_MAX; i++) m.logProb(`k${i}`);
    expect([m.logProb('gökhan'), m.logProb(long)]).toEqual(first);
    // the sum of its terms
    const terms = [...'gökhan'].reduce((s, c, i) => s + Math.log(m.probAfter('gökhan'.slice(0, i), c)), 0) + Math.log(m.probAfter('gökhan', END_SYMBOL));
    expect(first[0]).toBeCloseTo(terms, 12);
  });

  it('keeps counts in steps of COUNT_STEP, each history\'s count the sum of its n-grams\'', () => {
    const a = buildSpellingArrays(new Map([['ab', 0.3], ['ac', 1.01]]), 2);
    for (const c of a.gramCount) expect(c / COUNT_STEP).toBe(Math.round(c / COUNT_STEP));
    // the empty history (rank 0): a, b, c and $ after it
    const empty = [...a.gramKey].map((k, i) => [k, a.gramCount[i]!] as const).filter(([k]) => k < a.alphabet.length + 1);
    expect(a.histTotal[0]).toBeCloseTo(empty.reduce((s, [, c]) => s + c, 0), 6);
    expect(a.histTypes[0]).toBe(empty.length);
  });

  it('reads back the packed file it wrote, a language on its first use, and fails a damaged part when it is read', () => {
    const langs = new Map([['tur', buildSpellingArrays(FORMS)], ['pol', buildSpellingArrays(new Map([['żółw', 1], ['zamek', 1]]))]]);
    const bytes = packSpellingLm(langs);
    const open = openSpellingLm(bytes);
    expect([...open.keys()]).toEqual(['tur', 'pol']);
    for (const [lang, a] of langs) {
      const back = open.get(lang)!();
      expect(back.order).toBe(a.order);
      for (const n of ['alphabet', 'histKey', 'histTotal', 'histTypes', 'gramKey', 'gramCount'] as const) expect([...back[n]]).toEqual([...a[n]]);
      expect(new SpellingLm(back).logProb('gökhan')).toBe(new SpellingLm(a).logProb('gökhan'));
    }
    const [from, to] = packedPartsOf('lmstream-spelling-lm-1-packed\n', bytes, 'spelling model').get('pol')!;
    const damaged = Buffer.from(bytes);
    damaged[Math.floor((from + to) / 2)]! ^= 0xff;
    const parts = openSpellingLm(damaged);
    expect(() => parts.get('pol')!()).toThrow();
    expect(() => parts.get('tur')!()).not.toThrow();
    expect(() => openSpellingLm(Buffer.from('lmstream-word-lm-2-packed\n'))).toThrow(/spelling model: not a packed file/);
  });

  it('weighs a word type by the logs of its counts in the text and the frequency list, a dictionary form at least DICTIONARY_FORM_WEIGHT', () => {
    const text = textFormCounts([{ text: 'Başka başka, gök!', weight: 1 }, { text: 'gök', weight: 0.5 }], 'tur', formsOfLine);
    expect([...text]).toEqual([['başka', 2], ['gök', 1.5]]);
    const w = spellingForms(text, new Map([['gök', 2e-6], ['kol', 1e-6]]), ['kol', 'kaşar', 'başka']);
    expect(w.get('başka')).toBeCloseTo(Math.log1p(2), 12);
    expect(w.get('gök')).toBeCloseTo(Math.log1p(1.5) + Math.log1p(2), 12);
    expect(w.get('kol')).toBeCloseTo(Math.max(Math.log1p(1), DICTIONARY_FORM_WEIGHT), 12);
    expect(w.get('kaşar')).toBe(DICTIONARY_FORM_WEIGHT);
  });

  it('refuses a model whose keys would not fit 32 bits', () => {
    // 65,000 symbols: keys of rank × 65,003 pass 2^32 beyond 66,000 histories (8,000 forms of 9 symbols have about 300,000)
    const cp = (i: number) => String.fromCodePoint(0x10000 + (i % 65_000));
    const many = new Map(Array.from({ length: 8000 }, (_, i) => [Array.from({ length: 9 }, (_, j) => cp(i * 9 + j)).join(''), 1] as const));
    expect(() => buildSpellingArrays(many, 5)).toThrow(RangeError);
    expect(() => buildSpellingArrays(new Map([...many].slice(0, 50)), 5)).not.toThrow();
  });
});
