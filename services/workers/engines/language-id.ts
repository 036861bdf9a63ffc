/**
 * Language-ID engine: hashed n-gram features (services/lid/features.ts), the ONNX
 * embedding-bag model through onnxruntime-node, then services/lid/decode.ts.
 * Model folder: config.json (features, temperature), labels.json, prior.json,
 * <version>/model.onnx with inputs ids int64[N,L], weights float32[N,L] and output
 * logits float32[N,C].
 */
import * as ort from 'onnxruntime-node';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { featureIds, type FeatureSpec } from '../../lid/features.ts';
import { decode, modelInfo, preflight, type LidAnswer, type LidModelInfo } from '../../lid/decode.ts';
import { ModelRepository } from '../../models/repository.ts';
import { EngineError, type Engine, type EngineContext, type ItemResult } from './types.ts';

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

interface Loaded { session: ort.InferenceSession; info: LidModelInfo; features: FeatureSpec; }

/** Creates the engine. */
export function createEngine(ctx: EngineContext): Engine<LanguageIdInput, LidAnswer & { text: string | null }> {
  const repo = new ModelRepository(ctx.repository);
  const models = new Map<string, Promise<Loaded>>();

  async function open(name: string): Promise<Loaded> {
    const cfg = repo.config(name);
    if (!cfg) throw new EngineError(503, `model ${name} is not installed`);
    const dir = repo.dir(name);
    const labels = JSON.parse(readFileSync(join(dir, 'labels.json'), 'utf8')) as string[];
    const prior = JSON.parse(readFileSync(join(dir, 'prior.json'), 'utf8')) as Record<string, number>;
    const session = await ort.InferenceSession.create(repo.modelPath(name, cfg), {
      executionProviders: [ctx.executionProvider],
      intraOpNumThreads: ctx.intraOpThreads,
      graphOptimizationLevel: 'all',
    });
    return { session, info: modelInfo(labels, prior, Number(cfg.temperature ?? 1)), features: cfg.features as FeatureSpec };
  }

  function get(name: string): Promise<Loaded> {
    let p = models.get(name);
    if (!p) {
      p = open(name);
      models.set(name, p);
      p.catch(() => models.delete(name));
    }
    return p;
  }

  return {
    async load(name) { await get(name); },
    async unload(name) {
      const p = models.get(name);
      models.delete(name);
      if (p) await (await p).session.release();
    },
    async run(name, inputs) {
      const m = await get(name);
      const results: Array<ItemResult<LidAnswer & { text: string | null }> | undefined> = new Array(inputs.length);
      const rows: Array<{ i: number; ids: Uint32Array; scripts: Set<string> }> = [];
      inputs.forEach((input, i) => {
        const pre = preflight(input.text);
        if ('answer' in pre) { results[i] = { output: { ...pre.answer, text: input.echoText ? input.text : null }, failure: null }; return; }
        rows.push({ i, ids: featureIds(input.text, m.features), scripts: pre.scripts });
      });
      if (rows.length > 0) {
        const L = Math.max(1, ...rows.map((r) => r.ids.length));
        const ids = new BigInt64Array(rows.length * L);
        const weights = new Float32Array(rows.length * L);
        rows.forEach((r, n) => {
          const w = r.ids.length > 0 ? 1 / r.ids.length : 0;
          for (let k = 0; k < r.ids.length; k++) { ids[n * L + k] = BigInt(r.ids[k]!); weights[n * L + k] = w; }
        });
        const out = await m.session.run({
          ids: new ort.Tensor('int64', ids, [rows.length, L]),
          weights: new ort.Tensor('float32', weights, [rows.length, L]),
        });
        const logits = out.logits!.data as Float32Array;
        const C = m.info.labels.length;
        rows.forEach((r, n) => {
          const input = inputs[r.i]!;
          results[r.i] = {
            output: { ...decode(logits.subarray(n * C, (n + 1) * C), m.info, input.text, r.scripts, input), text: input.echoText ? input.text : null },
            failure: null,
          };
        });
      }
      return results as Array<ItemResult<LidAnswer & { text: string | null }>>;
    },
  };
}
