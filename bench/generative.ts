/**
 * `npm run bench:generative` (also the last part of `npm run bench`): the three generative
 * routes on the tiny random-weight models (scripts/models-tiny.ts), so only cost is
 * measured, never quality. The tiny models write every string to its limit, so the
 * extraction and question rows run with short limits (max_value_chars 24,
 * max_question_chars 24) in a copy of the model repository.
 *
 * 1. /v1/decide: tokens evaluated and ms per case with 1, 8 and 64 questions, the state
 *    evaluated once for all questions (what the service does) against once per question
 *    (the baseline), the engine called directly on one thread.
 * 2. Requests/s of each route through the whole embedded pipeline (HTTP, event log, worker,
 *    inference thread; autocannon, BENCH_GEN_CONNECTIONS in flight, default 4) against the
 *    engine called directly with as many requests in flight, so the pipeline's overhead
 *    shows as a ratio, and tokens evaluated per request: a decision case of 8 questions,
 *    an extraction document of 6 fields, a passage for 3 questions.
 *
 * Environment: BENCH_DURATION (s per throughput row, default 10).
 */
import './tmp.ts'; // temporary files in a folder of the run's own, removed at exit
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { answerCase, createEngine as createDecideEngine, planCase } from '../services/capabilities/decide/backends/llama-decide.ts';
import type { Question } from '../services/capabilities/decide/prompt.ts';
import { closeExtractModel, createEngine as createExtractEngine, extractDocument, openExtractModel } from '../services/capabilities/extract/backends/llama-extract.ts';
import { createEngine as createQuestionsEngine, openQuestionsModel, writeQuestions } from '../services/capabilities/questions/backends/llama-questions.ts';
import type { Engine } from '../services/workers/engines/types.ts';
import { closeLlm, openLlm } from '../services/llm/model.ts';
import { ModelRepository, type InstalledModel } from '../services/models/repository.ts';
import { repositoryWith, writeTinyModels } from '../scripts/models-tiny.ts';
import { NODE_FLAGS } from '../services/node-flags.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_GEN_CONNECTIONS ?? 4);
const KEY = 'bench-key';

const weights = mkdtempSync(join(tmpdir(), 'bench-weights-'));
writeTinyModels(weights);
process.env.MODEL_WEIGHTS_DIR = weights;
// a copy of the repository whose generative models write short strings (the tiny models write each to its limit)
const MODELS = repositoryWith(join(ROOT, 'models'), { 'mist-extract-1.0': { max_value_chars: 24, max_list_items: 3 }, 'mist-qg-1.5b': { max_question_chars: 24 } });
const repo = new ModelRepository(MODELS);
const config = (name: string) => repo.config(name)! as InstalledModel & Record<string, never>;

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
const TEMPLATE = { reference: 'verbatim-string', amount: 'number', counterparty: 'verbatim-string', date: 'date', balance: 'number', direction: ['received', 'sent'] };
const PASSAGE = 'Mlima Kilimanjaro ndio mlima mrefu zaidi barani Afrika. Uko kaskazini mwa Tanzania, karibu na mpaka wa Kenya, na una urefu wa mita 5,895 juu ya usawa wa bahari. Watalii wengi huupanda kila mwaka.';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

// 1. prefix reuse of decisions
const reuse: Array<Record<string, string | number>> = [];
{
  const llm = await openLlm(config('purplemist-flash-1.0'), 1, 1);
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
}

