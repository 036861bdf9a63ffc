/**
 * The ONNX graph's decoding (temperature, traffic prior, label mask, softmax: see
 * scripts/lid-onnx.ts), followed by the second stage of confusable clusters and the
 * word-frequency stage as the engine runs them, must give the answers of the JavaScript reference
 * (services/capabilities/language-id/decode.ts `decode`) on the same logits, for both shipped models.
 */
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { answerFrom, decode, planDecode, preflight, type DecodeOptions, type DecodePlan } from '../../../services/capabilities/language-id/decode.ts';
import { featureIds } from '../../../services/capabilities/language-id/features.ts';
import { refineWithClusters } from '../../../services/capabilities/language-id/clusters.ts';
import { refineWithVocabulary } from '../../../services/capabilities/language-id/vocabulary.ts';
import { CHUNK_IDS, FeedScratch, createEngine, itemOutput, lidFeeds, readLidModel, sessionChunks, type LidRow } from '../../../services/capabilities/language-id/backends/lid-embedding-bag.ts';
import { ModelRepository } from '../../../services/models/repository.ts';

const MODELS = join(import.meta.dirname, '..', '..', '..', 'models');
const TEXTS = [
  'Hello world', 'merci', 'Wir fahren morgen früh mit dem Zug nach Hamburg.', 'Привет, как дела?', 'for (i = 0; i < n; i++) {}',
  'Mo fẹ́ lọ sí ọjà', 'こんにちは', 'Dobar dan, kako ste?', 'Habari za asubuhi, rafiki yangu', 'x',
];
const OPTIONS: DecodeOptions[] = [
  { mode: 'traffic', topK: 5 }, { mode: 'coverage', topK: 3 }, { mode: 'traffic', topK: 2, candidates: ['eng', 'fra', 'swa', 'hau'] },
];

