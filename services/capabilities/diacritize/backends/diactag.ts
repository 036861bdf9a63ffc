/**
 * Backend `diactag` (issue 13): diactag-2.0, a per-letter classifier over hashed context
 * features (services/capabilities/diacritize/tagger-features.ts, trained by
 * scripts/train-diacritics.ts) on onnxruntime. It runs in an inference thread. One
 * micro-batch is one onnxruntime call over every letter of every text that has a choice
 * in its language: ids int32[N, L], the letter's candidates as the mask float32[N, C]
 * (graph: scripts/lid-onnx.ts), probs float32[N, C] out.
 *
 * Words the training text nearly always writes one way take that form (the model's word
 * lexicon, form-lexicon.ts, when config.json has `lexicon`).
 *
 * `language: auto` asks the project's language-ID model (`language_id_model` in the
 * config, lid-lite-608; backends/common.ts). `hints` and `aligned` apply to diacnet only
 * (spec) and are ignored: this model never changes a letter.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import type { DiacritizeOutput, DiacritizeRequest } from '../../../events/contract.ts';
import { ModelRepository } from '../../../models/repository.ts';
import { EngineError, type Engine, type EngineContext } from '../../../workers/engines/types.ts';
import { EXCLUDED } from '../../language-id/decode.ts';
import type { Slot, TaggerCandidates } from '../tagger.ts';
import type { Unit } from '../marks.ts';
import { FormLexicon, type FormLexiconSpec } from '../form-lexicon.ts';
import { maxSlotFeatures, prepare, slotFeaturesInto, type TaggerFeatureSpec } from '../tagger-features.ts';
import { diacritizeEngine } from './common.ts';


/** A loaded diactag model. */
export interface Loaded {
  session: ort.InferenceSession;
  classes: string[];
  candidates: TaggerCandidates;
  features: TaggerFeatureSpec;
  lidModel: string;
  /** the word lexicon and when its forms are taken (config.json `lexicon`), or null */
  lexicon: { table: FormLexicon; spec: FormLexiconSpec } | null;
}

/** A letter of a micro-batch to score: its text, its slot and its feature ids. */
export interface Row { item: number; slot: Slot; ids: Uint32Array; }

/**
 * Loads a diactag model from the model repository: its ONNX session, classes,
 * candidates and feature settings.
 * @throws EngineError MODEL_NOT_INSTALLED when the model is not in the repository
 */
export async function openTagger(repo: ModelRepository, name: string, ctx: Pick<EngineContext, 'executionProvider' | 'intraOpThreads'>): Promise<Loaded> {
  const cfg = repo.config(name);
  if (!cfg) throw new EngineError('MODEL_NOT_INSTALLED', `model ${name} is not installed`);
  const session = await ort.InferenceSession.create(cfg.modelPath, { executionProviders: [ctx.executionProvider], intraOpNumThreads: ctx.intraOpThreads, graphOptimizationLevel: 'all' });
  return {
    session,
    classes: JSON.parse(readFileSync(join(cfg.dir, 'classes.json'), 'utf8')) as string[],
    candidates: JSON.parse(readFileSync(join(cfg.dir, 'candidates.json'), 'utf8')) as TaggerCandidates,
    features: cfg.features as TaggerFeatureSpec,
    lidModel: String(cfg.language_id_model ?? 'lid-lite-608'),
    lexicon: cfg.lexicon ? { table: FormLexicon.load(join(cfg.dir, (cfg.lexicon as FormLexiconSpec).file)), spec: cfg.lexicon as FormLexiconSpec } : null,
  };
}

/**
 * Takes the lexicon's form for the words it is sure of (form-lexicon.ts), in place in the
 * text's rows of `probs`; nothing when the model has no lexicon or no setting for the language.
 */
export function applyLexicon(m: Loaded, language: string, us: readonly Unit[], slots: readonly Slot[], probs: Float32Array): void {
  const share = m.lexicon?.spec.min_share[language];
  if (!m.lexicon || share === undefined) return;
  m.lexicon.table.apply(language, us, slots, probs, m.classes, share, m.lexicon.spec.min_count[language] ?? 1, m.lexicon.spec.unknown_plain?.[language] ?? 0);
}

