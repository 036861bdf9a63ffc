/**
 * The rules of the language-ID training text (scripts/lid-data.ts) that decide what a
 * label learns: parallel sources without their shared names and numbers, Cantonese by
 * content, and the register of each source in the model cards (issue 34).
 */
import { describe, expect, it } from 'vitest';
import { CANTONESE_CHARACTERS, hasDialectWord, PARALLEL_SOURCE, registerOf, withoutNamesAndNumbers } from '../../../scripts/lid-data.ts';

describe('language-ID training text', () => {
  it('drops names and numbers from a parallel source\'s line, keeping its first word', () => {
    expect(withoutNamesAndNumbers('Waziri Mkuu Boris Johnson alisema watu 2,000 walikufa mwaka 2019 huko London.'))
      .toBe('Waziri alisema watu walikufa mwaka huko');
    expect(withoutNamesAndNumbers('Jana «Trump» alisema hivyo')).toBe('Jana alisema hivyo');
  });
  it('keeps the line when too little of it would be left', () => {
    expect(withoutNamesAndNumbers('Paris 2019 Olympic Games')).toBe('Paris 2019 Olympic Games');
  });
  it('knows NTREX and the Bible translations as parallel sources, and nothing else', () => {
    for (const f of ['ntrex128.txt', 'ntrex.txt', 'ebible.txt', 'bible-corpus.txt', 'bible-nt-1850.txt']) expect(PARALLEL_SOURCE.test(f), f).toBe(true);
    for (const f of ['nllb-seed.txt', 'arabic-wikipedia.txt', 'gatitos.words.txt', 'afrisenti-tweets.txt']) expect(PARALLEL_SOURCE.test(f), f).toBe(false);
  });
  it('tells written Cantonese from standard written Chinese by its characters', () => {
    expect(CANTONESE_CHARACTERS.test('我哋今晚去邊度食飯呀？')).toBe(true);
    expect(CANTONESE_CHARACTERS.test('佢琴日冇嚟返工')).toBe(true);
    // standard written Chinese, traditional and simplified
    expect(CANTONESE_CHARACTERS.test('政府今天宣布了一項新計劃。')).toBe(false);
    expect(CANTONESE_CHARACTERS.test('我今晚想去看电影')).toBe(false);
  });
  it('keeps a dialect label\'s line only when it has a word of that dialect', () => {
    expect(hasDialectWord('arz_Arab', 'انا مش عارف هو عايز ايه')).toBe(true);
    expect(hasDialectWord('ary_Arab', 'هادشي زوين بزاف')).toBe(true);
    // a leading wa- and harakat do not hide the word
    expect(hasDialectWord('ary_Arab', 'ودَابَا غادي نمشي')).toBe(true);
    // Standard Arabic in a dialect's source
    expect(hasDialectWord('ary_Arab', 'اللهم احفظ بلادنا من الفتن ما ظهر منها وما بطن')).toBe(false);
    expect(hasDialectWord('arz_Arab', 'أعلن وزير المالية أن الحكومة ستخفض الضرائب')).toBe(false);
    // labels without a word list of their dialect are not filtered
    expect(hasDialectWord('arb_Arab', 'أعلن وزير المالية')).toBe(true);
  });
  it('names the register of each source', () => {
    expect(registerOf('text:arb_Arab/ntrex128')).toBe('news');
    expect(registerOf('text:twi_Latn/ebible')).toBe('Bible');
    expect(registerOf('text:ajp_Arab/wikipron.words')).toBe('word list');
    expect(registerOf('text:arb_Arab/arabic-wikipedia')).toBe('encyclopedia');
    expect(registerOf('udhr:arb')).toBe('legal (UDHR)');
    expect(registerOf('cv:sw')).toBe('speech prompts');
    expect(registerOf('text:ary_Arab/afrisenti-tweets')).toBe('tweets');
  });
});
