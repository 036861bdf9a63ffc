/**
 * Backend `diacnet` (issue 13): the diacnet models, a character CNN over the whole text
 * without marks with, for each letter with a choice, a word-level input from its hashed
 * context features (scripts/train_diacnet.py; graph scripts/diacnet-onnx.ts) on
 * onnxruntime, in an inference thread, followed by word-level rescoring: a lexicon and
 * trigram language model of the training text, with Hunspell dictionary forms and
 * frequency-list priors, pick word by word among the forms the training text or a
 * dictionary writes and the network's own (word-lm.ts, word-lm-format.ts; config.json
 * `word_lm`). A
 * text is cut into windows of {@link WINDOW} characters read with the network's receptive
 * radius of context on each side ({@link receptiveRadius}: 76 characters for diacnet-2.0,
 * 36 for diacnet-mini-2.0; so a window's answer equals the whole text's), and the windows of a micro-batch run
 * {@link WINDOWS_PER_RUN} at a time, with windows of their length ({@link runsOf}: little
 * padding), so memory stays bounded whatever the texts' lengths
 * (64 × 20,000 characters is 1.28 M characters × 90 classes). `language: auto`, the plan
 * of a micro-batch and the restoration rule are shared with diactag (backends/common.ts,
 * tagger.ts), and so is `hints` (applyHints: a hint given as the marked word is used, a
 * meaning only warns). `aligned` makes no difference: the model only chooses marks for
 * the caller's letters, so its raw output is aligned. `min_confidence` is diactag's
 * (spec) and is ignored here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import type { DiacritizeOutput, DiacritizeRequest } from '../../../events/contract.ts';
import { ModelRepository } from '../../../models/repository.ts';
import { EngineError, type Engine, type EngineContext } from '../../../workers/engines/types.ts';
import { EXCLUDED } from '../../language-id/decode.ts';
import { maxSlotFeatures, prepare, slotFeaturesInto, type TaggerFeatureSpec } from '../tagger-features.ts';
import { KEEP_TYPED_BELOW, type TaggerCandidates } from '../tagger.ts';
import { decodeText, WordLm, type WordLmSpec } from '../word-lm.ts';
import { diacritizeEngine, type PlannedText } from './common.ts';

/** Characters a window answers for. */
export const WINDOW = 256;
/** Characters of context read on each side of a window when config.json gives no network shape to compute it from ({@link receptiveRadius}). */
export const MARGIN = 64;

/**
 * The characters on each side of a letter that the network reads: (kernel − 1) / 2 ×
 * the sum of the convolutions' dilations (config.json `training`, scripts/train_diacnet.py;
 * a residual stack of dilated convolutions, van den Oord et al. 2016, "WaveNet", §2.1);
 * {@link MARGIN} without them. diacnet-2.0 (kernel 5, dilations 1, 2, 4, 8, 16, 1, 2, 4):
 * 76; until this was computed its windows were read with 64 on each side, so a letter
 * near a window's edge of a long text missed the farthest taps of the widest layers.
 */
export function receptiveRadius(training: { dilations?: readonly number[]; kernel?: number } | undefined): number {
  const d = training?.dilations; const k = training?.kernel;
  if (!Array.isArray(d) || d.length === 0 || !(Number(k) >= 1)) return MARGIN;
  return Math.floor((Number(k) - 1) / 2) * d.reduce((s, x) => s + Number(x), 0);
}
/** Windows per onnxruntime call. */
const WINDOWS_PER_RUN = 64;
/**
 * Windows are run with others of their length class (read length rounded up to this many
 * characters), so that a call's padding, which the network computes as it does letters,
 * stays under this many characters a window. Back to back (bench:diacritics-speed), 16
 * against 32 ran diacnet-2.0's batch-64 pass 1.05 times as fast and the mini's 1.02.
 */
export const LENGTH_CLASS = 16;

/**
 * The windows' onnxruntime calls: each holds windows of one length class
 * ({@link LENGTH_CLASS}), at most `perRun`, shortest classes first.
 * @returns indexes into `windows`, one array per call
 */
