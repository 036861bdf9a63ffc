/**
 * POST /v1/decide, /v1/systemone and /v1/decide/batch through the embedded pipeline on
 * the tiny purplemist-flash-1.0 weights (MODEL_WEIGHTS_DIR, models/purplemist-flash-1.0):
 * the model is listed available, answers have the spec's fields with probabilities over
 * the caller's keys, a case past the model's context fails alone with 413, only
 * answered questions are billed, a short case overtakes a long one (continuous batching),
 * and cases still running when the client goes away are stopped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Embedded } from '../../../services/embedded.ts';
import { metricsRegistry } from '../../../services/lib/metrics.ts';
import { AUTH, UNTIL_MIN_MS, post, startService, until } from '../../helpers/service.ts';
import { useTinyWeights } from '../../helpers/llm.ts';

useTinyWeights();
const MODEL = 'purplemist-flash-1.0';
let svc: Embedded;
beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_MAX: 1_000_000 }, { capabilities: ['decide'] });
  await until(async () => {
    const res = await svc.gateway.app.inject({ method: 'GET', url: '/v1/models' });
    return (res.json() as { models: Array<{ name: string; status: string }> }).models.find((m) => m.name === MODEL)?.status === 'available';
  }, 20_000, `${MODEL} available`);
});
afterAll(async () => { await svc?.close(); });

/** Over the tiny models' 4,096-token context: a character outside their vocabulary is 3 byte tokens. */
const TOO_LONG = '漢 '.repeat(1500);

const QUESTIONS = {
  intent: { type: 'choice', instructions: 'What does the customer want?', criteria: { refund: 'their money back', status: 'to know where the transfer is', other: null } },
  angry: { type: 'noul', instructions: 'The customer is angry' },
  urgency: { type: 'score', instructions: 'How urgent is a reply?', criteria: ['can wait', 'today', 'within the hour'] },
};
const STATE = 'Nimetuma pesa jana lakini hazijafika. Naomba mnirudishie haraka!';

/**
 * Cases of a 3,000-token state and 64 questions of 30 options (two-letter labels): about
 * 2.2 s of work each on the tiny model on an idle 2-core machine, 4 running at once
 * (max_batch_size) in about 9 s.
 */
function heavyCases(n = 8) {
  const options = Object.fromEntries(Array.from({ length: 30 }, (_, k) => [`o${k}`, null]));
  return Array.from({ length: n }, (_, i) => ({ id: i, state: '漢'.repeat(1000), questions: Object.fromEntries(Array.from({ length: 64 }, (_, k) => [`q${k}`, { type: 'choice', instructions: `Which option (${k})?`, criteria: options }])) }));
}

const sumsToOne = (p: Record<string, number>) => expect(Object.values(p).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);

