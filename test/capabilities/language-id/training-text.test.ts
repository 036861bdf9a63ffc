/**
 * The rules of the language-ID training text (scripts/lid-data.ts) that decide what a
 * label learns: parallel sources without their shared names and numbers, Cantonese by
 * content, the register of each source in the model cards, UDHR headings and `und`
 * declarations left out, the 1865 Serbian Bible left out, NTREX-128's Southern Sotho
 * trained as Southern Sotho, Serbian written in both scripts, and the news development
 * set (issue 34).
 */
import { describe, expect, it } from 'vitest';
import { CANTONESE_CHARACTERS, hasDialectWord, DIGRAPHIC, LEFT_OUT_FILES, RELABELLED_FILES, heldOutCount, sourceLabel, NEWS_SOURCE, newsDevShortTexts, newsDevTexts, PARALLEL_SOURCE, registerOf, serbianLatin, udhrParagraphTrained, udhrTrained, withoutNamesAndNumbers, type Pool } from '../../../scripts/lid-data.ts';

/** A pool with only held-out lines (and the news ones among them). */
const pool = (heldOut: string[], heldOutNews: string[]): Pool => ({ train: [], heldOut, heldOutNews, lexicon: [], lexiconHeldOut: [], sources: new Set(), parallel: new Set(), wordListEntries: 0 });

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
  it('leaves out UDHR declarations without a language code', () => {
    expect(udhrTrained({ code: '023', iso6393: 'und' })).toBe(false); // Jinan, which was und_Hans
    expect(udhrTrained({ code: '062', iso6393: 'swh' })).toBe(false); // Chimwiini (UDHR_LEFT_OUT)
    expect(udhrTrained({ code: 'cmn_hans', iso6393: 'cmn' })).toBe(true);
  });
  it('leaves out UDHR article headings and one-word headings, keeping paragraphs and titled headings', () => {
    expect(udhrParagraphTrained('H4', 'Artículo 1')).toBe(false);
    expect(udhrParagraphTrained('h3', 'Article 12')).toBe(false);
    expect(udhrParagraphTrained('H3', 'Preambulo')).toBe(false);
    expect(udhrParagraphTrained('H2', 'Declaración Universal de Derechos Humanos')).toBe(true);
    // a paragraph is kept whatever it holds
    expect(udhrParagraphTrained('P', 'Artículo 1')).toBe(true);
    expect(udhrParagraphTrained('LI', 'Yudabu dasibi jabiaskadi akin, xinantidubuki.')).toBe(true);
  });
  it('leaves out the ijekavian 1865 Serbian Bible and writes the Cyrillic Serbian sentences in Latin too', () => {
    expect(LEFT_OUT_FILES['srp_Latn/ebible']).toMatch(/ijekavian/);
    expect(DIGRAPHIC.srp_Cyrl!.label).toBe('srp_Latn');
    expect(serbianLatin('Ђинђић се још памти. Љубав, њега, џеп, ЉУБАВ, Џон, Шабац, Ћуприја, Жичка'))
      .toBe('Đinđić se još pamti. Ljubav, njega, džep, LJUBAV, Džon, Šabac, Ćuprija, Žička');
    // characters that are not Serbian Cyrillic letters are kept
    expect(serbianLatin('Ђубре 2019, «ok»')).toBe('Đubre 2019, «ok»');
  });
  it('trains NTREX-128\'s "nso" translation, which is Southern Sotho, as sot_Latn', () => {
    expect(RELABELLED_FILES['nso_Latn/ntrex128']).toEqual({ label: 'sot_Latn', why: expect.stringMatching(/Southern Sotho/) });
    // every relabelling names a label of the ISO 639-3 + ISO 15924 form and says why
    for (const [file, { label, why }] of Object.entries(RELABELLED_FILES)) {
      expect(file).toMatch(/^[a-z]{3}_[A-Z][a-z]{3}\/[\w.-]+$/);
      expect(label).toMatch(/^[a-z]{3}_[A-Z][a-z]{3}$/);
      expect(label).not.toBe(file.split('/')[0]);
      expect(why.length).toBeGreaterThan(10);
    }
  });
  it('reads each source under the label its text is in, or not at all, and holds out 10 % of it, at most 300 lines', () => {
    expect(sourceLabel('nso_Latn', 'nso_Latn/ntrex128')).toBe('sot_Latn');
    expect(sourceLabel('nso_Latn', 'nso_Latn/nchlt')).toBe('nso_Latn');
    expect(sourceLabel('srp_Latn', 'srp_Latn/ebible')).toBeNull();
    expect(sourceLabel('swh_Latn', 'sw')).toBe('swh_Latn'); // a Common Voice locale
    expect([heldOutCount(9), heldOutCount(1994), heldOutCount(5000)]).toEqual([0, 199, 300]);
  });
  it('builds the news development set from the held-out lines of news sources only', () => {
    expect(NEWS_SOURCE.test('ntrex128')).toBe(true);
    expect(NEWS_SOURCE.test('ebible')).toBe(false);
    const pools = new Map([
      ['bos_Latn', pool(['Član 1', 'Vlada je danas objavila novi plan.'], ['Vlada je danas objavila novi plan.'])],
      ['cbs_Latn', pool(['Yudabu dasibi jabiaskadi akin.'], [])],
    ]);
    expect(newsDevTexts(pools)).toEqual([{ label: 'bos_Latn', text: 'Vlada je danas objavila novi plan.' }]);
  });
  it('cuts the news development sentences into one word and one word pair each, as the web test sets do', () => {
    const pools = new Map([
      ['bos_Latn', pool([], ['Vlada je danas objavila "novi" plan.', 'Da, 2024.'])],
      ['cbs_Latn', pool(['Yudabu dasibi jabiaskadi akin.'], [])],
    ]);
    const short = newsDevShortTexts(pools);
    // the second line has no word of 5 letters and no pair of 10: it gives nothing
    expect(short.map((s) => [s.set, s.label])).toEqual([['news words', 'bos_Latn'], ['news word pairs', 'bos_Latn']]);
    const [word, pair] = short.map((s) => s.text);
    expect(['Vlada', 'danas', 'objavila']).toContain(word);
    expect(['Vlada je', 'je danas', 'danas objavila', 'objavila novi', 'novi plan']).toContain(pair);
    expect([...pair!.replace(' ', '')].length).toBeGreaterThanOrEqual(10);
    // the same texts every time (fixed seed)
    expect(newsDevShortTexts(pools)).toEqual(short);
  });
});
