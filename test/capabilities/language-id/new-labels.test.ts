/**
 * Language ID, third round (issue 34), through the whole pipeline with the real models in
 * models/: the language count and aliases of GET /v1/lid/models, Standard Arabic news
 * against the Arabic dialects, standard written Chinese against Cantonese, a short
 * Swahili greeting, and held-out lines of labels new to this round (the model cards'
 * held-out split: test/fixtures/lid-new-labels.tsv, taken by scripts/lid-data.ts
 * loadTrainingText). Sentences here were written for this test; none is from
 * ../shared/data/lid-eval.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Embedded } from '../../../services/embedded.ts';
import { post, startService } from '../../helpers/service.ts';

let svc: Embedded;
beforeAll(async () => { svc = await startService(); });
afterAll(async () => { await svc.close(); });

const MODELS = ['lid-neural-608', 'lid-lite-608'] as const;

/** Labels of a batch of texts, coverage mode unless given. */
async function labelsOf(model: string, texts: string[], mode: 'coverage' | 'traffic' = 'coverage'): Promise<string[]> {
  const r = await post(svc, '/v1/language-id/batch', { texts, model, mode });
  expect(r.status).toBe(200);
  return r.body.results.map((a: { label: string }) => a.label);
}

describe('GET /v1/lid/models', () => {
  it('lists at least 608 languages for both models, and the label aliases', async () => {
    const body = (await svc.gateway.app.inject({ method: 'GET', url: '/v1/lid/models' })).json();
    for (const name of MODELS) expect(body.models.find((m: { name: string }) => m.name === name).languages, name).toBeGreaterThanOrEqual(608);
    expect(body.aliases).toEqual([
      { alias: 'aka_Latn', label: 'twi_Latn', reason: expect.any(String) },
      { alias: 'est_Latn', label: 'ekk_Latn', reason: expect.any(String) },
      { alias: 'grn_Latn', label: 'gug_Latn', reason: expect.any(String) },
      { alias: 'tzm_Tfng', label: 'zgh_Tfng', reason: expect.any(String) },
      { alias: 'zho_Hans', label: 'cmn_Hans', reason: expect.any(String) },
      { alias: 'zho_Hant', label: 'cmn_Hant', reason: expect.any(String) },
    ]);
  });
});

/**
 * Standard Arabic news written for this test (none is in scripts/lid-cluster-check.tsv,
 * the second stage's check set). Right answers of each model in the default (traffic)
 * mode when the models were trained: lid-neural-608 7 of 8, lid-lite-608 7 of 8 (6 with the
 * models of commit a825b98); the misses go to Moroccan or Egyptian Arabic.
 */
const MSA_NEWS = [
  'أعلن وزير المالية أن الحكومة ستخفض الضرائب على الشركات الصغيرة اعتبارا من العام المقبل.',
  'وصل وفد رسمي إلى العاصمة صباح اليوم لبحث سبل تعزيز التعاون الاقتصادي بين البلدين.',
  'أفادت وكالة الأنباء بأن الأمطار الغزيرة تسببت في إغلاق عدد من الطرق الرئيسية في شمال البلاد.',
  'وقال المتحدث باسم الوزارة إن التحقيقات في الحادث لا تزال جارية.',
  'ارتفع معدل التضخم في البلاد إلى أعلى مستوى له منذ خمس سنوات.',
  'استقبل رئيس الوزراء نظيره الفرنسي في قصر الحكومة لإجراء محادثات ثنائية.',
  'أعلنت الشركة عن خطة لتوظيف ألف عامل جديد في مصنعها الجديد.',
  'شارك آلاف الطلاب في الامتحانات الوطنية التي انطلقت صباح اليوم في جميع المحافظات.',
];

/**
 * Short texts written for this test that the word-frequency stage (vocabulary.txt.br)
 * answers right and the earlier stages alone did not (their answers, coverage mode, when
 * the stage was built: lid-neural-608 "kerajaan negeri" abs_Latn, "ďakujem pekne" ces_Latn,
 * "hleb i mleko" slv_Latn, "kruh i mlijeko" bos_Latn, "salamat po" bbc_Latn;
 * lid-lite-608 "kerajaan negeri" pmy_Latn, "hleb i mleko" tso_Latn, "kemudahan awam" jav_Latn).
 */
const WORD_FREQUENCY_CASES: Record<(typeof MODELS)[number], Array<[string, string]>> = {
  'lid-neural-608': [['kerajaan negeri', 'zsm_Latn'], ['ďakujem pekne', 'slk_Latn'], ['hleb i mleko', 'srp_Latn'], ['kruh i mlijeko', 'hrv_Latn'], ['salamat po', 'tgl_Latn'], ['hvala lepa', 'slv_Latn']],
  'lid-lite-608': [['kerajaan negeri', 'zsm_Latn'], ['hleb i mleko', 'srp_Latn'], ['kemudahan awam', 'zsm_Latn'], ['hvala lepa', 'slv_Latn']],
};

