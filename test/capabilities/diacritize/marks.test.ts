/**
 * Marks, units and the restoration rule of diactag-2.0 (issue 13): what counts as a mark,
 * graphemes kept whole (Yorùbá ẹ́ has no precomposed form), Turkish case, pass-through
 * spans, classes, and how typed marks, min_confidence and Arabic case endings decide.
 */
import { describe, expect, it } from 'vitest';
import { formOf, inCase, passThroughSpans, stripMarks, units, vietnameseToneOnFirstVowel } from '../../../services/capabilities/diacritize/marks.ts';
import { classOf, formFrom, restore, slotsOf } from '../../../services/capabilities/diacritize/tagger.ts';

describe('marks', () => {
  it('strips combining marks, the letters without a decomposition and Arabic harakat, keeping hamza', () => {
    expect(stripMarks('Ọkọ̀ ayọ́kẹ́lẹ́')).toBe('Oko ayokele');
    expect(stripMarks('Zażółć gęślą jaźń Łódź')).toBe('Zazolc gesla jazn Lodz');
    expect(stripMarks('İstanbul ılık')).toBe('Istanbul ilik');
    expect(stripMarks('Đà Nẵng')).toBe('Da Nang');
    expect(stripMarks('ɗaya ƙasa ɓata ƴaƴa ʼyan')).toBe('daya kasa bata yaya yan');
    expect(stripMarks('كَتَبَ الوَلَدُ أُمِّي')).toBe('كتب الولد أمي');
  });
  it('cuts text into units a grapheme each, with a lower-case base', () => {
    const us = units('Ẹ́ ọ̀ ʼya');
    expect(us.map((u) => u.text)).toEqual(['Ẹ́', ' ', 'ọ̀', ' ', 'ʼy', 'a']);
    expect(us.map((u) => u.base)).toEqual(['e', ' ', 'o', ' ', 'y', 'a']);
    expect(us[0]!.upper).toBe(true);
    expect(formOf(us[4]!, 'hau')).toBe('ƴ');
  });
  it('puts a form in the case of the letter it replaces, Turkish by its own rules', () => {
    expect(inCase('i', true, 'tur')).toBe('İ');
    expect(inCase('ı', true, 'tur')).toBe('I');
    expect(inCase('i', true, 'fra')).toBe('I');
    expect(inCase('ẹ́', true, 'yor')).toBe('Ẹ́');
  });
  it('finds URLs and e-mail addresses', () => {
    const t = 'see https://example.org/zolc?a=1 or write to jan.kowalski@example.pl today';
    expect(passThroughSpans(t).map(([s, e]) => t.slice(s, e))).toEqual(['https://example.org/zolc?a=1', 'jan.kowalski@example.pl']);
  });
  it('finds each kind of span alone, and none in text without "@", "://" or "www."', () => {
    const spans = (t: string) => passThroughSpans(t).map(([s, e]) => t.slice(s, e));
    expect(spans('see www.example.org now')).toEqual(['www.example.org']);
    expect(spans('ask @zolc or http://a.pl')).toEqual(['@zolc', 'http://a.pl']);
    expect(spans('a@b.pl')).toEqual(['a@b.pl']);
    expect(spans('zolc www dot example slash org, WWW.EXAMPLE.ORG')).toEqual([]);
  });
});

describe('classes', () => {
  it('are the marks added to a letter, or the letter that replaces it', () => {
    expect(classOf('ẹ́', 'e')).toBe('\u0323\u0301');
    expect(classOf('ł', 'l')).toBe('=ł');
    expect(classOf('a', 'a')).toBe('');
    for (const [form, base] of [['ẹ́', 'e'], ['ł', 'l'], ['ş', 's'], ['ệ', 'e'], ['أُ', 'أ'], ['ƴ', 'y']] as const) expect(formFrom(base, classOf(form, base))).toBe(form.normalize('NFC'));
  });
});

describe('restore', () => {
  const classes = ['', '\u0301', '=ł'];
  const candidates = { e: [0, 1], l: [0, 2] };
  /** probabilities per slot, one row of `classes` each */
  const rows = (...ps: number[][]) => Float32Array.from(ps.flat());
  it('takes the most probable class per letter, outside URLs', () => {
    const text = 'Le http://le.org';
    const us = units(text);
    const slots = slotsOf(us, text, candidates);
    expect(slots.map((s) => s.unit)).toEqual([0, 1]);
    expect(restore(us, slots, rows([0.1, 0, 0.9], [0.2, 0.8, 0]), classes, { language: 'pol', minConfidence: 0, caseEndings: true })).toBe('Łé http://le.org');
  });
  it('leaves a letter as typed below min_confidence, and keeps typed marks unless the model is sure they are wrong', () => {
    const us = units('lé');
    const slots = slotsOf(us, 'lé', candidates);
    expect(restore(us, slots, rows([0.4, 0, 0.6], [0.5, 0.5, 0]), classes, { language: 'pol', minConfidence: 0.7, caseEndings: true })).toBe('lé');
    expect(restore(us, slots, rows([0.4, 0, 0.6], [0.995, 0.005, 0]), classes, { language: 'pol', minConfidence: 0, caseEndings: true })).toBe('łe');
    expect(restore(us, slots, rows([0.4, 0, 0.6], [0.9, 0.1, 0]), classes, { language: 'pol', minConfidence: 0, caseEndings: true })).toBe('łé');
  });
  it('leaves the last letter of each Arabic word unvowelled without case endings', () => {
    const text = 'كَتَبَ الوَلَدُ';
    const us = units(text);
    expect(restore(us, [], new Float32Array(0), classes, { language: 'ara', minConfidence: 0, caseEndings: false })).toBe('كَتَب الوَلَد');
    expect(restore(us, [], new Float32Array(0), classes, { language: 'ara', minConfidence: 0, caseEndings: true })).toBe(text);
  });
});

