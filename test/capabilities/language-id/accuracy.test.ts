/**
 * Language identification through the whole pipeline with the real models in
 * models/: sentences written for this test (not from any training or evaluation
 * file) in 39 languages, no-language texts, warnings, modes and the legacy route.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Embedded } from '../../../services/embedded.ts';
import { post, startService } from '../../helpers/service.ts';

const SENTENCES = readFileSync(new URL('../../fixtures/lid-sentences.tsv', import.meta.url), 'utf8').trim().split('\n').map((l) => {
  const [label, text] = l.split('\t');
  return { label: label!, text: text! };
});

let svc: Embedded;
beforeAll(async () => { svc = await startService(); });
afterAll(async () => { await svc.close(); });

/** Closely related languages: the neural model's mistakes on these sentences must stay inside one group. */
const RELATED = [['amh', 'tir'], ['zul', 'xho', 'nbl', 'ssw', 'nde'], ['bos', 'hrv', 'srp'], ['glg', 'por', 'spa'], ['zsm', 'ind'], ['nob', 'nno', 'dan', 'swe'], ['ces', 'slk']];
const related = (a: string, b: string) => RELATED.some((g) => g.includes(a.split('_')[0]!) && g.includes(b.split('_')[0]!));

describe.each([
  ['lid-neural-608', 0.92, true],
  ['lid-lite-608', 0.85, false],
])('%s', (model, minAccuracy, onlyRelated) => {
  it(`labels at least ${minAccuracy * 100}% of ${SENTENCES.length} sentences in ${new Set(SENTENCES.map((s) => s.label)).size} languages correctly`, async () => {
    const r = await post(svc, '/v1/language-id/batch', { texts: SENTENCES.map((s) => s.text), model, mode: 'coverage', top_k: 5 });
    expect(r.status).toBe(200);
    const wrong = r.body.results
      .map((a: { label: string }, i: number) => ({ want: SENTENCES[i]!.label, got: a.label }))
      .filter((x: { want: string; got: string }) => x.want !== x.got);
    const accuracy = 1 - wrong.length / SENTENCES.length;
    expect(accuracy, `wrong: ${JSON.stringify(wrong)}`).toBeGreaterThanOrEqual(minAccuracy);
    if (onlyRelated) expect(wrong.filter((x: { want: string; got: string }) => !related(x.want, x.got)), 'mistakes outside related languages').toEqual([]);
    expect(r.body.usage).toEqual({ texts: SENTENCES.length });
    for (const a of r.body.results) {
      // top_k entries, fewer only when fewer labels are written in the text's scripts
      expect(a.top.length).toBeGreaterThanOrEqual(a.script === 'Latn' || a.script === 'Cyrl' || a.script === 'Arab' ? 5 : 1);
      expect(a.top.length).toBeLessThanOrEqual(5);
      expect(a.label).toBe(`${a.language}_${a.script}`);
      expect(a.confidence).toBe(a.top[0].score);
      expect(a.confidence).toBeGreaterThan(0);
      expect(a.confidence).toBeLessThanOrEqual(1);
    }
  });
});

