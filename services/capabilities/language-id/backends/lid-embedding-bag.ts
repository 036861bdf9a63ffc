/**
 * Language-ID engine: hashed n-gram features (../features.ts), the ONNX
 * embedding-bag model through onnxruntime-node, then ../decode.ts.
 * Model folder: config.json (features, calibration or temperature), labels.json,
 * prior.json, <version>/model.onnx with the inputs of {@link lidFeeds} and outputs
 * logits and probs float32[N,C] (graph: scripts/lid-onnx.ts): the softmax with
 * temperature, traffic prior and label mask runs inside onnxruntime; then, where the
 * folder has clusters.json.gz, the second stage of a confusable cluster (../clusters.ts),
 * and where it has vocabulary.txt.br, the word-frequency stage (../vocabulary.ts).
 */
import * as ort from 'onnxruntime-node';
import { existsSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { featureIds, type FeatureSpec } from '../features.ts';
import { answerFrom, modelInfo, planDecode, preflight, type DecodeOptions, type DecodePlan, type LidAnswer, type LidModelInfo, type TemperatureBucket } from '../decode.ts';
import { CLUSTERS_FILE, refineWithClusters, type ClusterFile } from '../clusters.ts';
import { VOCABULARY_FILE, loadVocabulary, refineWithVocabulary } from '../vocabulary.ts';
import { ModelRepository } from '../../../models/repository.ts';
import { LoadedModels } from '../../../workers/engines/sessions.ts';
import { EngineError, type Engine, type EngineContext } from '../../../workers/engines/types.ts';
import type { ItemResult } from '../../../events/contract.ts';

/** Request fields (Avro `LanguageIdRequest`). */
export interface LanguageIdInput {
  text: string;
  model: string;
  mode: 'traffic' | 'coverage';
  topK: number;
  candidates: string[] | null;
  /** copy the text into the answer (bulk ingestion) */
  echoText?: boolean;
}

interface Loaded { session: ort.InferenceSession; info: LidModelInfo; features: FeatureSpec; /** input arrays free to lend (one per run in progress at most) */ scratch: FeedScratch[]; }

/** One text of a micro-batch that goes through the model. */
export interface LidRow {
  /** index of the text in the micro-batch */
  i: number;
  /** feature ids ({@link featureIds}) */
  ids: Uint32Array;
  plan: DecodePlan;
}

/**
 * Input arrays kept between a model's runs and lent to one run at a time (issue 17): the
 * ids and the mask are about 100 KB each for 64 texts, and allocated afresh per run they
 * are external memory that, in an inference thread (which makes little JavaScript
 * garbage), set off a full garbage collection every few hundred ms ("external memory
 * pressure" in `--trace-gc`). The arrays grow to the largest micro-batch seen and never
 * shrink.
 */
export class FeedScratch {
  private ids = new Int32Array(0);
  private floats = new Float32Array(0);

  /** An int32 view of `n` elements, contents undefined. */
  idsView(n: number): Int32Array {
    if (this.ids.length < n) this.ids = new Int32Array(n);
    return this.ids.subarray(0, n);
  }

  /** Float32 views of the given lengths, one after another in one array, contents undefined. */
  floatViews(...lengths: number[]): Float32Array[] {
    const total = lengths.reduce((a, b) => a + b, 0);
    if (this.floats.length < total) this.floats = new Float32Array(total);
    let at = 0;
    return lengths.map((n) => this.floats.subarray(at, at += n));
  }
}

/**
 * The model's inputs for a micro-batch (graph: scripts/lid-onnx.ts): ids int32[N, L]
 * padded with `buckets` (the model's zero row), scale float32[N, 1] = 1 / features of
 * the row (0 for none), inv_temperature and prior_weight float32[N, 1] and mask
 * float32[N, C] from each row's plan, log_prior float32[1, C].
 * @param scratch arrays to write the inputs into (views of them back the tensors, so
 *   they must not be lent to another run until this one has run); new arrays when absent
 */
export function lidFeeds(rows: readonly LidRow[], buckets: number, logPrior: Float32Array, scratch?: FeedScratch): Record<string, ort.Tensor> {
  const N = rows.length, C = logPrior.length;
  let L = 1;
  for (const r of rows) if (r.ids.length > L) L = r.ids.length;
  const ids = (scratch ? scratch.idsView(N * L) : new Int32Array(N * L)).fill(buckets);
  const [scale, invT, priorW, mask] = scratch
    ? scratch.floatViews(N, N, N, N * C) as [Float32Array, Float32Array, Float32Array, Float32Array]
    : [new Float32Array(N), new Float32Array(N), new Float32Array(N), new Float32Array(N * C)];
  // every element of scale, invT, priorW and mask is written below (a row each)
  rows.forEach((r, n) => {
    ids.set(r.ids, n * L);
    scale[n] = r.ids.length > 0 ? 1 / r.ids.length : 0;
    invT[n] = r.plan.invTemperature;
    priorW[n] = r.plan.priorWeight;
    mask.set(r.plan.mask, n * C);
  });
  return {
    ids: new ort.Tensor('int32', ids, [N, L]), scale: new ort.Tensor('float32', scale, [N, 1]),
    inv_temperature: new ort.Tensor('float32', invT, [N, 1]), prior_weight: new ort.Tensor('float32', priorW, [N, 1]),
    log_prior: new ort.Tensor('float32', logPrior, [1, C]), mask: new ort.Tensor('float32', mask, [N, C]),
  };
}

/**
 * Plans the texts of a micro-batch: a text that needs no model (no letters, or only a
 * script no label uses: see ../decode.ts `preflight`, `planDecode`) is answered through
 * `answered`; the others become the model's rows, in input order.
 * @param inputs texts with their decode options
 * @param answered called with the input's index and its answer
 */
export function planRows(info: LidModelInfo, features: FeatureSpec, inputs: ReadonlyArray<{ text: string } & DecodeOptions>, answered: (i: number, answer: LidAnswer) => void): LidRow[] {
  const rows: LidRow[] = [];
  inputs.forEach((input, i) => {
    const pre = preflight(input.text);
    if ('answer' in pre) return answered(i, pre.answer);
    const plan = planDecode(info, input.text, pre.scripts, input);
    if ('answer' in plan) return answered(i, plan.answer);
    rows.push({ i, ids: featureIds(input.text, features), plan });
  });
  return rows;
}

/** Most ids (rows × longest row) of one session run: see {@link sessionChunks}. */
export const CHUNK_IDS = 32768;

/**
 * The rows of a micro-batch in the session runs they go through: sorted by their number of
 * ids, and cut so that a run's ids tensor (rows × its longest row, the padding included)
 * holds at most {@link CHUNK_IDS}. The graph pads every row of a run to its longest and its
 * Gather writes one embedding per id before summing them (scripts/lid-onnx.ts), so one long
 * text made every short text of its micro-batch as costly as itself: lid-neural-608 answered
 * micro-batches of 64 sentences with one 1,900-character text at 3,069 texts/s, and at
 * 12,937 in these runs (`npm run bench:lid`). On sentences of one length the runs cost the
 * same as one run, within the machine's spread. A row longer than the budget runs alone.
 */
export function sessionChunks(rows: readonly LidRow[]): LidRow[][] {
  const sorted = [...rows].sort((a, b) => a.ids.length - b.ids.length);
  const chunks: LidRow[][] = [];
  let chunk: LidRow[] = [];
  for (const r of sorted) {
    const L = Math.max(1, r.ids.length);
    if (chunk.length > 0 && (chunk.length + 1) * L > CHUNK_IDS) { chunks.push(chunk); chunk = []; }
    chunk.push(r);
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}

/**
 * Reads what decoding needs of a language-ID model folder: config.json (features,
 * `calibration` buckets or one `temperature`), labels.json, prior.json and, where the
 * folder has one, the second stages of confusable clusters (../clusters.ts,
 * clusters.json.gz) and the word-frequency stage (../vocabulary.ts, vocabulary.txt.br).
 * @returns null when the model is not installed
 * @throws when a file is unreadable or not JSON, or the clusters or the vocabulary name unknown labels
 */
export function readLidModel(repo: ModelRepository, name: string): { info: LidModelInfo; features: FeatureSpec; modelPath: string } | null {
  const cfg = repo.config(name);
  if (!cfg) return null;
  const dir = cfg.dir;
  const labels = JSON.parse(readFileSync(join(dir, 'labels.json'), 'utf8')) as string[];
  const prior = JSON.parse(readFileSync(join(dir, 'prior.json'), 'utf8')) as Record<string, number>;
  const calibration = Array.isArray(cfg.calibration)
    ? (cfg.calibration as Array<{ max_chars: number | null; temperature: number }>).map((b): TemperatureBucket => ({ maxChars: b.max_chars, temperature: b.temperature }))
    : Number(cfg.temperature ?? 1);
  const clustersPath = join(dir, CLUSTERS_FILE);
  const clusters = existsSync(clustersPath) ? JSON.parse(gunzipSync(readFileSync(clustersPath)).toString('utf8')) as ClusterFile : undefined;
  const vocabularyPath = join(dir, VOCABULARY_FILE);
  const vocabulary = existsSync(vocabularyPath) ? loadVocabulary(readFileSync(vocabularyPath), labels) : undefined;
  return { info: modelInfo(labels, prior, calibration, clusters, vocabulary), features: cfg.features as FeatureSpec, modelPath: cfg.modelPath };
}

/**
 * The output of one item: its answer and the text copied back (bulk ingestion) or null.
 *
 * Built field by field, not as `{ ...answer, text }` (issue 17): on Node 20 (V8 11.3) the
 * objects an object spread made here outlived the scavenges that should have freed them.
 * At 300 micro-batches of 64 a second the inference thread promoted 1.5 MB per scavenge
 * (every survivor promoted), its old generation filled with dead answers, and it ran 9–51
 * mark-compacts in 10 s: 0.4–2.1 s of garbage-collection CPU, mostly on V8's helper
 * threads, against 33–60 ms with this literal (`--trace-gc-nvp`; `npm run bench:gc`,
 * bench/gc-promotion.ts, shows the same without project code). Node 22 and 24 do not
 * promote them either way. Every field of LidAnswer is required, so the compiler flags
 * one added there and not here; the engine's test compares this with the spread.
 * @param text the item's text, or null when it is not to be echoed
 */
export function itemOutput(a: LidAnswer, text: string | null): LidAnswer & { text: string | null } {
  return { language: a.language, script: a.script, label: a.label, languageName: a.languageName, confidence: a.confidence, top: a.top, warnings: a.warnings, text };
}

/** Creates the engine. */
export function createEngine(ctx: EngineContext): Engine<LanguageIdInput, LidAnswer & { text: string | null }> {
  const repo = new ModelRepository(ctx.repository);
  const models = new LoadedModels(async (name): Promise<Loaded> => {
    const model = readLidModel(repo, name);
    if (!model) throw new EngineError('MODEL_NOT_INSTALLED', `model ${name} is not installed`);
    const session = await ort.InferenceSession.create(model.modelPath, {
      executionProviders: [ctx.executionProvider],
      intraOpNumThreads: ctx.intraOpThreads,
      graphOptimizationLevel: 'all',
    });
    return { session, info: model.info, features: model.features, scratch: [] };
  });

  return {
    async load(name) { await models.get(name); },
    unload: (name) => models.unload(name),
    async run(name, inputs) {
      const m = await models.get(name);
      const results: Array<ItemResult<LidAnswer & { text: string | null }> | undefined> = new Array(inputs.length);
      const done = (i: number, a: LidAnswer) => { results[i] = { output: itemOutput(a, inputs[i]!.echoText ? inputs[i]!.text : null), failure: null }; };
      const rows = planRows(m.info, m.features, inputs, done);
      const C = m.info.labels.length;
      for (const chunk of sessionChunks(rows)) {
        // runs of one thread can overlap (a message handler awaits its run): each borrows its own arrays
        const scratch = m.scratch.pop() ?? new FeedScratch();
        let out: ort.InferenceSession.OnnxValueMapType;
        // only probs: logits would be a second [N, C] output array per run
        try { out = await m.session.run(lidFeeds(chunk, m.features.buckets, m.info.logPrior, scratch), ['probs']); } finally { m.scratch.push(scratch); }
        const probs = out.probs!.data as Float32Array;
        chunk.forEach((r, n) => {
          const row = probs.subarray(n * C, (n + 1) * C);
          refineWithClusters(row, m.info.clusters, inputs[r.i]!.text);
          if (m.info.vocabulary) refineWithVocabulary(row, m.info.vocabulary, inputs[r.i]!.text, r.plan.chars);
          done(r.i, answerFrom(row, m.info, r.plan.chars, inputs[r.i]!.topK));
        });
      }
      return results as Array<ItemResult<LidAnswer & { text: string | null }>>;
    },
  };
}