describe('features', () => {
  it('name a word longer than MAX_WORD_CHARS by one placeholder (regression: a 20,000-letter word cost seconds, quadratic)', async () => {
    const { prepare, slotFeatures, MAX_WORD_CHARS } = await import('../../../services/capabilities/diacritize/tagger-features.ts');
    const spec = { buckets: 1 << 18, window: 4 };
    const a = `${'b'.repeat(MAX_WORD_CHARS)}qqqqqeqqqqq`;
    const b = `${'c'.repeat(MAX_WORD_CHARS)}qqqqqeqqqqq`;
    const at = (w: string) => slotFeatures(prepare(units(w)), w.indexOf('e'), 'fra', spec);
    // the same letters around the slot and a long word each: the same features
    expect([...at(a)]).toEqual([...at(b)]);
    // words within the limit are named by their letters
    const c = 'bqqqqqeqqqqq'; const d = 'cqqqqqeqqqqq';
    expect([...at(c)]).not.toEqual([...at(d)]);
  });
});

describe('feature ids', () => {
  it('are the FNV-1a hashes of the language, the tag and the content, modulo the buckets (the trained models depend on them)', async () => {
    const { prepare, slotFeatures } = await import('../../../services/capabilities/diacritize/tagger-features.ts');
    const { fnv1a } = await import('../../../services/capabilities/language-id/features.ts');
    const spec = { buckets: 1 << 18, window: 4 };
    const text = 'le pere de';
    const i = text.indexOf('ere');
    const ids = slotFeatures(prepare(units(text)), i, 'fra', spec);
    const h = (s: string) => fnv1a(`fra${s}`) % spec.buckets;
    expect(ids.length).toBe(1 + 2 * 4 + 9 + 4);
    // the letter, then the characters at -1 and +1 ("p", "r")
    expect([...ids.slice(0, 3)]).toEqual([h('le'), h('-1p'), h('+1r')]);
    // the first 2-gram that holds the letter ("pe", tag "2-1"); the word features last
    expect(ids[9]).toBe(h('2-1pe'));
    expect([...ids.slice(-4)]).toEqual([h('w1|pere'), h('p1|le|pere'), h('n1|pere|de'), h('x1|le|pere|de')]);
  });
  it('are written in place by slotFeaturesInto as slotFeatures gives them, for letters in and outside words', async () => {
    const { maxSlotFeatures, prepare, slotFeatures, slotFeaturesInto } = await import('../../../services/capabilities/diacritize/tagger-features.ts');
    const spec = { buckets: 1 << 18, window: 4 };
    const text = 'le pere de 5 x';
    const p = prepare(units(text));
    const L = maxSlotFeatures(spec);
    const out = new Int32Array(3 * L).fill(-1);
    // a letter in a word, the digit (outside words: 4 fewer) and the last letter, row after row
    const at = [text.indexOf('ere'), text.indexOf('5'), text.length - 1];
    const n = at.map((i, r) => slotFeaturesInto(p, i, 'fra', spec, out, r * L));
    expect(n).toEqual([L, L - 4, L]);
    at.forEach((i, r) => expect([...out.subarray(r * L, r * L + n[r]!)]).toEqual([...slotFeatures(p, i, 'fra', spec)]));
    // nothing written past a row's features
    expect([...out.subarray(L + n[1]!, 2 * L)]).toEqual([-1, -1, -1, -1]);
  });
});

describe('hints', () => {
  it('use a hint given as the marked word, in the case written, and warn about a meaning', async () => {
    const { applyHints } = await import('../../../services/capabilities/diacritize/backends/common.ts');
    expect(applyHints('Oko rẹ dé. oko wà', { oko: 'ọkọ̀' }, 'yor')).toEqual({ text: 'Ọkọ̀ rẹ dé. ọkọ̀ wà'.normalize('NFC'), warnings: [] });
    const r = applyHints('oko wà', { oko: 'farm' }, 'yor');
    expect(r.text).toBe('oko wà');
    expect(r.warnings).toEqual([expect.stringMatching(/hint for "oko" not used: it is a meaning, and there is no gloss lexicon for yor/)]);
    expect(applyHints('oko', null, 'yor')).toEqual({ text: 'oko', warnings: [] });
  });
});

describe('Vietnamese tone placement', () => {
  it('puts the tone of open oa, oe, uy syllables on the first vowel, and leaves qu-, closed syllables and the rest alone', () => {
    const cases: Array<[string, string]> = [
      ['hoà bình', 'hòa bình'], ['khoẻ không', 'khỏe không'], ['Thuý Kiều', 'Thúy Kiều'], ['toạ đàm', 'tọa đàm'], ['tuỳ ý', 'tùy ý'], ['HOÀ', 'HÒA'],
      ['hòa', 'hòa'], ['quý', 'quý'], ['hoàn toàn', 'hoàn toàn'], ['ngoài', 'ngoài'], ['khuya', 'khuya'], ['thuyết', 'thuyết'], ['giả', 'giả'], ['Hoà-2024', 'Hòa-2024'],
    ];
    for (const [input, want] of cases) expect(vietnameseToneOnFirstVowel(input), input).toBe(want);
    expect(vietnameseToneOnFirstVowel('hoà'.normalize('NFD'))).toBe('hòa'.normalize('NFC'));
  });
});