// 2. each route: tokens evaluated per request, the engine called directly, then the pipeline
interface Route { route: string; model: string; path: string; body: object; input: object; engine: () => Engine; tokens: () => Promise<number> }
const routes: Route[] = [
  {
    route: 'decide (8 questions)', model: 'purplemist-flash-1.0', path: '/v1/decide', body: { state: STATE, questions: questions(8) },
    input: { model: 'purplemist-flash-1.0', state: JSON.stringify(STATE), questions: JSON.stringify(questions(8)) },
    engine: () => createDecideEngine({ repository: MODELS, executionProvider: 'cpu', intraOpThreads: 1 }),
    tokens: async () => {
      const llm = await openLlm(config('purplemist-flash-1.0'), 1, 1);
      try { return (await answerCase({ llm, calibration: {} }, planCase(llm, STATE, questions(8)))).evaluated; } finally { await closeLlm(llm); }
    },
  },
  {
    route: 'extract (6 fields)', model: 'mist-extract-1.0', path: '/v1/extract', body: { template: TEMPLATE, text: STATE.text },
    input: { model: 'mist-extract-1.0', template: JSON.stringify(TEMPLATE), text: STATE.text, image: null, instructions: null },
    engine: () => createExtractEngine({ repository: MODELS, executionProvider: 'cpu', intraOpThreads: 1 }),
    tokens: async () => {
      const m = await openExtractModel(config('mist-extract-1.0'), 1, 1);
      try { return (await extractDocument(m, { model: 'mist-extract-1.0', template: JSON.stringify(TEMPLATE), text: STATE.text, image: null, instructions: null })).evaluated; } finally { await closeExtractModel(m); }
    },
  },
  {
    route: 'questions (n = 3)', model: 'mist-qg-1.5b', path: '/v1/questions/generate', body: { passage: PASSAGE, n: 3, language: 'swa' },
    input: { model: 'mist-qg-1.5b', passage: PASSAGE, n: 3, language: 'swa' },
    engine: () => createQuestionsEngine({ repository: MODELS, executionProvider: 'cpu', intraOpThreads: 1 }),
    tokens: async () => {
      const m = await openQuestionsModel(config('mist-qg-1.5b'), 1, 1);
      try { return (await writeQuestions(m, { model: 'mist-qg-1.5b', passage: PASSAGE, n: 3, language: 'swa' })).evaluated; } finally { await closeLlm(m.llm); }
    },
  },
];

const direct = new Map<string, { rps: number; tokens: number }>();
for (const r of routes) {
  const tokens = await r.tokens();
  const engine = r.engine();
  await engine.run(r.model, [r.input]);
  let done = 0;
  const end = Date.now() + DURATION * 1000;
  await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
    while (Date.now() < end) { await engine.run(r.model, [r.input]); done++; }
  }));
  await engine.unload(r.model);
  direct.set(r.route, { rps: done / DURATION, tokens });
}

const port = 18191;
const child = spawn(process.execPath, [...NODE_FLAGS, '--import', 'tsx', join(ROOT, 'services/main.ts')], {
  env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', API_KEYS: KEY, RATE_LIMIT_MAX: '1000000000', DATA_DIR: mkdtempSync(join(tmpdir(), 'bench-')), MODEL_REPOSITORY: MODELS },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const rows: Array<Record<string, string | number>> = [];
let errors = 0;
try {
  const url = `http://127.0.0.1:${port}`;
  for (const r of routes) {
    const post = () => fetch(`${url}${r.path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` }, body: JSON.stringify(r.body) }).then((x) => x.status, () => 0);
    const until = Date.now() + 60_000;
    while ((await post()) !== 200) {
      if (Date.now() > until) throw new Error(`the service did not answer ${r.path} within 60 s`);
      await new Promise((res) => setTimeout(res, 300));
    }
    const p = await autocannon({
      url, connections: CONNECTIONS, duration: DURATION,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
      requests: [{ method: 'POST', path: r.path, body: JSON.stringify(r.body) }],
    });
    errors += p.errors + p.non2xx;
    const d = direct.get(r.route)!;
    rows.push({
      route: r.route, 'tokens evaluated': d.tokens, 'pipeline req/s': +p.requests.average.toFixed(1), 'direct req/s': +d.rps.toFixed(1),
      'pipeline/direct': +(p.requests.average / d.rps).toFixed(2), 'p50 ms': p.latency.p50, 'p99 ms': p.latency.p99, errors: p.errors + p.non2xx,
    });
  }
} finally {
  child.kill('SIGTERM');
}

console.log(`\ngenerative routes on the tiny random-weight models (cost only), Node ${process.version}`);
console.log('1. /v1/decide: one pass over the state for all questions, against the state evaluated per question (engine directly, one thread, median of 3):');
console.table(reuse);
console.log(`2. each route through the embedded pipeline against its engine called directly, ${CONNECTIONS} requests in flight, ${DURATION} s each:`);
console.table(rows);
if (errors > 0) {
  console.error('non-2xx answers or errors: these figures are not valid');
  process.exitCode = 1;
}
