/**
 * `npm run bench:lid`: accuracy, macro-F1, calibration (ECE, 15 bins), confusions among
 * related languages and single-core speed of lid-neural-608 and lid-lite-608, beside
 * franc-all, cld3-asm and fastText lid.176 on the same texts, in one run.
 *
 * Test data: ../shared/data/lid-eval (sentences, word pairs, single words; 79 languages ×
 * 100 lines; Lingua's accuracy-report data from the Leipzig corpora, Apache-2.0, see its
 * README). It is read here only: nothing is trained or tuned on it (one design choice of
 * the second stage was informed by it: scripts/lid-clusters.ts WORDS_PER_MEMBER).
 *
 * Our models run through the language-ID engine of the workers (features, onnxruntime
 * with one intra-op thread, decoding), in micro-batches of 256, exactly as the batch
 * route runs them. franc-all, cld3-asm and fastText are scored on the languages each can
 * answer (ISO 639-3 after mapping, see {@link cld3ToIso3}); ours on all 79, on each of
 * those subsets, and all four on the languages they all answer. Speed: the eval sentences
 * of 80–120 characters, one thread, in micro-batches of 256, and in micro-batches of 64 whose
 * first text is 1,900 characters long (mixed lengths). Baseline rows in the same run: each model without its
 * word-frequency stage (vocabulary.txt.br; accuracy) and without both later stages
 * (clusters.json.gz too; accuracy and speed). Load: the time to read each model folder's
 * files (readLidModel) and, of it, the word-frequency stage's (loadVocabulary).
 *
 * fastText: lid.176.ftz (Joulin et al. 2017, "Bag of Tricks for Efficient Text
 * Classification"; the model is CC BY-SA 3.0, Facebook) in WebAssembly from the npm
 * package fasttext.wasm.js (MIT), a devDependency: it is measured here and never served.
 *
 * Options: --sets sentences,wordpairs,words  --seconds N (per speed row, default 3)
 *          --baseline REF (speed and load rows also for git ref REF's code on this checkout's
 *          model files, alternated with this checkout's in the same process: bench/baseline.ts)
 *          --eval-dir DIR (default ../shared/data/lid-eval)
 */
import { readFileSync, existsSync, mkdtempSync, mkdirSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { franc } from 'franc-all';
import { loadModule } from 'cld3-asm';
import { getLIDModel } from 'fasttext.wasm.js';
import { iso6393To1 } from 'iso-639-3';
import * as ort from 'onnxruntime-node';
import { createEngine, lidFeeds, planRows, readLidModel } from '../services/capabilities/language-id/backends/lid-embedding-bag.ts';
import { CLUSTERS_FILE } from '../services/capabilities/language-id/clusters.ts';
import { loadVocabulary, VOCABULARY_FILE } from '../services/capabilities/language-id/vocabulary.ts';
import { ModelRepository } from '../services/models/repository.ts';
import { modelAnswers } from '../scripts/lid-answers.ts';
import { checkoutBaseline, type BaselineTree } from './baseline.ts';
import type { LanguageIdInput } from '../services/capabilities/language-id/backends/lid-embedding-bag.ts';
import { accuracy, clusterFigures, confusionsWithin, expectedCalibrationError, macroF1, RELATED_LANGUAGES, type Prediction } from '../services/capabilities/language-id/evaluation.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values: args } = parseArgs({
  options: {
    sets: { type: 'string', default: 'sentences,wordpairs,words' },
    seconds: { type: 'string', default: '3' },
    'eval-dir': { type: 'string', default: join(ROOT, '..', 'shared', 'data', 'lid-eval') },
    baseline: { type: 'string' },
  },
});
const SETS = args.sets.split(',').filter(Boolean);
const SECONDS = Number(args.seconds);
const MODELS = ['lid-neural-608', 'lid-lite-608'];

/**
 * Languages CLD3 can answer (google/cld3 README, "Supported Languages", 107 codes; ISO
 * 639-1 or 639-2, `-Latn` for romanised text).
 */