export function runsOf(windows: readonly Window[], perRun = WINDOWS_PER_RUN): number[][] {
  const byClass = new Map<number, number[]>();
  windows.forEach((w, i) => {
    const c = Math.ceil((w.readTo - w.readFrom) / LENGTH_CLASS);
    let list = byClass.get(c);
    if (!list) byClass.set(c, (list = []));
    list.push(i);
  });
  const runs: number[][] = [];
  for (const c of [...byClass.keys()].sort((a, b) => a - b)) {
    const list = byClass.get(c)!;
    for (let i = 0; i < list.length; i += perRun) runs.push(list.slice(i, i + perRun));
  }
  return runs;
}

/** A loaded diacnet model. */
export interface DiacnetModel {
  session: ort.InferenceSession;
  classes: string[];
  candidates: TaggerCandidates;
  /** vocabulary id of each character (0 = padding, 1 = unknown) */
  charIds: Map<string, number>;
  /** index of each language */
  languages: Map<string, number>;
  /** the letters' hashed context features (the network's word-level input) and ids per letter */
  features: TaggerFeatureSpec;
  featuresPerLetter: number;
  /** characters of context read on each side of a window ({@link receptiveRadius}) */
  margin: number;
  lidModel: string;
  /** the word lexicon and bigram language model that rescore the network's choices (config.json `word_lm`), or null for the network alone */
  wordLm: WordLm | null;
}

/**
 * Loads a diacnet model from the model repository (`withWordLm` false: the network
 * alone, as the training pipeline reads it before the word model is tuned).
 * @throws EngineError MODEL_NOT_INSTALLED when the model is not in the repository
 * @throws Error when the word model file is missing or of another format, or config.json's
 *   `features_per_letter` is below the features a letter can have
 */
export async function openDiacnet(repo: ModelRepository, name: string, ctx: Pick<EngineContext, 'executionProvider' | 'intraOpThreads'>, withWordLm = true): Promise<DiacnetModel> {
  const cfg = repo.config(name);
  if (!cfg) throw new EngineError('MODEL_NOT_INSTALLED', `model ${name} is not installed`);
  const features = cfg.features as TaggerFeatureSpec;
  const featuresPerLetter = Number(cfg.features_per_letter);
  if (!(featuresPerLetter >= maxSlotFeatures(features))) throw new Error(`${name}: features_per_letter ${cfg.features_per_letter} is below the ${maxSlotFeatures(features)} features a letter can have`);
  const session = await ort.InferenceSession.create(cfg.modelPath, { executionProviders: [ctx.executionProvider], intraOpNumThreads: ctx.intraOpThreads, graphOptimizationLevel: 'all' });
  const v = JSON.parse(readFileSync(join(cfg.dir, 'vocab.json'), 'utf8')) as { vocab: string[]; languages: string[] };
  return {
    session,
    classes: JSON.parse(readFileSync(join(cfg.dir, 'classes.json'), 'utf8')) as string[],
    candidates: JSON.parse(readFileSync(join(cfg.dir, 'candidates.json'), 'utf8')) as TaggerCandidates,
    charIds: new Map(v.vocab.map((c, i) => [c, i])),
    languages: new Map(v.languages.map((l, i) => [l, i])),
    features,
    featuresPerLetter,
    margin: receptiveRadius(cfg.training as { dilations?: number[]; kernel?: number } | undefined),
    lidModel: String(cfg.language_id_model ?? 'lid-lite-608'),
    wordLm: cfg.word_lm && withWordLm ? WordLm.load(join(cfg.dir, (cfg.word_lm as WordLmSpec).file), cfg.word_lm as WordLmSpec) : null,
  };
}

/** A window of a text: units [from, to) answered, read from `readFrom`. */
export interface Window { text: number; readFrom: number; from: number; to: number; readTo: number; }

/**
 * Class probabilities of every letter with a choice of the texts, through the network.
 * @param window characters a window answers for; `margin` characters of context on each side (default: the network's receptive radius)
 * @returns per text, float32[slots × classes] in the order of its slots
 */