describe.each(['lid-neural-608', 'lid-lite-608'])('%s', (model) => {
  it('answers in the graph as the JavaScript decoder does on the graph\'s logits', async () => {
    const { info, features, modelPath } = readLidModel(new ModelRepository(MODELS), model)!;
    const session = await ort.InferenceSession.create(modelPath);
    try {
      for (const opts of OPTIONS) {
        const rows = TEXTS.flatMap((text, i) => {
          const scripts = (preflight(text) as { scripts: Set<string> }).scripts;
          const plan = planDecode(info, text, scripts, opts);
          if ('answer' in plan) { // no allowed label in the text's scripts: decided before the model
            expect(plan.answer.label).toBe('zxx_Zxxx');
            expect(opts.candidates).toBeDefined();
            return [];
          }
          return [{ i, text, scripts, ids: featureIds(text, features), plan: plan as DecodePlan }];
        });
        expect(rows.length).toBeGreaterThanOrEqual(TEXTS.length - 2);
        const out = await session.run(lidFeeds(rows, features.buckets, info.logPrior));
        const C = info.labels.length;
        const logits = out.logits!.data as Float32Array, probs = out.probs!.data as Float32Array;
        rows.forEach((r, n) => {
          // the engine's path: the graph's probabilities, then the second stage of a cluster and the word frequencies
          const row = Float32Array.from(probs.subarray(n * C, (n + 1) * C));
          refineWithClusters(row, info.clusters, r.text);
          if (info.vocabulary) refineWithVocabulary(row, info.vocabulary, r.text, r.plan.chars);
          const fromGraph = answerFrom(row, info, r.plan.chars, opts.topK);
          const reference = decode(logits.subarray(n * C, (n + 1) * C), info, r.text, r.scripts, opts);
          expect(fromGraph.top.map((t) => t.label), `${r.text} ${JSON.stringify(opts)}`).toEqual(reference.top.map((t) => t.label));
          fromGraph.top.forEach((t, k) => expect(t.score).toBeCloseTo(reference.top[k]!.score, 3));
          if (opts.candidates) expect(['eng', 'fra', 'swh', 'swc', 'hau'], 'candidates, macrolanguage swa = swh, swc').toContain(fromGraph.language);
        });
      }
    } finally {
      await session.release();
    }
  });

  it('gives the same inputs and answers from reused scratch arrays as from new ones, whatever the micro-batch sizes, and with runs overlapping (issue 17)', async () => {
    const { info, features } = readLidModel(new ModelRepository(MODELS), model)!;
    const rowsOf = (texts: string[]) => texts.flatMap((text, i) => {
      const plan = planDecode(info, text, (preflight(text) as { scripts: Set<string> }).scripts, OPTIONS[i % 2]!);
      return 'answer' in plan ? [] : [{ i, ids: featureIds(text, features), plan: plan as DecodePlan }];
    });
    const scratch = new FeedScratch();
    // large, then small (stale values past the small views must not leak in), then longer texts
    for (const texts of [[...TEXTS, ...TEXTS, ...TEXTS], TEXTS.slice(0, 3), TEXTS.map((t) => `${t} ${t} ${t}`)]) {
      const rows = rowsOf(texts);
      const fresh = lidFeeds(rows, features.buckets, info.logPrior);
      const reused = lidFeeds(rows, features.buckets, info.logPrior, scratch);
      for (const name of Object.keys(fresh)) {
        expect(reused[name]!.dims, name).toEqual(fresh[name]!.dims);
        expect(Array.from(reused[name]!.data as Float32Array), name).toEqual(Array.from(fresh[name]!.data as Float32Array));
      }
    }
    // the engine lends each of two overlapping runs arrays of its own
    const engine = createEngine({ repository: MODELS, executionProvider: 'cpu', intraOpThreads: 1 });
    const inputs = (texts: string[]) => texts.map((text) => ({ text, model, mode: 'traffic' as const, topK: 3, candidates: null }));
    const a = inputs([...TEXTS, ...TEXTS]), b = inputs(TEXTS.slice(2, 6).map((t) => `${t}, ${t}`));
    const alone = [await engine.run(model, a), await engine.run(model, b)];
    const overlapping = await Promise.all([engine.run(model, a), engine.run(model, b)]);
    expect(overlapping).toEqual(alone);
    await engine.unload(model);
  });

  // the rows go through the session sorted by length and in several runs (sessionChunks):
  // each answer must still be its own text's, as the text alone gets it
  it('answers each text of a micro-batch as it answers the text alone, whatever the lengths beside it (sessionChunks)', async () => {
    const engine = createEngine({ repository: MODELS, executionProvider: 'cpu', intraOpThreads: 1 });
    const long = Array.from({ length: 40 }, (_, i) => TEXTS[i % TEXTS.length]).join(' ').slice(0, 1900);
    const texts = [long, ...TEXTS, long.slice(0, 700), ...TEXTS.map((t) => `${t} ${t}`)];
    const inputs = texts.map((text) => ({ text, model, mode: 'coverage' as const, topK: 3, candidates: null }));
    const together = await engine.run(model, inputs);
    for (const [i, input] of inputs.entries()) {
      const [alone] = await engine.run(model, [input]);
      expect(together[i]!.output!.top.map((t) => t.label), input.text.slice(0, 40)).toEqual(alone!.output!.top.map((t) => t.label));
      together[i]!.output!.top.forEach((t, k) => expect(t.score).toBeCloseTo(alone!.output!.top[k]!.score, 3));
    }
    await engine.unload(model);
  });

  it('answers each item with all of its answer\'s fields and the text only when it is to be echoed (itemOutput, issue 17)', async () => {
    const engine = createEngine({ repository: MODELS, executionProvider: 'cpu', intraOpThreads: 1 });
    // texts the model reads and texts answered before it (no letters, 'x'), echoed and not
    const inputs = TEXTS.map((text, i) => ({ text, model, mode: 'traffic' as const, topK: 3, candidates: null, echoText: i % 2 === 0 }));
    const results = await engine.run(model, inputs);
    results.forEach((r, i) => {
      expect(r.failure).toBeNull();
      const { text, ...answer } = r.output!;
      expect(text).toBe(i % 2 === 0 ? TEXTS[i] : null);
      // the literal keeps every field an object spread would copy, in the same order
      expect(Object.keys(itemOutput(answer, text))).toEqual(Object.keys({ ...answer, text }));
      expect(itemOutput(answer, text)).toStrictEqual({ ...answer, text });
      expect(Object.keys(answer).sort()).toEqual(['confidence', 'label', 'language', 'languageName', 'script', 'top', 'warnings']);
    });
    await engine.unload(model);
  });
});

describe('sessionChunks', () => {
  it('puts every row in one run, shortest first, each run within CHUNK_IDS ids unless a row alone is longer', () => {
    const plan = { chars: 1, invTemperature: 1, priorWeight: 0, mask: new Float32Array(1) };
    const lengths = [5, 9000, 0, 300, 300, CHUNK_IDS + 7, 2, 40000, 17, 600, ...Array.from({ length: 200 }, (_, i) => (i * 37) % 900)];
    const rows: LidRow[] = lengths.map((n, i) => ({ i, ids: new Uint32Array(n), plan }));
    const chunks = sessionChunks(rows);
    expect(chunks.flat().map((r) => r.i).sort((a, b) => a - b)).toEqual(rows.map((r) => r.i));
    const flat = chunks.flat().map((r) => r.ids.length);
    expect(flat).toEqual([...lengths].sort((a, b) => a - b));
    for (const c of chunks) {
      const longest = Math.max(1, ...c.map((r) => r.ids.length));
      if (c.length > 1) expect(c.length * longest).toBeLessThanOrEqual(CHUNK_IDS);
    }
    expect(chunks.filter((c) => c.length === 1 && c[0]!.ids.length > CHUNK_IDS)).toHaveLength(2);
    expect(sessionChunks([])).toEqual([]);
  });
});