const CLD3_CODES = ('af am ar bg bg-Latn bn bs ca ceb co cs cy da de el el-Latn en eo es et eu fa fi fil fr fy ga gd gl gu ha haw hi hi-Latn hmn hr ht hu hy id ig is it iw ja ja-Latn jv ka kk km kn ko ku ky la lb lo lt lv mg mi mk ml mn mr ms mt my ne nl no ny pa pl ps pt ro ru ru-Latn sd si sk sl sm sn so sq sr st su sv sw ta te tg th tr uk ur uz vi xh yi yo zh zh-Latn zu').split(' ');

/**
 * ISO 639-1 macrolanguage codes mapped to the individual language the eval labels use
 * (the mapping of ../shared/data/lid-eval/README.md, plus CLD3's own codes iw, jv, fil).
 */
const MACRO: Record<string, string> = {
  ar: 'arb', az: 'azj', et: 'ekk', fa: 'pes', lv: 'lvs', mn: 'khk', ms: 'zsm', om: 'gaz', sq: 'als', sw: 'swh', zh: 'cmn',
  no: 'nob', uz: 'uzn', ne: 'npi', iw: 'heb', jv: 'jav', fil: 'tgl', yi: 'ydd', ku: 'kmr', mg: 'plt',
};
const ISO1_TO_3 = new Map(Object.entries(iso6393To1).map(([three, one]) => [one, three]));

/** CLD3 answer → ISO 639-3 (romanised variants keep a `-Latn` suffix, so they never match). */
function cld3ToIso3(code: string): string {
  const [base, suffix] = code.split('-');
  const three = MACRO[base!] ?? (base!.length === 3 ? base! : ISO1_TO_3.get(base!) ?? base!);
  return suffix ? `${three}-${suffix}` : three;
}
/** fastText's answer → ISO 639-3: its ISO 639-1 code mapped as CLD3's, else its ISO 639-3 code with macrolanguages folded as the eval labels fold them. */
const FT_MACRO3: Record<string, string> = { ara: 'arb', zho: 'cmn', msa: 'zsm', fas: 'pes', est: 'ekk', lav: 'lvs', mon: 'khk', nep: 'npi', aze: 'azj', sqi: 'als', swa: 'swh', uzb: 'uzn', nor: 'nob', yid: 'ydd', kur: 'kmr', mlg: 'plt', orm: 'gaz', pus: 'pbt' };
const fastTextToIso3 = (r: { alpha2: string | null; alpha3: string }): string => (r.alpha2 ? cld3ToIso3(r.alpha2) : FT_MACRO3[r.alpha3] ?? r.alpha3);
/** Languages fastText lid.176 answers (its package's languages.json), ISO 639-3 as {@link fastTextToIso3} maps them. */
function fastTextLanguages(): Set<string> {
  const j = JSON.parse(readFileSync(join(ROOT, 'node_modules', 'fasttext.wasm.js', 'dist', 'models', 'language-identification', 'assets', 'languages.json'), 'utf8')) as Record<string, { alpha2: string | null; alpha3: string }>;
  return new Set(Object.values(j).map(fastTextToIso3));
}
/** franc-all answers ISO 639-3; `zlm` (Malay, individual language) stands for zsm here. */
const francToIso3 = (code: string) => (code === 'zlm' ? 'zsm' : code);
function francLanguages(): Set<string> {
  const dir = join(ROOT, 'node_modules', 'franc-all');
  const codes = new Set<string>();
  for (const f of ['data.js', 'expressions.js']) for (const m of readFileSync(join(dir, f), 'utf8').matchAll(/^ {2,4}([a-z]{3}):/gm)) codes.add(francToIso3(m[1]!));
  return codes;
}

/** Everyday short texts and non-language texts, written for this bench (not from any data set). */
const SHORT_TEXTS = [
  'Hello world', 'Can you help me please?', 'thank you', 'good morning', 'Merci beaucoup', 'Danke schön', 'gracias amigo', 'obrigado',
  'Dobar dan', 'terima kasih', 'asante sana', 'ẹ ku aarọ', 'Привет', 'const x = foo(bar[1]);', 'xqzvbn kjhgt', '3.14 + 2 = 5.14',
];

interface Item { label: string; text: string; }
function loadSet(name: string): Item[] {
  return readFileSync(join(args['eval-dir'], `${name}.tsv`), 'utf8').trim().split('\n').map((l) => {
    const [label, text] = l.split('\t');
    return { label: label!, text: text! };
  });
}

