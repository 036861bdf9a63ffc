/**
 * `npm run bench:decide` (also the last part of `npm run bench`): /v1/decide on the tiny
 * purplemist-flash-1.0 weights (scripts/models-tiny.ts; random weights, so only cost is
 * measured, never quality).
 *
 * 1. Tokens evaluated and ms per case with 1, 8 and 64 questions: the state evaluated once
 *    for all questions (what the service does) against once per question (the baseline),
 *    the engine called directly on one thread.
 * 2. Cases/s of 8 questions through the whole embedded pipeline (HTTP, event log, worker,
 *    inference thread; autocannon, BENCH_DECIDE_CONNECTIONS in flight, default 4) against
 *    the engine called directly with as many cases in flight, so the pipeline's overhead
 *    shows as a ratio.
 *
 * Environment: BENCH_DURATION (s per throughput row, default 10).
 */
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { answerCase, createEngine, planCase } from '../services/capabilities/decide/backends/llama-decide.ts';
import type { Question } from '../services/capabilities/decide/prompt.ts';
import { closeLlm, openLlm } from '../services/llm/model.ts';
import { ModelRepository } from '../services/models/repository.ts';
import { writeTinyModels } from '../scripts/models-tiny.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MODELS = join(ROOT, 'models');
const MODEL = 'purplemist-flash-1.0';
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_DECIDE_CONNECTIONS ?? 4);
const KEY = 'bench-key';

const weights = mkdtempSync(join(tmpdir(), 'bench-weights-'));
writeTinyModels(weights);
process.env.MODEL_WEIGHTS_DIR = weights;

/** A mobile-money message of about 600 characters, the size of a typical record. */
const STATE = {
  channel: 'sms', received: '2026-11-02T09:14:00Z',
  text: 'QK72HS9 Confirmed. Ksh2,500.00 sent to JANE WANJIKU 0712345678 on 2/11/26 at 9:13 AM. New M-PESA balance is Ksh7,300.00. Transaction cost, Ksh13.00. Amount you can transact within the day is 497,500.00. Pay with M-PESA GlobalPay virtual Visa card linked to M-PESA wallet. Download M-PESA app to get started.',
  customer_note: 'Nimetuma pesa kwa namba isiyo sahihi, naomba msaada wa kuirudisha haraka iwezekanavyo.',
};
const questions = (n: number): Record<string, Question> => Object.fromEntries(Array.from({ length: n }, (_, i) => [`q${i}`,
  i % 3 === 0 ? { type: 'choice', instructions: `What does the customer ask for (${i})?`, criteria: { reversal: 'the money sent back', balance: 'their balance', statement: null, other: 'anything else' } }
    : i % 3 === 1 ? { type: 'noul', instructions: `The money went to the wrong number (${i})` }
      : { type: 'score', instructions: `How urgent is a reply (${i})?`, criteria: ['can wait', 'today', 'within the hour', 'now'] }]));

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

// 1. prefix reuse
const llm = await openLlm(new ModelRepository(MODELS).config(MODEL)!, 1, 1);
const reuse: Array<Record<string, string | number>> = [];
try {
  const m = { llm, calibration: {} };
  await answerCase(m, planCase(llm, STATE, questions(2)));
  for (const n of [1, 8, 64]) {
    const c = planCase(llm, STATE, questions(n));
    const time = async (shared: boolean) => {
      const ms: number[] = [];
      let evaluated = 0;
      for (let k = 0; k < 3; k++) {
        const t0 = performance.now();
        evaluated = (await answerCase(m, c, shared)).evaluated;
        ms.push(performance.now() - t0);
      }
      return { evaluated, ms: median(ms) };
    };
    const once = await time(true);
    const per = await time(false);
    reuse.push({
      questions: n, 'state tokens': c.shared.length,
      'tokens, state once': once.evaluated, 'tokens, state per question': per.evaluated, 'token ratio': +(per.evaluated / once.evaluated).toFixed(2),
      'ms, state once': Math.round(once.ms), 'ms, state per question': Math.round(per.ms),
    });
  }
} finally {
  await closeLlm(llm);
}

// 2. pipeline against the engine called directly
const body = { state: STATE, questions: questions(8) };
const engine = createEngine({ repository: MODELS, executionProvider: 'cpu', intraOpThreads: 1 });
const input = { model: MODEL, state: JSON.stringify(STATE), questions: JSON.stringify(body.questions) };
await engine.run(MODEL, [input]);
let done = 0;
const end = Date.now() + DURATION * 1000;
await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
  while (Date.now() < end) { await engine.run(MODEL, [input]); done++; }
}));
const direct = done / DURATION;
await engine.unload(MODEL);

const port = 18191;
const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'services/main.ts')], {
  env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', API_KEYS: KEY, RATE_LIMIT_MAX: '1000000000', DATA_DIR: mkdtempSync(join(tmpdir(), 'bench-')) },
  stdio: ['ignore', 'ignore', 'inherit'],
});
let pipeline: autocannon.Result;
try {
  const url = `http://127.0.0.1:${port}`;
  const post = () => fetch(`${url}/v1/decide`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` }, body: JSON.stringify(body) }).then((r) => r.status, () => 0);
  const until = Date.now() + 60_000;
  while ((await post()) !== 200) {
    if (Date.now() > until) throw new Error('the service did not answer /v1/decide within 60 s');
    await new Promise((r) => setTimeout(r, 300));
  }
  pipeline = await autocannon({
    url, connections: CONNECTIONS, duration: DURATION,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
    requests: [{ method: 'POST', path: '/v1/decide', body: JSON.stringify(body) }],
  });
} finally {
  child.kill('SIGTERM');
}

console.log(`\n/v1/decide on the tiny ${MODEL} weights (random; cost only), Node ${process.version}`);
console.log('1. one pass over the state for all questions, against the state evaluated per question (engine directly, one thread, median of 3):');
console.table(reuse);
console.log(`2. cases of 8 questions, ${CONNECTIONS} in flight, ${DURATION} s:`);
console.table([
  { row: 'embedded pipeline', 'cases/s': +pipeline.requests.average.toFixed(1), 'p50 ms': pipeline.latency.p50, 'p99 ms': pipeline.latency.p99, errors: pipeline.errors + pipeline.non2xx },
  { row: 'engine directly', 'cases/s': +direct.toFixed(1) },
]);
console.log(`pipeline/direct: ${(pipeline.requests.average / direct).toFixed(2)}`);
if (pipeline.errors + pipeline.non2xx > 0) process.exitCode = 1;