describe('lid-neural-608 answers', () => {
  it('has every field of the spec', async () => {
    const r = await post(svc, '/v1/language-id', { text: 'Mo fẹ́ lọ sí ọjà láti ra ẹja àti ìrẹsì fún oúnjẹ alẹ́ wa.' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      language: 'yor', script: 'Latn', label: 'yor_Latn', language_name: 'Yoruba', model: 'lid-neural-608', mode: 'traffic', warnings: [], usage: { texts: 1 },
    });
    expect(r.body.top).toHaveLength(3);
    expect(Object.keys(r.body.top[0]).sort()).toEqual(['label', 'language', 'score']);
  });
  it('gives the code as language_name outside the 25 question-generation languages', async () => {
    const r = await post(svc, '/v1/language-id', { text: 'Wir haben am Wochenende einen langen Spaziergang durch den Wald gemacht.' });
    expect(r.body).toMatchObject({ language: 'deu', language_name: 'deu' });
  });
  it('answers zxx_Zxxx with a warning for text with no letters', async () => {
    for (const text of ['12345 + 678 = 999', '!!! ??? ###', '3.14159 2.71828', '🙂🙂🙂']) {
      const r = await post(svc, '/v1/language-id', { text });
      expect(r.body, text).toMatchObject({ language: 'zxx', script: 'Zxxx', label: 'zxx_Zxxx' });
      expect(r.body.warnings.join(' ')).toMatch(/no language found/);
    }
  });
  // held-out recall of the no-language class: neural 86.3%, lite 84.3% (models/*/card.md;
  // 88.0 and 78.3% a round earlier, 90.5 and 75.8% before the issue-14 training text, when
  // the neural model got 5 of these 6). Both read the loop as Nigerian Pidgin; lite with
  // 32-dimensional embeddings (issue 34, third round) gets 4 of these 6, where the
  // 16-dimensional one got 2 (it read the random letters and the base64 as Bible languages)
  it.each([['lid-neural-608', 4], ['lid-lite-608', 4]] as const)('%s answers zxx_Zxxx with a warning for at least %i of 6 code, random-letter and machine-token texts', async (model, least) => {
    const texts = [
      'for (let i = 0; i < n; i++) { sum += a[i]; }',
      'SELECT id, name FROM users WHERE id = $1;',
      '<div class="row"><span>{{ item.id }}</span></div>',
      'xqzvbn kjhgtw pqxz',
      'a3f9c2e1-77b4-4c1e-9d2a-0e5f6b7c8d9e',
      'aGVsbG8gd29ybGQgdGhpcyBpcyBiYXNlNjQ=',
    ];
    const r = await post(svc, '/v1/language-id/batch', { texts, model, mode: 'coverage' });
    const labels = r.body.results.map((a: { label: string }) => a.label);
    // the class is learnt, not a rule: most, not all
    expect(labels.filter((l: string) => l === 'zxx_Zxxx').length, JSON.stringify(labels)).toBeGreaterThanOrEqual(least);
    for (const a of r.body.results) if (a.label === 'zxx_Zxxx') expect(a.warnings.join(' ')).toMatch(/no language found/);
  });
  it('keeps real short words and sentences out of the no-language class', async () => {
    const texts = ['Bahnhof', 'merci beaucoup', 'Dziękuję', 'spasibo', 'telefone', 'Straße', SENTENCES[0]!.text, SENTENCES[5]!.text];
    const r = await post(svc, '/v1/language-id/batch', { texts, mode: 'coverage' });
    expect(r.body.results.map((a: { label: string }) => a.label)).not.toContain('zxx_Zxxx');
  });
  // regression: web Turkish written in Windows-1254 and read as Windows-1252 was answered
  // Turkmen or Icelandic, and Yorùbá without tone marks went to unrelated languages. Before
  // the noisy training examples (scripts/lid-noise.ts) the neural model got 7 and the lite
  // model 5 of these 10 right.
  it.each([['lid-neural-608', 9], ['lid-lite-608', 8]] as const)('%s reads at least %i of 10 web texts without diacritics or in a legacy code page read as Windows-1252', async (model, least) => {
    const texts: Array<[string, string]> = [
      ['tur_Latn', "Bu yýl Ýstanbul'da düzenlenen toplantýya çok sayýda öðrenci katýldý."],
      ['tur_Latn', 'Yaðmur yaðýnca þehrin bütün ýþýklarý söndü.'],
      ['pol_Latn', 'Wczoraj by³em w sklepie i kupi³em œwie¿y chleb.'],
      ['ces_Latn', 'Pøíští týden pojedeme s dìtmi k moøi.'],
      ['lit_Latn', 'Ðiandien mûsø mieste vyks didelë ðventë.'],
      ['vie_Latn', 'Hom nay troi dep qua, chung toi di choi o cong vien gan nha.'],
      ['yor_Latn', 'Mo fe lo si oja lola lati ra ounje fun awon omo mi.'],
      ['ron_Latn', 'Astazi am fost la piata si am cumparat legume proaspete pentru copii.'],
      ['ell_Grek', 'Σημερα ο καιρος ειναι πολυ ωραιος και θα παμε στη θαλασσα.'],
      ['hun_Latn', 'Tegnap este a barataimmal elmentunk egy uj etterembe vacsorazni.'],
    ];
    const r = await post(svc, '/v1/language-id/batch', { texts: texts.map(([, t]) => t), model, mode: 'coverage' });
    expect(r.status).toBe(200);
    const got = r.body.results.map((a: { label: string }) => a.label);
    const wrong = texts.map(([want], i) => (got[i] === want ? null : `${want}→${got[i]}`)).filter((w) => w !== null);
    expect(texts.length - wrong.length, `wrong: ${wrong.join(', ')}`).toBeGreaterThanOrEqual(least);
  });
  it('answers the script\'s language for letters of a script no label uses, or und_<Script> where several languages write it, saying so (issue 14)', async () => {
    for (const model of ['lid-neural-608', 'lid-lite-608']) {
      // Ol Chiki (Santali), written by one language: sat_Olck
      const santali = await post(svc, '/v1/language-id', { text: 'ᱥᱟᱱᱛᱟᱲᱤ ᱯᱟᱹᱨᱥᱤ ᱫᱚ ᱢᱤᱫ ᱯᱩᱨᱟᱹᱱ ᱯᱟᱹᱨᱥᱤ ᱠᱟᱱᱟ', model });
      expect(santali.body, model).toMatchObject({ language: 'sat', script: 'Olck', label: 'sat_Olck', confidence: 1 });
      expect(santali.body.warnings.join(' ')).toMatch(/no training text in the Olck script: answered sat/);
      // Gothic (outside the Basic Multilingual Plane), one language: got_Goth
      expect((await post(svc, '/v1/language-id', { text: '𐌷𐌰𐌹𐌻𐍃 𐍅𐌹𐍃 𐌸𐌿', model })).body).toMatchObject({ label: 'got_Goth', language: 'got' });
      // Kayah Li: Eastern and Western Kayah write it (CLDR), so the language is undetermined
      const kayah = await post(svc, '/v1/language-id', { text: 'ꤊꤢ ꤘꤣ ꤜꤟꤤ ꤞꤢ ꤒꤢ', model });
      expect(kayah.body, model).toMatchObject({ language: 'und', script: 'Kali', label: 'und_Kali' });
      expect(kayah.body.warnings.join(' ')).toMatch(/several languages write: language undetermined \(und_Kali\)/);
      // N'Ko has training text now (NLLB-Seed): the model answers, without the warning
      const nko = await post(svc, '/v1/language-id', { text: 'ߒߞߏ ߦߋ߫ ߡߊ߲߬ߘߋ߲߬ ߞߊ߲ ߛߓߍߛߎ߲ ߘߌ߫', model });
      expect(nko.body, model).toMatchObject({ language: 'nqo', script: 'Nkoo', label: 'nqo_Nkoo', warnings: [] });
      // a trained script next to the unknown one: the model answers from the trained letters
      const mixed = await post(svc, '/v1/language-id', { text: 'This sentence is written in English, with one word of Santali: ᱥᱟᱱᱛᱟᱲᱤ', model });
      expect(mixed.body.label).toBe('eng_Latn');
    }
  });
  // labels trained since issue 14 (text/<label>/ in ../shared/data/corpora); sentences written for this test
  it.each(['lid-neural-608', 'lid-lite-608'])('%s answers labels gained from the new training text', async (model) => {
    const texts: Array<[string, string]> = [
      ['nqo_Nkoo', 'ߒ ߓߊ߯ ߞߊ߬ ߛߓߍߟߌ ߞߍ߫ ߒߞߏ ߘߐ߫'],
      ['pbt_Arab', 'زه نن ورځ ښوونځي ته ځم او خپل ملګري وینم'],
      ['yue_Hant', '你今晚得唔得閒一齊去食飯呀？'],
    ];
    const r = await post(svc, '/v1/language-id/batch', { texts: texts.map(([, t]) => t), model, mode: 'coverage' });
    expect(r.body.results.map((a: { label: string }) => a.label)).toEqual(texts.map(([l]) => l));
  });
  // regression: trained on Egyptian and Moroccan Arabic whose only text is encyclopedic,
  // both models answered Standard Arabic news text as a dialect (scripts/lid-data.ts WITHHELD)
  it.each(['lid-neural-608', 'lid-lite-608'])('%s answers Standard Arabic news text arb_Arab', async (model) => {
    const texts = [
      'أعلنت وزارة الصحة عن افتتاح مستشفى جديد في العاصمة الأسبوع المقبل.',
      'فاز المنتخب الوطني بالمباراة النهائية بعد أداء رائع من جميع اللاعبين.',
      'ناقش المجلس خلال جلسته الأخيرة مشروع قانون الميزانية العامة للدولة.',
    ];
    const r = await post(svc, '/v1/language-id/batch', { texts, model, mode: 'coverage' });
    const got: string[] = r.body.results.map((a: { label: string }) => a.label);
    // lid-neural-608 with its word-frequency stage answers the third Moroccan (ary_Arab 0.68;
    // arb_Arab 0.54 before the stage); lid-lite-608 answers it Egyptian (arz_Arab 0.48 against
    // arb_Arab 0.40 in coverage mode; arb_Arab in traffic mode; its word-frequency stage reads
    // texts of up to 60 characters only)
    const least = 2;
    expect(got.filter((l) => l === 'arb_Arab').length, got.join(', ')).toBeGreaterThanOrEqual(least);
    for (const l of got) expect(['arb_Arab', 'arz_Arab', 'ary_Arab', 'arq_Arab', 'mey_Arab']).toContain(l);
  });
  it('warns on very short text', async () => {
    const r = await post(svc, '/v1/language-id', { text: 'merci' });
    expect(r.body.warnings.join(' ')).toMatch(/very short/);
  });
  it('never returns a script that is absent from the text', async () => {
    const texts = ['Привет, как дела?', 'Zdravo, kako si danas?', 'Здраво, како си данас?', '你好，今天怎么样？', 'こんにちは、元気ですか？'];
    const r = await post(svc, '/v1/language-id/batch', { texts, top_k: 25, mode: 'coverage' });
    const scriptOf: Record<string, RegExp> = { Cyrl: /\p{sc=Cyrl}/u, Latn: /\p{sc=Latn}/u, Hans: /\p{sc=Hani}/u, Hant: /\p{sc=Hani}/u, Jpan: /[\p{sc=Hira}\p{sc=Kana}\p{sc=Hani}]/u, Hang: /\p{sc=Hang}/u };
    r.body.results.forEach((a: { top: Array<{ label: string }> }, i: number) => {
      for (const t of a.top) {
        const script = t.label.split('_')[1]!;
        if (t.label === 'zxx_Zxxx') continue; // "no language" may be an alternative for any text
        expect(scriptOf[script]?.test(texts[i]!) ?? false, `${t.label} for ${texts[i]}`).toBe(true);
      }
    });
    expect(r.body.results[0].script).toBe('Cyrl');
    expect(r.body.results[4].language).toBe('jpn');
  });
  it('leans towards widely used languages on short text in traffic mode only', async () => {
    const texts = ['Hello world', 'thank you', 'see you soon'];
    const traffic = await post(svc, '/v1/language-id/batch', { texts, mode: 'traffic', top_k: 25 });
    const coverage = await post(svc, '/v1/language-id/batch', { texts, mode: 'coverage', top_k: 25 });
    texts.forEach((_, i) => {
      const engT = traffic.body.results[i].top.find((t: { language: string }) => t.language === 'eng')?.score ?? 0;
      const engC = coverage.body.results[i].top.find((t: { language: string }) => t.language === 'eng')?.score ?? 0;
      expect(engT).toBeGreaterThan(engC);
    });
    expect(traffic.body.results.map((a: { language: string }) => a.language)).toEqual(['eng', 'eng', 'eng']);
    expect(traffic.body.mode).toBe('traffic');
  });
});