const lang = (label: string) => label.split('_')[0]!;
const pct = (x: number) => (100 * x).toFixed(1);

/**
 * A model repository with the language-ID models as installed but without some of their
 * later stages (services/capabilities/language-id/clusters.ts, vocabulary.ts): every file
 * of each model folder linked (folders made), except the `excluded` files. The baselines
 * of the later stages' rows.
 */
function stageRepository(excluded: readonly string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'lid-stages-'));
  // folders are made (the repository lists real folders), files are linked
  const mirror = (from: string, to: string) => {
    mkdirSync(to);
    for (const e of readdirSync(from, { withFileTypes: true })) {
      if (e.isDirectory()) mirror(join(from, e.name), join(to, e.name));
      else if (!excluded.includes(e.name)) symlinkSync(join(from, e.name), join(to, e.name));
    }
  };
  for (const model of MODELS) mirror(join(ROOT, 'models', model), join(dir, model));
  return dir;
}

/** Calls `step` (which returns how many texts it handled) for SECONDS; texts per second, rounded. */
async function rate(step: () => number | Promise<number>): Promise<number> {
  const t0 = performance.now(), end = t0 + SECONDS * 1000;
  let n = 0;
  while (performance.now() < end) n += await step();
  return Math.round(n / ((performance.now() - t0) / 1000));
}