export async function scoreTexts(m: DiacnetModel, texts: readonly PlannedText[], window = WINDOW, margin = m.margin): Promise<Float32Array[]> {
  const C = m.classes.length;
  const out = texts.map((t) => new Float32Array(t.slots.length * C));
  const slotRow = texts.map((t) => new Map(t.slots.map((s, k) => [s.unit, k])));
  const L = m.featuresPerLetter;
  // each letter's features, from the whole text (a window reads the same ones): L per slot, padded, and how many
  const slotFeats = texts.map((t) => {
    const ids = new Int32Array(t.slots.length * L).fill(m.features.buckets);
    const counts = new Uint8Array(t.slots.length);
    if (t.slots.length > 0) {
      const p = prepare(t.us);
      t.slots.forEach((s, k) => { counts[k] = slotFeaturesInto(p, s.unit, t.language, m.features, ids, k * L); });
    }
    return { ids, counts };
  });
  const windows: Window[] = [];
  texts.forEach((t, ti) => {
    if (t.slots.length === 0) return;
    for (let from = 0; from < t.us.length; from += window) {
      const to = Math.min(t.us.length, from + window);
      windows.push({ text: ti, readFrom: Math.max(0, from - margin), from, to, readTo: Math.min(t.us.length, to + margin) });
    }
  });
  for (const run of runsOf(windows)) {
    const ws = run.map((i) => windows[i]!);
    const N = ws.length;
    const T = Math.max(...ws.map((w) => w.readTo - w.readFrom));
    const chars = new Int32Array(N * T);
    const lang = new Int32Array(N);
    const valid = new Float32Array(N * T);
    const feats = new Int32Array(N * T * L).fill(m.features.buckets);
    const fscale = new Float32Array(N * T);
    const mask = new Float32Array(N * T * C).fill(EXCLUDED);
    ws.forEach((w, n) => {
      const t = texts[w.text]!;
      lang[n] = m.languages.get(t.language) ?? 0;
      for (let u = w.readFrom; u < w.readTo; u++) {
        const j = n * T + (u - w.readFrom);
        chars[j] = m.charIds.get(t.us[u]!.context) ?? 1;
        valid[j] = 1;
        const k = slotRow[w.text]!.get(u);
        if (k === undefined) continue;
        for (const c of t.slots[k]!.candidates) mask[j * C + c] = 0;
        const f = slotFeats[w.text]!;
        feats.set(f.ids.subarray(k * L, (k + 1) * L), j * L);
        fscale[j] = 1 / f.counts[k]!;
      }
    });
    const res = await m.session.run({
      chars: new ort.Tensor('int32', chars, [N, T]), lang: new ort.Tensor('int32', lang, [N]),
      valid: new ort.Tensor('float32', valid, [N, 1, T]), feats: new ort.Tensor('int32', feats, [N, T, L]), fscale: new ort.Tensor('float32', fscale, [N, T, 1]),
      mask: new ort.Tensor('float32', mask, [N, T, C]),
    });
    const probs = res.probs!.data as Float32Array;
    ws.forEach((w, n) => {
      const rows = slotRow[w.text]!;
      for (let u = w.from; u < w.to; u++) {
        const k = rows.get(u);
        if (k === undefined) continue;
        const j = n * T + (u - w.readFrom);
        out[w.text]!.set(probs.subarray(j * C, (j + 1) * C), k * C);
      }
    });
  }
  return out;
}

/** Creates the engine. */
export function createEngine(ctx: EngineContext): Engine<DiacritizeRequest, DiacritizeOutput> {
  return diacritizeEngine(ctx, (repo, name) => openDiacnet(repo, name, ctx), (m, texts) => scoreTexts(m, texts), { hints: true, minConfidence: false },
    (m, t, probs) => (m.wordLm && t.slots.length > 0 ? decodeText(m.wordLm, t.language, t.us, t.slots, probs, m.classes, KEEP_TYPED_BELOW) : undefined));
}