describe('legacy POST /v1/detect-language', () => {
  it('answers with one of the 25 older languages, by macrolanguage code', async () => {
    const r = await post(svc, '/v1/detect-language', { text: 'Habari za asubuhi, leo tutaenda sokoni kununua matunda na mboga.' });
    expect(r).toEqual({ status: 200, body: { language: 'swa', language_name: 'Swahili', confidence: expect.any(Number), model: 'lid-neural-25', variant: 'questions' } });
    const de = await post(svc, '/v1/detect-language', { text: 'Können Sie mir bitte sagen, wie ich am schnellsten zum Bahnhof komme?', model: 'lid-lite-25', variant: 'passages' });
    expect(de.status).toBe(200);
    expect(['eng', 'fra', 'por', 'ara', 'swa', 'hau', 'yor', 'ibo', 'amh', 'zul', 'xho', 'som', 'orm', 'tir', 'kin', 'sna', 'afr', 'aka', 'wol', 'lin', 'lug', 'sot', 'tsn', 'nya', 'mlg']).toContain(de.body.language);
    expect(de.body).toMatchObject({ model: 'lid-lite-25', variant: 'passages' });
  });
  it('answers a batch in order', async () => {
    const r = await post(svc, '/v1/detect-language/batch', { texts: ['Je voudrais réserver une table pour deux personnes ce soir.', 'The weather is lovely today, so we are going for a walk.'] });
    expect(r.body.results.map((x: { language: string }) => x.language)).toEqual(['fra', 'eng']);
    expect(r.body.usage).toBeUndefined();
  });
});