describe('POST /v1/decide on a llama.cpp model', () => {
  it('answers every question with the spec\'s fields and bills one decision each', async () => {
    const r = await post(svc, '/v1/decide', { state: STATE, questions: QUESTIONS });
    expect(r.status).toBe(200);
    expect(r.body.model).toBe(MODEL);
    expect(r.body.usage).toEqual({ decisions: 3 });
    const { intent, angry, urgency } = r.body.answers;
    expect(Object.keys(intent).sort()).toEqual(['choice', 'confidence', 'probabilities', 'type']);
    expect(Object.keys(intent.probabilities)).toEqual(['refund', 'status', 'other']);
    expect(Object.keys(intent.probabilities)).toContain(intent.choice);
    sumsToOne(intent.probabilities);
    expect(Object.keys(angry)).toEqual(['type', 'noul']);
    expect(angry.noul).toBeGreaterThanOrEqual(0);
    expect(angry.noul).toBeLessThanOrEqual(1);
    expect(Object.keys(urgency).sort()).toEqual(['confidence', 'legend', 'probabilities', 'score', 'type']);
    sumsToOne(urgency.probabilities);
    expect(urgency.score).toBeGreaterThanOrEqual(0);
    expect(urgency.score).toBeLessThanOrEqual(2);
    // never sampled: the same request gets the same answers
    expect((await post(svc, '/v1/systemone', { state: STATE, questions: QUESTIONS })).body.answers).toEqual(r.body.answers);
  });

  it('takes an object state', async () => {
    const r = await post(svc, '/v1/decide', { state: { from: 'M-PESA', amount: 2500, text: 'Confirmed. Ksh2,500.00 sent to JANE' }, questions: { sent: { type: 'noul', instructions: 'Money was sent' } } });
    expect(r.status).toBe(200);
    expect(r.body.usage).toEqual({ decisions: 1 });
  });

  it('fails a case past the model\'s context alone with 413 and bills only answered questions', async () => {
    const r = await post(svc, '/v1/decide/batch', {
      cases: [
        { id: 'long', state: TOO_LONG, questions: QUESTIONS },
        { id: 7, state: STATE, questions: { angry: QUESTIONS.angry } },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body.results[0]).toEqual({ id: 'long', status: 413, code: 'CONTEXT_TOO_LONG', error: expect.stringMatching(/maximum context length of 4096 tokens/) });
    expect(r.body.results[1].id).toBe(7);
    expect(Object.keys(r.body.results[1].answers)).toEqual(['angry']);
    expect(r.body.usage).toEqual({ decisions: 1 });
    const single = await post(svc, '/v1/decide', { state: TOO_LONG, questions: QUESTIONS });
    expect(single.status).toBe(413);
    expect(single.body).toMatchObject({ code: 'CONTEXT_TOO_LONG', status: 413 });
    await until(async () => {
      const res = await svc.gateway.app.inject({ method: 'GET', url: '/v1/usage', headers: AUTH });
      const rows = (res.json() as { usage: Array<{ capability: string; unit: string; quantity: number }> }).usage;
      // 3 + 3 (systemone) + 1 (object state) + 1 (the batch's answered case); the 413s are not billed
      return rows.some((row) => row.capability === 'decide' && row.unit === 'decisions' && row.quantity === 8);
    }, 10_000, 'the 8 answered decisions in the ledger');
  });

  const manyQuestions = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`q${i}`, { ...QUESTIONS.intent, instructions: `${QUESTIONS.intent.instructions} (${i})` }]));

  it('answers a short case that arrives while a long one runs before the long one (continuous batching)', async () => {
    const order: string[] = [];
    const long = post(svc, '/v1/decide', { state: STATE.repeat(10), questions: manyQuestions(64) }).then((r) => { order.push('long'); return r; });
    await new Promise((r) => setTimeout(r, 50));
    const short = post(svc, '/v1/decide', { state: STATE, questions: { angry: QUESTIONS.angry } }).then((r) => { order.push('short'); return r; });
    const [l, s] = await Promise.all([long, short]);
    expect([l.status, s.status]).toEqual([200, 200]);
    expect(order).toEqual(['short', 'long']);
  });

  it('stops the cases that are running when the client goes away', async () => {
    const stopped = async () => {
      const m = (await metricsRegistry.getMetricsAsJSON()).find((x) => x.name === 'lmstream_stopped_items_total');
      return (m?.values ?? []).filter((v) => v.labels.reason === 'cancelled').reduce((n, v) => n + v.value, 0);
    };
    const before = await stopped();
    await svc.gateway.app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(svc.gateway.app.server.address() as { port: number }).port}`;
    const abort = new AbortController();
    // seconds of work; 4 cases run at once (max_batch_size), 4 wait
    const cases = heavyCases();
    const gone = fetch(`${base}/v1/decide/batch`, { method: 'POST', signal: abort.signal, headers: { ...AUTH, 'content-type': 'application/json' }, body: JSON.stringify({ cases }) }).catch(() => null);
    // leave once cases run and others still wait in the worker's queue (not after a fixed
    // time: on a busy machine the cases had not reached the worker yet)
    const [worker] = svc.workers; // the service's one worker: decide
    await until(() => worker!.queued > 0 && worker!.queued < cases.length, UNTIL_MIN_MS, 'cases running while others wait');
    abort.abort();
    await gone;
    await until(async () => (await stopped()) - before >= 1, 10_000, 'running cases stopped');
    // the sequences are free again: a new case is answered
    expect((await post(svc, '/v1/decide', { state: STATE, questions: { angry: QUESTIONS.angry } })).status).toBe(200);
  });
});

describe('a decision past its deadline', () => {
  it('fails with 504, and the worker stops the running cases at the deadline instead of finishing them', async () => {
    const expired = async () => {
      const m = (await metricsRegistry.getMetricsAsJSON()).find((x) => x.name === 'lmstream_stopped_items_total');
      return (m?.values ?? []).filter((v) => v.labels.reason === 'expired').reduce((n, v) => n + v.value, 0);
    };
    const before = await expired();
    // The deadline is far longer than a request takes to reach a worker whose model is
    // loaded, and far shorter than the work: 32 heavy cases, about 70 s of work on an idle
    // machine. (With a 400 ms deadline and a cold model, a busy machine expired every case
    // before it ran, and none was stopped while running.)
    const short = await startService({ RATE_LIMIT_MAX: 1_000_000, REQUEST_TIMEOUT_MS: 6000 }, { capabilities: ['decide'] });
    try {
      await until(async () => {
        const res = await short.gateway.app.inject({ method: 'GET', url: '/v1/models' });
        return (res.json() as { models: Array<{ name: string; status: string }> }).models.find((m) => m.name === MODEL)?.status === 'available';
      }, UNTIL_MIN_MS, `${MODEL} available`);
      // the model loads before the request: its loading must not count against the deadline
      expect((await post(short, '/v1/warmup', { services: ['decide'] })).status).toBe(202);
      await until(() => short.gateway.liveWorkers.isLoaded('decide', MODEL), UNTIL_MIN_MS, `${MODEL} loaded`);
      const cases = heavyCases(32);
      const r = await post(short, '/v1/decide/batch', { cases });
      // each case fails alone with 504 (a batch answers 200) unless it was answered before
      // the deadline; only answered questions are billed
      expect(r.status).toBe(200);
      const results = r.body.results as Array<{ status?: number; code?: string; answers?: unknown }>;
      const answered = results.filter((x) => x.answers !== undefined).length;
      expect(results.filter((x) => x.answers === undefined).map((x) => `${x.status} ${x.code}`)).toEqual(Array(32 - answered).fill('504 DEADLINE_EXCEEDED'));
      expect(answered).toBeLessThan(32);
      expect(r.body.usage).toEqual({ decisions: 64 * answered });
      try {
        await until(async () => (await expired()) - before >= 1, UNTIL_MIN_MS, 'running cases stopped at their deadline');
      } catch (err) {
        // the counters that say where the cases went instead (a failure on CI did not reproduce locally)
        const counts = (await metricsRegistry.getMetricsAsJSON())
          .filter((x) => ['lmstream_stopped_items_total', 'lmstream_expired_items_total', 'lmstream_cancelled_items_total'].includes(x.name))
          .map((x) => `${x.name} ${JSON.stringify(x.values.map((v) => [v.labels, v.value]))}`);
        throw new Error(`${(err as Error).message}; answered ${answered} of 32; ${counts.join('; ')}`, { cause: err });
      }
    } finally { await short.close(); }
  });
});
