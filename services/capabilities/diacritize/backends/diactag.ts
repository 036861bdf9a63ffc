/**
 * Backend `diactag` (issue 13): diactag-2.0, a per-letter classifier over hashed context
 * features (services/capabilities/diacritize/tagger-features.ts, trained by
 * scripts/train-diacritics.ts) on onnxruntime. It runs in an inference thread. One
 * micro-batch is one onnxruntime call over every letter of every text that has a choice
 * in its language: ids int32[N, L], the letter's candidates as the mask float32[N, C]
 * (graph: scripts/lid-onnx.ts), probs float32[N, C] out.
 *
 * `language: auto` asks the project's language-ID model (`language_id_model` in the
 * config, lid-lite-608) for the text's language: when its first answer is one of the 11
 * languages, that one; when it is another language with a score of 0.5 or more, the item
 * fails with 400 naming it; otherwise the best of the 11. Text without letters keeps its
 * characters and answers `zxx`. `hints` and `aligned` apply to diacnet only (spec) and are
 * ignored: this model never changes a letter.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import type { DiacritizeOutput, DiacritizeRequest, ItemResult } from '../../../events/contract.ts';
import { failed } from '../../../events/results.ts';
import { ModelRepository } from '../../../models/repository.ts';
import { LoadedModels } from '../../../workers/engines/sessions.ts';
import { EngineError, type Engine, type EngineContext } from '../../../workers/engines/types.ts';
import { createEngine as createLidEngine } from '../../language-id/backends/lid-embedding-bag.ts';
import { EXCLUDED } from '../../language-id/decode.ts';
import { units, type Unit } from '../marks.ts';
import { restore, slotsOf, type Slot, type TaggerCandidates } from '../tagger.ts';
import { prepare, slotFeatures, type TaggerFeatureSpec } from '../tagger-features.ts';

/** The 11 languages (ISO 639-3) and the language-ID labels' languages that select each. */
const LID_TO_DIACRITIZE: Readonly<Record<string, string>> = {
  yor: 'yor', ibo: 'ibo', hau: 'hau', vie: 'vie', pol: 'pol', tur: 'tur', por: 'por', spa: 'spa', fra: 'fra', ita: 'ita', arb: 'ara', ara: 'ara',
};
/** English names of languages for messages (ICU data of Node's Intl). */
const ENGLISH_NAMES = new Intl.DisplayNames(['en'], { type: 'language' });
/** A language-ID answer outside the 11 languages refuses the text from this score on. */
const OTHER_LANGUAGE_SCORE = 0.5;

/** A loaded diactag model. */
export interface Loaded {
  session: ort.InferenceSession;
  classes: string[];
  candidates: TaggerCandidates;
  features: TaggerFeatureSpec;
  lidModel: string;
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
  };
}

/**
 * Class probabilities of letters in one onnxruntime call.
 * @returns float32[rows × classes], row-major in the order of `rows`
 */
export async function scoreSlots(m: Loaded, rows: readonly Row[]): Promise<Float32Array> {
  const C = m.classes.length;
  const N = rows.length;
  if (N === 0) return new Float32Array(0);
  let L = 1;
  for (const r of rows) if (r.ids.length > L) L = r.ids.length;
  const ids = new Int32Array(N * L).fill(m.features.buckets);
  const scale = new Float32Array(N);
  const mask = new Float32Array(N * C).fill(EXCLUDED);
  rows.forEach((r, n) => {
    ids.set(r.ids, n * L);
    scale[n] = 1 / r.ids.length;
    for (const c of r.slot.candidates) mask[n * C + c] = 0;
  });
  const out = await m.session.run({
    ids: new ort.Tensor('int32', ids, [N, L]), scale: new ort.Tensor('float32', scale, [N, 1]),
    inv_temperature: new ort.Tensor('float32', new Float32Array(N).fill(1), [N, 1]), prior_weight: new ort.Tensor('float32', new Float32Array(N), [N, 1]),
    log_prior: new ort.Tensor('float32', new Float32Array(C), [1, C]), mask: new ort.Tensor('float32', mask, [N, C]),
  });
  return out.probs!.data as Float32Array;
}