/**
 * Everyday phrases, written for this test, in the languages with subtitles' word-frequency
 * lists (scripts/lid-data.ts frequencyLists, counted by the word-frequency stage), and in two
 * neighbours that have none. Before the lists (commit c5da96e), right of 48 in coverage /
 * traffic mode: lid-neural-608 43 / 45 ("obrigado" kea_Latn, "hola" sot_Latn, "come stai?"
 * vec_Latn in traffic mode), lid-lite-608 36 / 39 ("obrigado" kea_Latn, "ciao" kik_Latn,
 * "merhaba" mad_Latn, "bonjour" hat_Latn in coverage mode).
 */
const EVERYDAY: Record<string, string[]> = {
  por_Latn: ['obrigado', 'bom dia', 'tudo bem?', 'muito obrigada', 'até logo', 'você está bem?'],
  spa_Latn: ['hola', 'buenos días', '¿qué tal?', 'muchas gracias', 'hasta luego', '¿dónde estás?'],
  fra_Latn: ['bonjour', 'merci', 'à bientôt', 'ça va?', 'je ne sais pas', 'bonne nuit'],
  ita_Latn: ['ciao', 'grazie', 'buongiorno', 'arrivederci', 'come stai?', 'non lo so'],
  pol_Latn: ['dzień dobry', 'dziękuję', 'cześć', 'do widzenia', 'jak się masz?', 'nie wiem'],
  tur_Latn: ['merhaba', 'teşekkür ederim', 'günaydın', 'nasılsın?', 'görüşürüz', 'bilmiyorum'],
  vie_Latn: ['xin chào', 'cảm ơn', 'tạm biệt', 'bạn khỏe không?', 'tôi không biết', 'chúc ngủ ngon'],
  glg_Latn: ['bos días', 'moitas grazas', 'ata logo'],
  cat_Latn: ['bon dia', 'moltes gràcies', 'fins després'],
};
/** Right answers of 48 the installed models give {@link EVERYDAY}, per mode. */
const EVERYDAY_RIGHT = { 'lid-neural-608': { coverage: 43, traffic: 48 }, 'lid-lite-608': { coverage: 43, traffic: 46 } } as const;

describe.each([
  ['lid-neural-608', 7],
  ['lid-lite-608', 6],
] as const)('%s', (model, msaRight) => {
  it('answers short texts by the words their languages write (the word-frequency stage)', async () => {
    const cases = WORD_FREQUENCY_CASES[model];
    expect(await labelsOf(model, cases.map(([t]) => t))).toEqual(cases.map(([, l]) => l));
  });
  it(`keeps at least ${msaRight} of ${MSA_NEWS.length} Standard Arabic news sentences arb_Arab, the rest in the Arabic varieties`, async () => {
    const got = await labelsOf(model, MSA_NEWS, 'traffic');
    expect(got.filter((l) => l === 'arb_Arab').length, got.join(', ')).toBeGreaterThanOrEqual(msaRight);
    for (const l of got) expect(['arb_Arab', 'arz_Arab', 'ary_Arab', 'arq_Arab', 'mey_Arab']).toContain(l);
  });
  it('answers everyday phrases of the languages with subtitles\' word-frequency lists', async () => {
    const items = Object.entries(EVERYDAY).flatMap(([label, texts]) => texts.map((text) => ({ label, text })));
    for (const mode of ['coverage', 'traffic'] as const) {
      const got = await labelsOf(model, items.map((i) => i.text), mode);
      const wrong = items.flatMap((it, k) => (got[k] === it.label ? [] : [`${it.text} → ${got[k]}`]));
      expect(items.length - wrong.length, `${mode}: ${wrong.join(', ')}`).toBeGreaterThanOrEqual(EVERYDAY_RIGHT[model][mode]);
    }
    // words that went to a small neighbour before the lists, in the default mode
    expect(await labelsOf(model, ['obrigado', 'ciao', 'merhaba', 'merci'], 'traffic')).toEqual(['por_Latn', 'ita_Latn', 'tur_Latn', 'fra_Latn']);
  });
  it('answers a short Swahili greeting swh_Latn in traffic mode (the default), and in coverage mode where noted', async () => {
    expect(await labelsOf(model, ['Habari za asubuhi'], 'traffic')).toEqual(['swh_Latn']);
    // coverage mode weighs 642 labels alike; lid-lite-608 of commit a825b98 ranked swh_Latn
    // third there (jni_Latn 0.32, kin_Latn 0.24, swh_Latn 0.16: Tanzanian Bible translations
    // have "habari" and "asubuhi" as loanwords), today's first (swh 0.30, kin 0.26, jni 0.18)
    expect(await labelsOf(model, ['Habari za asubuhi'], 'coverage')).toEqual(['swh_Latn']);
  });
  it('tells Southern from Northern Sotho, news included (NTREX-128\'s "nso" file is Southern Sotho)', async () => {
    // written for this test: "Many people gathered yesterday to listen to the prime minister's speech."
    expect(await labelsOf(model, [
      'Batho ba bangata ba ile ba bokana maobane ho mamela puo ya tonakgolo.',
      'Batho ba bantši ba ile ba kgobokana maabane go theetša polelo ya tonakgolo.',
    ])).toEqual(['sot_Latn', 'nso_Latn']);
    // a held-out news line of the relabelled file (its last tenth): Southern Sotho
    expect(await labelsOf(model, ['Mathata a ho hema ha a ka a tlalehwa Florida Leboyabophirimela bekeng e fetileng.'])).toEqual(['sot_Latn']);
  });
  it('keeps simplified Chinese cmn_Hans', async () => {
    expect(await labelsOf(model, ['我今晚想去看电影', '我今晚想去看电影。'], 'traffic')).toEqual(['cmn_Hans', 'cmn_Hans']);
    expect(await labelsOf(model, ['这个周末我们一起去公园散步吧。'])).toEqual(['cmn_Hans']);
  });
});

