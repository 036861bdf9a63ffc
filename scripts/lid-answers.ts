/**
 * The answers of an installed language-ID model to many texts, as the batch route gets
 * them (features, ONNX session, decoding, second stage), for the scripts and benches that
 * score models: `npm run report:lid`, `npm run bench:lid`, `npm run bench:lid-dictionaries`.
 */
import type { createEngine } from '../services/capabilities/language-id/backends/lid-embedding-bag.ts';

/** An answer: the top label (`error` when the engine failed the text) and its calibrated confidence in [0, 1]. */
export interface ModelAnswer { label: string; confidence: number }

/**
 * Runs `model` over `texts` in micro-batches of 256 (the models' max_batch_size), top 1,
 * no candidate list; answers in the order of `texts`.
 * @throws what the engine throws (model not installed, session failure)
 */
export async function modelAnswers(engine: ReturnType<typeof createEngine>, model: string, texts: readonly string[], mode: 'traffic' | 'coverage'): Promise<ModelAnswer[]> {
  const out: ModelAnswer[] = [];
  for (let i = 0; i < texts.length; i += 256) {
    const res = await engine.run(model, texts.slice(i, i + 256).map((text) => ({ text, model, mode, topK: 1, candidates: null })));
    for (const r of res) out.push(r.output ? { label: r.output.label, confidence: r.output.confidence } : { label: 'error', confidence: 0 });
  }
  return out;
}