/** Creates the engine. */
export function createEngine(ctx: EngineContext): Engine<DiacritizeRequest, DiacritizeOutput> {
  const repo = new ModelRepository(ctx.repository);
  const models = new LoadedModels((name) => openTagger(repo, name, ctx));
  const lid = createLidEngine(ctx);

  /** The language of each `auto` text (or the failure of a text in another language). */
  async function detect(m: Loaded, texts: Array<{ i: number; text: string }>): Promise<Map<number, string | ItemResult<DiacritizeOutput>>> {
    const out = new Map<number, string | ItemResult<DiacritizeOutput>>();
    if (texts.length === 0) return out;
    const free = await lid.run(m.lidModel, texts.map((t) => ({ text: t.text, model: m.lidModel, mode: 'traffic' as const, topK: 25, candidates: null })));
    const again: Array<{ i: number; text: string }> = [];
    free.forEach((r, k) => {
      const t = texts[k]!;
      if (r.failure) { out.set(t.i, { output: null, failure: r.failure }); return; }
      const first = r.output.top[0];
      if (!first || r.output.label.startsWith('zxx')) { out.set(t.i, 'zxx'); return; }
      const ours = LID_TO_DIACRITIZE[first.language];
      if (ours) { out.set(t.i, ours); return; }
      if (first.score >= OTHER_LANGUAGE_SCORE) {
        out.set(t.i, failed('INVALID_REQUEST', `language=auto: the text is in ${ENGLISH_NAMES.of(first.language) ?? first.language} (${first.language}, score ${first.score}), which diacritization does not support (one of yor, ibo, hau, vie, pol, tur, por, spa, fra, ita, ara)`));
        return;
      }
      again.push(t);
    });
    if (again.length > 0) {
      const only = await lid.run(m.lidModel, again.map((t) => ({ text: t.text, model: m.lidModel, mode: 'traffic' as const, topK: 1, candidates: Object.keys(LID_TO_DIACRITIZE) })));
      only.forEach((r, k) => {
        const lang = r.failure ? undefined : LID_TO_DIACRITIZE[r.output.top[0]?.language ?? ''];
        out.set(again[k]!.i, lang ?? 'zxx');
      });
    }
    return out;
  }

  return {
    async load(name) { await models.get(name); },
    unload: (name) => models.unload(name),
    async run(name, inputs) {
      const m = await models.get(name);
      const results: Array<ItemResult<DiacritizeOutput> | undefined> = new Array(inputs.length);
      const detected = await detect(m, inputs.flatMap((x, i) => (x.language === 'auto' ? [{ i, text: x.text }] : [])));
      const texts: Array<{ us: Unit[]; slots: Slot[]; language: string } | undefined> = [];
      const rows: Row[] = [];
      inputs.forEach((x, i) => {
        let language = x.language === 'ara-nocase' ? 'ara' : x.language;
        if (language === 'auto') {
          const d = detected.get(i)!;
          if (typeof d !== 'string') { results[i] = d; return; }
          language = d;
        }
        const us = units(x.text);
        const slots = slotsOf(us, x.text, m.candidates[language]);
        texts[i] = { us, slots, language };
        if (slots.length === 0) return;
        const p = prepare(us);
        for (const slot of slots) rows.push({ item: i, slot, ids: slotFeatures(p, slot.unit, language, m.features) });
      });
      const C = m.classes.length;
      const probs = await scoreSlots(m, rows);
      let row = 0;
      inputs.forEach((x, i) => {
        const t = texts[i];
        if (!t) return;
        const p = probs.subarray(row * C, (row + t.slots.length) * C);
        row += t.slots.length;
        const text = restore(t.us, t.slots, p, m.classes, { language: t.language, minConfidence: x.minConfidence, caseEndings: x.caseEndings && x.language !== 'ara-nocase' });
        results[i] = { output: { text, language: x.language === 'ara-nocase' ? 'ara-nocase' : t.language, characters: Array.from(x.text).length }, failure: null };
      });
      return results as Array<ItemResult<DiacritizeOutput>>;
    },
  };
}