describe('lid-lite-608', () => {
  it('gives Egyptian and Moroccan Arabic their dialect', async () => {
    // the shorter Egyptian sentence of the test below is answered mey_Arab (Hassaniya) by
    // lid-lite-608: its Arabic second stage, kept for 28 more right answers on the news
    // development set and check sentences together, moves Arabic that is not Standard
    // Arabic news towards Hassaniya, whose only text is news (docs/language-id.md)
    expect(await labelsOf('lid-lite-608', ['انا مش عارف هو عايز ايه مني بالظبط، كل يوم يقولي حاجة شكل.'])).toEqual(['arz_Arab']);
    expect(await labelsOf('lid-lite-608', [
      'واش كاين شي حد فالدار؟ بغيت نهضر معاك شوية.',
      'دابا غادي نمشي نشري الخبز ونرجع.',
    ])).toEqual(['ary_Arab', 'ary_Arab']);
  });
});

describe('lid-neural-608', () => {
  it('gives Egyptian and Moroccan Arabic their dialect', async () => {
    // the shorter Egyptian sentence is answered arb_Arab 0.49 (arz_Arab 0.30): lid-neural-608
    // has no Arabic second stage (it loses as many development texts as it wins)
    const egyptian = await labelsOf('lid-neural-608', [
      'انا مش عارف هو عايز ايه مني بالظبط، كل يوم يقولي حاجة شكل.',
      'إحنا رايحين النادي بكره الصبح، تيجي معانا؟',
    ]);
    expect(egyptian[0]).toBe('arz_Arab');
    expect(['arz_Arab', 'arb_Arab']).toContain(egyptian[1]);
    expect(await labelsOf('lid-neural-608', [
      'واش كاين شي حد فالدار؟ بغيت نهضر معاك شوية.',
      'دابا غادي نمشي نشري الخبز ونرجع.',
    ])).toEqual(['ary_Arab', 'ary_Arab']);
  });
  it('tells written Cantonese from standard written Chinese in traditional characters', async () => {
    expect(await labelsOf('lid-neural-608', ['佢哋琴日去咗邊度食飯？', '你講咩呀？我唔明白。'])).toEqual(['yue_Hant', 'yue_Hant']);
    expect(await labelsOf('lid-neural-608', ['政府今天宣布了一項支持經濟發展的新計劃。'])).toEqual(['cmn_Hant']);
  });
});

describe('the detect-language route with lid-lite-25', () => {
  it('answers the Swahili greeting swa', async () => {
    const r = await post(svc, '/v1/detect-language', { text: 'Habari za asubuhi', model: 'lid-lite-25' });
    expect(r.status).toBe(200);
    expect(r.body.language).toBe('swa');
  });
});

/**
 * Right when the models were trained: lid-neural-608 44 of 46 (misses: one Hassaniya, one
 * Dari line), lid-lite-608 43 of 46 (both Pulaar lines, one Slovak); the models of commit
 * a825b98, without the Nguni and pes/prs second stages, got 40 and 37. The thresholds leave
 * two lines to a retraining.
 */
const NEURAL_MIN = 0.91, LITE_MIN = 0.89;
/** Held-out lines of labels new to this round (and of the labels that gained their own news text). */
const HELD_OUT = readFileSync(new URL('../../fixtures/lid-new-labels.tsv', import.meta.url), 'utf8').trim().split('\n').map((l) => {
  const [label, text] = l.split('\t');
  return { label: label!, text: text! };
});

describe.each([
  ['lid-neural-608', NEURAL_MIN],
  ['lid-lite-608', LITE_MIN],
])('%s on held-out lines of new labels', (model, min) => {
  it(`labels at least ${min * 100}% of them right`, async () => {
    const got = await labelsOf(model, HELD_OUT.map((h) => h.text));
    const wrong = HELD_OUT.flatMap((h, i) => (got[i] === h.label ? [] : [`${h.label}→${got[i]}`]));
    expect(1 - wrong.length / HELD_OUT.length, `wrong: ${wrong.join(', ')}`).toBeGreaterThanOrEqual(min);
  });
});
