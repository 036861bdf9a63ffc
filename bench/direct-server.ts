/**
 * Benchmark baseline: the language-ID routes with the pipeline bypassed. The same
 * request schema and answer fields, but the handler calls the engine directly on the
 * HTTP thread: no event log, no micro-batching, no inference thread, no Avro.
 * Started by bench/run.ts; listens on PORT.
 */
import Fastify from 'fastify';
import { fileURLToPath } from 'node:url';
import { createEngine } from '../services/capabilities/language-id/backends/lid-embedding-bag.ts';
import { LID_BODY, answerBody, singleAnswer } from '../services/capabilities/language-id/routes.ts';

const engine = createEngine({ repository: fileURLToPath(new URL('../models', import.meta.url)), executionProvider: 'cpu', intraOpThreads: 1 });
const app = Fastify({ ajv: { customOptions: { allowUnionTypes: true, coerceTypes: false } } });
type Body = { text?: string; texts?: string[]; model: string; mode: 'traffic' | 'coverage'; top_k: number };
const run = async (b: Body, texts: string[]) =>
  engine.run(b.model, texts.map((text) => ({ text, model: b.model, mode: b.mode, topK: b.top_k, candidates: null })));

app.post('/v1/language-id', { schema: { body: LID_BODY } }, async (req) => {
  const b = req.body as Body;
  const [r] = await run(b, [b.text!]);
  return singleAnswer(r!.output!, b.model, b.mode);
});
app.post('/v1/language-id/batch', async (req) => {
  const b = { model: 'lid-neural-608', mode: 'traffic', top_k: 3, ...(req.body as Partial<Body>) } as Body;
  const rs = await run(b, b.texts!);
  return { results: rs.map((r) => answerBody(r.output!)), model: b.model, mode: b.mode, usage: { texts: b.texts!.length } };
});
await engine.load(process.env.BENCH_MODEL ?? 'lid-neural-608');
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