/**
 * A micro-batch's letters as the graph reads them: `ids` int32[N × L] (L =
 * {@link maxSlotFeatures}, padded with `buckets`), `scale` float32[N] (1 / a row's
 * features) and each row's candidate classes.
 */
export interface FeatureBatch { ids: Int32Array; scale: Float32Array; candidates: Array<readonly number[]>; }

/** An empty {@link FeatureBatch} of `n` rows for the model's features. */
function featureBatch(m: Loaded, n: number): FeatureBatch {
  return { ids: new Int32Array(n * maxSlotFeatures(m.features)).fill(m.features.buckets), scale: new Float32Array(n), candidates: new Array<readonly number[]>(n) };
}

/**
 * The feature batch of every slot of the texts, in text order (features written in place,
 * no array per letter).
 */
export function textFeatures(m: Loaded, texts: ReadonlyArray<{ us: readonly Unit[]; slots: readonly Slot[]; language: string }>): FeatureBatch {
  let n = 0;
  for (const t of texts) n += t.slots.length;
  const b = featureBatch(m, n);
  const L = maxSlotFeatures(m.features);
  let row = 0;
  for (const t of texts) {
    if (t.slots.length === 0) continue;
    const p = prepare(t.us);
    for (const slot of t.slots) {
      b.scale[row] = 1 / slotFeaturesInto(p, slot.unit, t.language, m.features, b.ids, row * L);
      b.candidates[row++] = slot.candidates;
    }
  }
  return b;
}

/**
 * Class probabilities of letters in one onnxruntime call.
 * @returns float32[rows × classes], row-major in the order of `rows`
 */
export async function scoreSlots(m: Loaded, rows: readonly Row[]): Promise<Float32Array> {
  const b = featureBatch(m, rows.length);
  const L = maxSlotFeatures(m.features);
  rows.forEach((r, n) => {
    b.ids.set(r.ids, n * L);
    b.scale[n] = 1 / r.ids.length;
    b.candidates[n] = r.slot.candidates;
  });
  return scoreBatch(m, b);
}

/**
 * Class probabilities of a feature batch's letters in one onnxruntime call.
 * @returns float32[N × classes], row-major in the batch's order
 */
export async function scoreBatch(m: Loaded, b: FeatureBatch): Promise<Float32Array> {
  const C = m.classes.length;
  const N = b.scale.length;
  if (N === 0) return new Float32Array(0);
  const L = b.ids.length / N;
  const mask = new Float32Array(N * C).fill(EXCLUDED);
  for (let n = 0; n < N; n++) for (const c of b.candidates[n]!) mask[n * C + c] = 0;
  const out = await m.session.run({
    ids: new ort.Tensor('int32', b.ids, [N, L]), scale: new ort.Tensor('float32', b.scale, [N, 1]),
    inv_temperature: new ort.Tensor('float32', new Float32Array(N).fill(1), [N, 1]), prior_weight: new ort.Tensor('float32', new Float32Array(N), [N, 1]),
    log_prior: new ort.Tensor('float32', new Float32Array(C), [1, C]), mask: new ort.Tensor('float32', mask, [N, C]),
  });
  return out.probs!.data as Float32Array;
}

/** Creates the engine. */
export function createEngine(ctx: EngineContext): Engine<DiacritizeRequest, DiacritizeOutput> {
  return diacritizeEngine(ctx, (repo, name) => openTagger(repo, name, ctx), async (m, texts) => {
    const C = m.classes.length;
    const probs = await scoreBatch(m, textFeatures(m, texts));
    let row = 0;
    return texts.map((t) => {
      const p = probs.subarray(row * C, (row + t.slots.length) * C);
      row += t.slots.length;
      applyLexicon(m, t.language, t.us, t.slots, p);
      return p;
    });
  }, { hints: false, minConfidence: true });
}