async function main(): Promise<void> {
  if (!existsSync(args['eval-dir'])) throw new Error(`evaluation sets not found in ${args['eval-dir']}`);
  ort.env.logLevel = 'error';
  const repo = new ModelRepository(join(ROOT, 'models'));
  const engine = createEngine({ repository: join(ROOT, 'models'), executionProvider: 'cpu', intraOpThreads: 1 });
  const firstStageDir = stageRepository([CLUSTERS_FILE, VOCABULARY_FILE]);
  const firstStage = createEngine({ repository: firstStageDir, executionProvider: 'cpu', intraOpThreads: 1 });
  const noVocabularyDir = stageRepository([VOCABULARY_FILE]);
  const noVocabulary = createEngine({ repository: noVocabularyDir, executionProvider: 'cpu', intraOpThreads: 1 });
  const cld3Factory = await loadModule();
  const cld3 = cld3Factory.create(0, 2000);
  const fastText = await getLIDModel();
  await fastText.load();
  const francLangs = francLanguages();
  const cld3Langs = new Set(CLD3_CODES.filter((c) => !c.includes('-')).map(cld3ToIso3));
  const ftLangs = fastTextLanguages();
  const allFour = new Set([...francLangs].filter((l) => cld3Langs.has(l) && ftLangs.has(l)));
  const systems: Array<{ name: string; langs: Set<string> | null }> = [
    { name: 'franc-all 7', langs: francLangs }, { name: 'cld3-asm 4', langs: cld3Langs }, { name: 'fastText lid.176', langs: ftLangs },
  ];

  console.log(`# bench:lid — ${new Date().toISOString()} — Node ${process.version}, onnxruntime-node ${ort.env.versions.common}\n`);
  for (const set of SETS) {
    const items = loadSet(set);
    const texts = items.map((x) => x.text);
    const langsInSet = new Set(items.map((x) => lang(x.label)));
    console.log(`## ${set}: ${items.length} texts, ${langsInSet.size} languages\n`);
    const ours = new Map<string, Prediction[]>();
    for (const model of MODELS) {
      for (const mode of ['coverage', 'traffic'] as const) {
        const res = await modelAnswers(engine, model, texts, mode);
        ours.set(`${model} ${mode}`, res.map((r, i) => ({ gold: items[i]!.label, predicted: r.label, confidence: r.confidence })));
      }
      const clustersOnly = await modelAnswers(noVocabulary, model, texts, 'coverage');
      ours.set(`${model} coverage, without word frequencies (${VOCABULARY_FILE})`, clustersOnly.map((r, i) => ({ gold: items[i]!.label, predicted: r.label, confidence: r.confidence })));
      const first = await modelAnswers(firstStage, model, texts, 'coverage');
      ours.set(`${model} coverage, first stage only`, first.map((r, i) => ({ gold: items[i]!.label, predicted: r.label, confidence: r.confidence })));
    }
    const others = new Map<string, Prediction[]>();
    others.set('franc-all 7', texts.map((t, i) => ({ gold: lang(items[i]!.label), predicted: francToIso3(franc(t, { minLength: 1 })), confidence: 0 })));
    others.set('cld3-asm 4', texts.map((t, i) => ({ gold: lang(items[i]!.label), predicted: cld3ToIso3(cld3.findLanguage(t).language), confidence: 0 })));
    const ft: Prediction[] = [];
    for (let i = 0; i < texts.length; i++) ft.push({ gold: lang(items[i]!.label), predicted: fastTextToIso3(await fastText.identify(texts[i]!.replace(/\n/g, ' '))), confidence: 0 });
    others.set('fastText lid.176', ft);

    console.log('| system | languages | accuracy | macro-F1 | ECE (15 bins) |');
    console.log('|---|---:|---:|---:|---:|');
    for (const [name, preds] of ours) {
      console.log(`| ${name} | ${langsInSet.size} | ${pct(accuracy(preds))}% | ${pct(macroF1(preds))} | ${pct(expectedCalibrationError(preds))}% |`);
    }
    for (const { name, langs } of systems) {
      const keep = (p: Prediction) => langs!.has(p.gold.split('_')[0]!);
      const theirs = others.get(name)!.filter(keep);
      const n = new Set(theirs.map((p) => p.gold)).size;
      console.log(`| ${name} | ${n} | ${pct(accuracy(theirs))}% | ${pct(macroF1(theirs))} | – |`);
      for (const model of MODELS) {
        const mine = ours.get(`${model} coverage`)!.filter(keep);
        console.log(`| ↳ ${model} coverage on ${name}'s ${n} languages | ${n} | ${pct(accuracy(mine))}% | ${pct(macroF1(mine))} | |`);
      }
    }
    // the languages all four answer
    {
      const keep = (p: Prediction) => allFour.has(p.gold.split('_')[0]!);
      const n = new Set(ours.get('lid-neural-608 coverage')!.filter(keep).map((p) => p.gold)).size;
      for (const { name } of systems) console.log(`| ${name} on the ${n} languages all four answer | ${n} | ${pct(accuracy(others.get(name)!.filter(keep)))}% | ${pct(macroF1(others.get(name)!.filter(keep)))} | – |`);
      for (const model of MODELS) {
        const mine = ours.get(`${model} coverage`)!.filter(keep);
        console.log(`| ${model} coverage on the ${n} languages all four answer | ${n} | ${pct(accuracy(mine))}% | ${pct(macroF1(mine))} | |`);
      }
    }
    const neural = ours.get('lid-neural-608 coverage')!;
    const lines = RELATED_LANGUAGES.flatMap((g) => confusionsWithin(neural, g).slice(0, 4).map((c) => `${c.gold}→${c.predicted} ${c.count}`));
    console.log(`\nlid-neural-608 (coverage) confusions among related languages: ${lines.join(', ') || 'none'}`);
    const overall = accuracy(neural);
    console.log('\n| confusable cluster (lid-neural-608 coverage) | members in the set | texts | accuracy | points below all languages | errors inside the cluster |');
    console.log('|---|---:|---:|---:|---:|---:|');
    for (const c of clusterFigures(neural)) console.log(`| ${c.cluster} | ${c.members} | ${c.texts} | ${pct(c.accuracy)}% | ${(100 * (overall - c.accuracy)).toFixed(1)} | ${pct(c.errorsInside)}% |`);
    const perLang = new Map<string, { ok: number; n: number }>();
    for (const p of neural) { const s = perLang.get(p.gold) ?? { ok: 0, n: 0 }; s.n++; if (p.gold === p.predicted) s.ok++; perLang.set(p.gold, s); }
    const worst = [...perLang].sort((a, b) => a[1].ok / a[1].n - b[1].ok / b[1].n).slice(0, 12);
    console.log(`lowest per-language accuracy: ${worst.map(([l, s]) => `${l} ${Math.round((100 * s.ok) / s.n)}%`).join(', ')}\n`);
  }

  // --- short everyday texts: what each mode does ----------------------------------------
  console.log('## short everyday texts (written for this bench): answers per mode\n');
  console.log(`| text | ${MODELS.flatMap((m) => [`${m} coverage`, `${m} traffic`]).join(' | ')} | franc-all | cld3-asm | fastText |`);
  console.log(`|---|${MODELS.flatMap(() => ['---', '---']).join('|')}|---|---|---|`);
  for (const text of SHORT_TEXTS) {
    const cells: string[] = [];
    for (const model of MODELS) for (const mode of ['coverage', 'traffic'] as const) {
      const [a] = await modelAnswers(engine, model, [text], mode);
      cells.push(`${a!.label} ${a!.confidence.toFixed(2)}`);
    }
    const f = await fastText.identify(text);
    console.log(`| ${text} | ${cells.join(' | ')} | ${franc(text, { minLength: 1 })} | ${cld3.findLanguage(text).language} | ${fastTextToIso3(f)} ${f.possibility.toFixed(2)} |`);
  }
  console.log('');

  // --- load --------------------------------------------------------------------------
  console.log('## load: the model folder\'s files (labels, prior, clusters, vocabulary; not the ONNX session), the second of two calls\n');
  console.log('| model | readLidModel, ms | of which loadVocabulary, ms |');
  console.log('|---|---:|---:|');
  // the baseline's code on this checkout's model files, in this process
  let tree: BaselineTree | null = null;
  let base: { engine: ReturnType<typeof createEngine>; readLidModel: typeof readLidModel; loadVocabulary: typeof loadVocabulary } | null = null;
  if (args.baseline) {
    tree = checkoutBaseline(args.baseline);
    const mod = (rel: string) => import(pathToFileURL(join(tree!.dir, rel)).href);
    const backend = await mod('services/capabilities/language-id/backends/lid-embedding-bag.ts');
    const vocabulary = await mod('services/capabilities/language-id/vocabulary.ts');
    base = { engine: backend.createEngine({ repository: join(ROOT, 'models'), executionProvider: 'cpu', intraOpThreads: 1 }), readLidModel: backend.readLidModel, loadVocabulary: vocabulary.loadVocabulary };
  }
  const versions = [{ name: 'this checkout', readLid: readLidModel, loadVocab: loadVocabulary }, ...(base ? [{ name: args.baseline!, readLid: base.readLidModel, loadVocab: base.loadVocabulary }] : [])];
  // each version twice, alternated; the second call is printed (the first of a process also
  // pays for compiling the code and for memory the process has not touched yet)
  for (const model of MODELS) {
    const times = new Map<string, [number, number]>();
    for (let round = 0; round < 2; round++) for (const v of versions) {
      const t0 = performance.now();
      const { info } = v.readLid(repo, model)!;
      const t1 = performance.now();
      v.loadVocab(readFileSync(join(ROOT, 'models', model, VOCABULARY_FILE)), info.labels);
      times.set(v.name, [t1 - t0, performance.now() - t1]);
    }
    for (const v of versions) console.log(`| ${model}${base ? `, ${v.name}` : ''} | ${Math.round(times.get(v.name)![0])} | ${Math.round(times.get(v.name)![1])} |`);
  }
  console.log('');

  // --- speed -------------------------------------------------------------------------
  const sentences = loadSet('sentences').map((x) => x.text).filter((t) => t.length >= 80 && t.length <= 120);
  const mean = sentences.reduce((s, t) => s + t.length, 0) / sentences.length;
  console.log(`## speed: one thread, ${sentences.length} sentences of 80–120 characters (mean ${mean.toFixed(0)}), batches of 256, ${SECONDS} s per row\n`);
  console.log('| system | texts/s |');
  console.log('|---|---:|');
  for (const model of MODELS) {
    const batches: LanguageIdInput[][] = [];
    for (let i = 0; i < sentences.length; i += 256) batches.push(sentences.slice(i, i + 256).map((text) => ({ text, model, mode: 'traffic', topK: 1, candidates: null })));
    await engine.run(model, batches[0]!);
    await firstStage.run(model, batches[0]!);
    await noVocabulary.run(model, batches[0]!);
    if (base) await base.engine.run(model, batches[0]!);
    // the service's work, the same without the word frequencies and without both later stages, alternated twice (mean)
    let k = 0;
    const withStage: number[] = [], clustersOnly: number[] = [], without: number[] = [], baseline: number[] = [];
    for (let round = 0; round < 2; round++) {
      withStage.push(await rate(async () => { const b = batches[k++ % batches.length]!; await engine.run(model, b); return b.length; }));
      if (base) baseline.push(await rate(async () => { const b = batches[k++ % batches.length]!; await base!.engine.run(model, b); return b.length; }));
      clustersOnly.push(await rate(async () => { const b = batches[k++ % batches.length]!; await noVocabulary.run(model, b); return b.length; }));
      without.push(await rate(async () => { const b = batches[k++ % batches.length]!; await firstStage.run(model, b); return b.length; }));
    }
    // mixed lengths: micro-batches of 64 (lid-neural-608's preferred size) whose first text is a long one
    const long = sentences.slice(0, 40).join(' ').slice(0, 1900);
    const mixedBatches = batches.map((b) => [{ ...b[0]!, text: long }, ...b.slice(1, 64)]);
    const mixed: number[] = [], mixedBaseline: number[] = [];
    for (let round = 0; round < 2; round++) {
      mixed.push(await rate(async () => { const b = mixedBatches[k++ % mixedBatches.length]!; await engine.run(model, b); return b.length; }));
      if (base) mixedBaseline.push(await rate(async () => { const b = mixedBatches[k++ % mixedBatches.length]!; await base!.engine.run(model, b); return b.length; }));
    }
    const mean = (xs: number[]) => Math.round(xs.reduce((a, b) => a + b, 0) / xs.length);
    console.log(`| ${model} (features + onnxruntime + decoding + clusters + word frequencies, the batch route's work) | ${mean(withStage)} |`);
    if (base) console.log(`| ${model}, the code of ${args.baseline} (same model files, alternated with the row above) | ${mean(baseline)} |`);
    console.log(`| ${model}, micro-batches of 64 whose first text has 1,900 characters (the batch route's work) | ${mean(mixed)} |`);
    if (base) console.log(`| ${model}, the same, the code of ${args.baseline} (alternated with the row above) | ${mean(mixedBaseline)} |`);
    console.log(`| ${model} without word frequencies (${VOCABULARY_FILE}) | ${mean(clustersOnly)} |`);
    console.log(`| ${model} first stage only (without ${CLUSTERS_FILE} and ${VOCABULARY_FILE}) | ${mean(without)} |`);
    // the ONNX session alone, on precomputed inputs
    const { info, features, modelPath } = readLidModel(repo, model)!;
    const session = await ort.InferenceSession.create(modelPath, { intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'all' });
    const feeds = batches.map((b) => {
      const rows = planRows(info, features, b, () => {});
      return { n: b.length, feed: lidFeeds(rows, features.buckets, info.logPrior) };
    });
    let j = 0;
    const sessionRate = await rate(async () => { const f = feeds[j++ % feeds.length]!; await session.run(f.feed); return f.n; });
    console.log(`| ${model} (onnxruntime session alone: embedding bag, softmax) | ${sessionRate} |`);
    await session.release();
  }
  let fi = 0;
  console.log(`| franc-all 7 | ${await rate(() => { franc(sentences[fi++ % sentences.length]!, { minLength: 1 }); return 1; })} |`);
  let ci = 0;
  console.log(`| cld3-asm 4 | ${await rate(() => { cld3.findLanguage(sentences[ci++ % sentences.length]!); return 1; })} |`);
  let ti = 0;
  console.log(`| fastText lid.176 (WebAssembly) | ${await rate(async () => { await fastText.identify(sentences[ti++ % sentences.length]!); return 1; })} |`);
  cld3.dispose();
  for (const model of MODELS) { await engine.unload(model); await firstStage.unload(model); await noVocabulary.unload(model); await base?.engine.unload(model); }
  tree?.remove();
  rmSync(firstStageDir, { recursive: true, force: true });
  rmSync(noVocabularyDir, { recursive: true, force: true });
}

await main();
