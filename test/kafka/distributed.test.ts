/**
 * Distributed mode against a real Kafka-protocol broker (librdkafka's mock cluster,
 * 3 brokers): registry, 2 gateways, 2 language-ID workers, billing and analytics as
 * separate processes, with the ledger, keys and analytics in PostgreSQL (SQLite where PostgreSQL is not
 * installed, outside CI).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ledger } from '../../services/billing/ledger.ts';
import { H, topicsFor } from '../../services/events/topics.ts';
import { kafkaAvailable, startKafka, type TestKafka } from '../helpers/kafka.ts';
import { postgresBin, startPostgres, type TestPostgres } from '../helpers/postgres.ts';
import { freePort, startProcess, type ServiceProcess } from '../helpers/processes.ts';
import { TEST_QUEUE_TARGETS, TEST_REQUEST_TIMEOUT_MS, until } from '../helpers/service.ts';
import { repositoryWith, useTinyWeights } from '../helpers/llm.ts';

const available = kafkaAvailable();
if (!available && process.env.CI) throw new Error('CI needs the Kafka test broker: apt-get install python3-confluent-kafka');

const KEY = 'dist-key';
/** a key of its own for the analytics test, and an admin key */
const KEY_2 = 'dist-key-analytics';
const ADMIN = 'dist-admin-key';
const TEXTS: Array<[string, string]> = [
  ['deu', 'Können Sie mir bitte sagen, wie ich am schnellsten zum Bahnhof komme?'],
  ['spa', 'Mañana vamos a visitar a mis abuelos, que viven cerca de la playa.'],
  ['eng', 'The weather is lovely today, so we are going for a walk in the park.'],
  ['fra', 'Je voudrais réserver une table pour deux personnes ce soir.'],
];

describe.skipIf(!available)('distributed mode over Kafka', () => {
  let kafka: TestKafka;
  let postgres: TestPostgres | undefined;
  let ledgerTarget: string;
  const procs: ServiceProcess[] = [];
  let env: Record<string, string>;
  let gw: string[] = [];
  let slowWorker: ServiceProcess;
  let dataDir: string;
  const prefix = `it${Date.now()}`;

  beforeAll(async () => {
    kafka = await startKafka();
    dataDir = mkdtempSync(join(tmpdir(), 'dist-'));
    if (postgresBin()) postgres = await startPostgres();
    else if (process.env.CI) throw new Error('CI needs PostgreSQL: apt-get install postgresql');
    ledgerTarget = postgres?.url ?? join(dataDir, 'ledger.db');
    const regPort = await freePort();
    env = {
      TRANSPORT: 'kafka', KAFKA_BROKERS: kafka.brokers, TOPIC_PREFIX: prefix, DATA_DIR: dataDir, API_KEYS: `${KEY},${KEY_2}`, API_ADMIN_KEYS: ADMIN, LOG_LEVEL: 'debug',
      KAFKA_FETCH_MAX_WAIT_MS: '20', KAFKA_SESSION_TIMEOUT_MS: '6000', WORKER_HEARTBEAT_MS: '500', HOST: '127.0.0.1',
      SCHEMA_REGISTRY_URL: `http://127.0.0.1:${regPort}`, DATABASE_URL: postgres?.url ?? '',
      // no request of these tests may fail its deadline or be shed because the machine is
      // busy or the slow worker holds its items
      REQUEST_TIMEOUT_MS: String(TEST_REQUEST_TIMEOUT_MS), QUEUE_TARGET_MS: TEST_QUEUE_TARGETS, RATE_LIMIT_READ_MAX: '1000000',
    };
    procs.push(await startProcess('registry', ['registry'], { ...env, SCHEMA_REGISTRY_URL: '', SCHEMA_REGISTRY_PORT: String(regPort) }));
    const ports = [await freePort(), await freePort()];
    // the group forms with both workers at once: librdkafka's mock cluster fails the
    // SyncGroup of members that join an established kafkajs group (docs/kafka.md)
    const started = await Promise.all([
      startProcess('worker-a', ['worker:language-id'], env),
      // holds its items 3 s before running them, so that it can be killed mid-batch: several
      // times what sending the kill test's requests takes on a busy machine
      startProcess('worker-slow', ['worker:language-id'], { ...env, BATCH_MAX_QUEUE_DELAY_MS: '3000' }),
      startProcess('billing', ['billing'], env),
      startProcess('analytics', ['analytics'], env),
      startProcess('gateway-1', ['gateway'], { ...env, PORT: String(ports[0]) }),
      startProcess('gateway-2', ['gateway'], { ...env, PORT: String(ports[1]) }),
    ]);
    procs.push(...started);
    slowWorker = started[1]!;
    gw = ports.map((p) => `http://127.0.0.1:${p}`);
  });

  afterAll(async () => {
    await Promise.all(procs.map((p) => p.kill('SIGKILL')));
    await kafka?.stop();
    await postgres?.stop();
  });

  let seq = 0;
  const lid = async (base: string, text: string) => {
    const id = `t-${++seq}`;
    const r = await fetch(`${base}/v1/language-id`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}`, 'x-request-id': id }, body: JSON.stringify({ text, model: 'lid-lite-608' }) });
    return { status: r.status, body: (await r.json()) as Record<string, unknown> };
  };

  it('answers every request through the gateway that holds it, with 2 gateways and 2 workers', async () => {
    await until(async () => (await lid(gw[0]!, 'hello world')).status === 200 && (await lid(gw[1]!, 'hello world')).status === 200, 60_000, 'both gateways serving');
    const calls = Array.from({ length: 40 }, (_, i) => ({ g: i % 2, want: TEXTS[i % 4]![0], text: TEXTS[i % 4]![1] }));
    const results = await Promise.all(calls.map((c) => lid(gw[c.g]!, c.text)));
    expect(results.filter((r) => r.status !== 200).map((r) => JSON.stringify(r.body))).toEqual([]);
    expect(results.map((r) => r.status)).toEqual(Array(40).fill(200));
    expect(results.map((r) => r.body.language)).toEqual(calls.map((c) => c.want));
  });

  it('counts every answer in analytics: the gateways\' outcome events reach the analytics consumer, and the pipeline view lists the consumer groups and both workers', async () => {
    const send = (base: string, text: string) => fetch(`${base}/v1/language-id`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY_2}` }, body: JSON.stringify({ text, model: 'lid-lite-608' }) });
    const sent = await Promise.all(Array.from({ length: 12 }, (_, i) => send(gw[i % 2]!, TEXTS[i % 4]![1])));
    expect(sent.map((r) => r.status)).toEqual(Array(12).fill(200));
    const get = async (url: string, key: string) => (await fetch(`${gw[0]}${url}`, { headers: { authorization: `Bearer ${key}` } })).json() as Promise<Record<string, any>>;
    await until(async () => (await get('/v1/analytics', KEY_2)).totals?.events === 12, 30_000, 'the 12 outcome events in analytics');
    const byLabel = await get('/v1/analytics?group_by=label', KEY_2);
    expect(Object.fromEntries(byLabel.series.map((x: any) => [x.group.label, x.totals.items]))).toEqual({ deu_Latn: 3, spa_Latn: 3, eng_Latn: 3, fra_Latn: 3 });
    // a group whose lag the broker cannot give yet (its coordinator still loading, on a busy machine) is left out until it can
    const wanted = [`${prefix}.workers.language-id`, `${prefix}.billing`, `${prefix}.analytics`];
    let pipeline: Record<string, any> = {};
    await until(async () => {
      pipeline = await get('/v1/analytics/pipeline', ADMIN);
      const groups = pipeline.consumer_groups.map((g: any) => g.group);
      return wanted.every((g) => groups.includes(g));
    }, 30_000, 'the lag of the workers, billing and analytics groups');
    for (const g of pipeline.consumer_groups) expect(g.lag).toBeGreaterThanOrEqual(0);
    expect(pipeline.workers.filter((w: any) => w.capability === 'language-id').length).toBeGreaterThanOrEqual(2);
  });

  it('bills every answer of a burst as it is delivered, and GET /v1/usage says how far behind billing is (regression: the ledger lagged minutes)', async () => {
    const ledger = await Ledger.open(ledgerTarget);
    try {
      const usage = async (base: string) => (await (await fetch(`${base}/v1/usage`, { headers: { authorization: `Bearer ${KEY}` } })).json()) as { billing_lag: { complete: boolean; messages: number | null; gateway_events: number } };
      await until(async () => (await lid(gw[0]!, 'hello world')).status === 200 && (await lid(gw[1]!, 'hello world')).status === 200, 60_000, 'both gateways serving');
      // every gateway's own unwritten usage counts in its billing_lag: both must be done
      const caughtUp = async () => (await usage(gw[0]!)).billing_lag.complete && (await usage(gw[1]!)).billing_lag.complete;
      await until(caughtUp, 30_000, 'billing caught up before the burst');
      const before = await ledger.count();
      // 576 requests, 48 at a time, over both gateways
      let ok = 0;
      const failed: string[] = [];
      for (let wave = 0; wave < 12; wave++) {
        const rs = await Promise.all(Array.from({ length: 48 }, (_, i) => lid(gw[i % 2]!, TEXTS[i % 4]![1])));
        ok += rs.filter((r) => r.status === 200).length;
        failed.push(...rs.filter((r) => r.status !== 200).map((r) => JSON.stringify(r.body)));
      }
      expect(failed).toEqual([]);
      const lag = (await usage(gw[1]!)).billing_lag;
      expect(lag.messages).not.toBeNull();
      expect(lag.gateway_events).toBeGreaterThanOrEqual(0);
      await until(async () => (await ledger.count()) === before + ok, 20_000, 'every delivered answer in the ledger').catch(async (err) => {
        throw new Error(`${(err as Error).message}: ${(await ledger.count()) - before} of ${ok} billed; lag ${JSON.stringify((await usage(gw[0]!)).billing_lag)}`);
      });
      await until(caughtUp, 20_000, 'billing lag 0');
      expect(await ledger.count()).toBe(before + ok);
    } finally { await ledger.close(); }
  });

  it('answers every request when a worker is killed mid-batch: its partitions move to the other worker', async () => {
    let done = 0;
    // in 12 waves 40 ms apart: each wave is its own produce flush, and the gateways move
    // keyless messages to the next partition at each flush (sticky partitioning), so the
    // requests reach every partition, the slow worker's included (regression: sent at
    // once, all 24 could land on the fast worker's partitions and the test failed)
    const pending: Array<Promise<{ status: number; body: Record<string, unknown> }>> = [];
    for (let i = 0; i < 24; i++) {
      if (i > 0 && i % 2 === 0) await new Promise((r) => setTimeout(r, 40));
      pending.push(lid(gw[i % 2]!, TEXTS[i % 4]![1]).finally(() => { done++; }));
    }
    // killed at once: the slow worker holds its share for 3 s
    const answeredBeforeKill = done;
    await slowWorker.kill('SIGKILL');
    const results = await Promise.all(pending);
    expect(answeredBeforeKill).toBeLessThan(24);
    expect(results.map((r) => r.status)).toEqual(Array(24).fill(200));
    expect(results.map((r) => r.body.language)).toEqual(Array.from({ length: 24 }, (_, i) => TEXTS[i % 4]![0]));
  });

  it('bills a usage event delivered twice once', async () => {
    const ledger = await Ledger.open(ledgerTarget);
    try {
      await until(async () => (await ledger.count()) >= 64, 30_000, 'usage of the answered requests').catch(async (err) => {
        const billing = procs.find((p) => p.name === 'billing')!;
        throw new Error(`${(err as Error).message}: ledger holds ${await ledger.count()}; billing log tail: ${JSON.stringify(billing.logs.slice(-5))}`);
      });
      // billing takes usage every BILLING_BATCH_INTERVAL_MS: wait until it has caught up
      let last = -1;
      await until(async () => { const n = await ledger.count(); const settled = n === last; last = n; if (!settled) await new Promise((r) => setTimeout(r, 700)); return settled; }, 30_000, 'ledger settled');
      const before = await ledger.count();
      const client = new Kafka({ brokers: kafka.brokers.split(','), logLevel: logLevel.NOTHING });
      const consumer = client.consumer({ groupId: `${prefix}.replay`, maxWaitTimeInMs: 20 });
      await consumer.connect();
      await consumer.subscribe({ topic: topicsFor(prefix).usage, fromBeginning: true });
      const values: Buffer[] = [];
      await consumer.run({ eachMessage: async ({ message }) => { if (values.length < 10) values.push(message.value!); } });
      // each message holds the usage events of one micro-batch: replay what 1 s brings, at least one
      await until(() => values.length >= 1, 20_000, 'usage messages read');
      await new Promise((r) => setTimeout(r, 1000));
      await consumer.disconnect();
      const producer = client.producer();
      await producer.connect();
      await producer.send({ topic: topicsFor(prefix).usage, messages: values.map((value) => ({ value })) });
      await producer.disconnect();
      await new Promise((r) => setTimeout(r, 3000));
      expect(await ledger.count()).toBe(before);
    } finally { await ledger.close(); }
  });

  it('sends a poison item to the dead-letter topic with the error in a header, and answers the rest of its batch', async () => {
    const topics = topicsFor(prefix);
    const client = new Kafka({ brokers: kafka.brokers.split(','), logLevel: logLevel.NOTHING });
    const producer = client.producer();
    await producer.connect();
    await producer.send({ topic: topics.requests('language-id'), messages: [{ key: 'poison', value: Buffer.from('definitely not avro'), headers: { [H.correlationId]: 'poison:0', [H.capability]: 'language-id' } }] });
    await producer.disconnect();
    const rest = await Promise.all(TEXTS.map(([, t]) => lid(gw[0]!, t)));
    expect(rest.map((r) => r.body.language)).toEqual(TEXTS.map(([l]) => l));
    const consumer = client.consumer({ groupId: `${prefix}.dlq-reader`, maxWaitTimeInMs: 20 });
    await consumer.connect();
    await consumer.subscribe({ topic: topics.deadLetter('language-id'), fromBeginning: true });
    const dead: Array<{ value: string; headers: Record<string, string> }> = [];
    await consumer.run({ eachMessage: async ({ message }) => {
      dead.push({ value: String(message.value), headers: Object.fromEntries(Object.entries(message.headers ?? {}).map(([k, v]) => [k, String(v)])) });
    } });
    await until(() => dead.length > 0, 30_000, 'dead-letter event');
    await consumer.disconnect();
    expect(dead[0]!.value).toBe('definitely not avro');
    expect(dead[0]!.headers).toMatchObject({ [H.correlationId]: 'poison:0', error: expect.stringMatching(/does not decode/) });
  });
});

describe.skipIf(!available)('bulk ingestion connectors over Kafka', () => {
  let kafka: TestKafka;
  const procs: ServiceProcess[] = [];
  let env: Record<string, string>;
  const prefix = `bulk${Date.now()}`;
  let gatewayPort = 0;
  const ROOT = join(import.meta.dirname, '..', '..');
  // the generative models on their tiny weights, with short answers (a random model writes each string to its limit)
  const weights = useTinyWeights();
  const repo = repositoryWith({ 'mist-extract-1.0': { max_value_chars: 24, max_list_items: 3 }, 'mist-qg-1.5b': { max_question_chars: 24 } });

  beforeAll(async () => {
    kafka = await startKafka();
    const dataDir = mkdtempSync(join(tmpdir(), 'bulk-'));
    const regPort = await freePort();
    env = {
      TRANSPORT: 'kafka', KAFKA_BROKERS: kafka.brokers, TOPIC_PREFIX: prefix, DATA_DIR: dataDir, LOG_LEVEL: 'warn',
      KAFKA_FETCH_MAX_WAIT_MS: '20', KAFKA_SESSION_TIMEOUT_MS: '6000', HOST: '127.0.0.1', SCHEMA_REGISTRY_URL: `http://127.0.0.1:${regPort}`,
      MODEL_WEIGHTS_DIR: weights, MODEL_REPOSITORY: repo, REQUEST_TIMEOUT_MS: String(TEST_REQUEST_TIMEOUT_MS), QUEUE_TARGET_MS: TEST_QUEUE_TARGETS,
    };
    // `npm start` with TRANSPORT=kafka and no --service: every service in one process,
    // serving its own Schema Registry
    gatewayPort = await freePort();
    procs.push(await startProcess('all', [], { ...env, LOG_LEVEL: 'info', SCHEMA_REGISTRY_URL: '', SCHEMA_REGISTRY_PORT: String(regPort), PORT: String(gatewayPort), API_KEYS: KEY }));
  });
  afterAll(async () => {
    await Promise.all(procs.map((p) => p.kill('SIGKILL')));
    await kafka?.stop();
  });

  // stderr is read as it comes (its last 4 KB kept for a failure's message): a pipe nobody
  // reads fills at 64 KB and then blocks the connector's next write (regression: kafkajs'
  // rebalance errors filled it and the test timed out)
  const stderrOf = new Map<ReturnType<typeof spawn>, string>();
  const run = (script: string, args: string[]) => {
    const c = spawn(process.execPath, ['--import', 'tsx', join(ROOT, script), ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    stderrOf.set(c, '');
    c.stderr!.on('data', (d: Buffer) => stderrOf.set(c, (stderrOf.get(c)! + d.toString('utf8')).slice(-4096)));
    return c;
  };
  const exit = (c: ReturnType<typeof run>) => new Promise<number | null>((r) => c.on('exit', (code) => {
    if (code !== 0 && code !== null) console.error(`exit ${code}:\n${stderrOf.get(c)}`);
    r(code);
  }));

  it('runs every service in one process over Kafka when no --service is given', async () => {
    const base = `http://127.0.0.1:${gatewayPort}`;
    expect(await (await fetch(`${base}/health`)).json()).toMatchObject({ status: 'ok', transport: 'kafka' });
    let r: Response | undefined;
    await until(async () => (r = await fetch(`${base}/v1/language-id`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` }, body: JSON.stringify({ text: TEXTS[1]![1], model: 'lid-lite-608' }) })).status === 200, 60_000, 'a language-ID answer');
    expect((await r!.json()).language).toBe('spa');
    // diacritic restoration through the same pipeline, with each of the three models (issue 13)
    for (const model of ['diactag-2.0', 'diacnet-mini-2.0', 'diacnet-2.0']) {
      await until(async () => (r = await fetch(`${base}/v1/diacritize`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` }, body: JSON.stringify({ text: 'Wczoraj poszlismy do kina z przyjaciolmi.', language: 'pl', model }) })).status === 200, 60_000, `a diacritization answer of ${model}`);
      expect(await r!.json()).toMatchObject({ text: 'Wczoraj poszliśmy do kina z przyjaciółmi.', language: 'pol', model });
    }
    // the generative routes on llama.cpp through the same pipeline (issue 15)
    const post = (path: string, body: unknown) => fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` }, body: JSON.stringify(body) });
    await until(async () => (r = await post('/v1/decide', { state: 'Please reverse my transfer', questions: { q: { type: 'choice', instructions: 'Intent?', criteria: { reversal: null, balance: null } } } })).status === 200, 60_000, 'a decision');
    expect(Object.keys((await r!.json()).answers.q.probabilities)).toEqual(['reversal', 'balance']);
    await until(async () => (r = await post('/v1/extract', { template: { total: 'number', shop: 'string' }, text: 'NAIVAS total KES 1,250' })).status === 200, 60_000, 'an extraction');
    expect(Object.keys((await r!.json()).data)).toEqual(['total', 'shop']);
    await until(async () => (r = await post('/v1/questions/generate', { passage: TEXTS[2]![1], n: 2 })).status === 200, 60_000, 'questions');
    expect((await r!.json()).questions).toHaveLength(2);
  });

  it('streams a file into the language-ID topic and writes a corpus split by label, resuming after a crash without duplicates or gaps', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'corpus-'));
    const input = join(dir, 'input.txt');
    const lines = Array.from({ length: 3000 }, (_, i) => `${TEXTS[i % 4]![1]} (${i})`);
    writeFileSync(input, `${lines.slice(0, 1500).join('\n')}\n\n${lines.slice(1500).join('\n')}\n`); // a blank line is skipped
    const out = join(dir, 'out');
    expect(await exit(run('connectors/lid-source.ts', ['--file', input, '--job', 'j1', '--batch', '200']))).toBe(0);
    // end-of-job markers of another writer with counts that are not counts: left out (a
    // negative one taken would end the sink at once, a non-number never)
    const client = new Kafka({ brokers: kafka.brokers.split(','), logLevel: logLevel.NOTHING });
    const producer = client.producer();
    await producer.connect();
    await producer.send({ topic: `${prefix}.corpus.j1.results`, messages: ['-5', 'many', '1e3', ''].map((n) => ({ key: 'j1:end', value: Buffer.alloc(0), headers: { 'job-texts': n } })) });
    await producer.disconnect();
    // the sink crashes once part-way, then resumes
    const first = run('connectors/corpus-sink.ts', ['--job', 'j1', '--out', out]);
    await until(() => existsSync(join(out, '.checkpoint.json')) && (JSON.parse(readFileSync(join(out, '.checkpoint.json'), 'utf8')).written as Array<[number, number]>).reduce((n, [s, e]) => n + e - s, 0) > 300, 60_000, 'sink progress');
    first.kill('SIGKILL');
    await exit(first);
    // no --expect: the source's end-of-job marker says the job has 3,000 texts, and the sink
    // ends when they are written
    const second = run('connectors/corpus-sink.ts', ['--job', 'j1', '--out', out]);
    expect(await exit(second)).toBe(0);
    // the first sink may have written every text before it was killed (a fast machine):
    // then the second finds the job complete at once
    expect(stderrOf.get(second)).toMatch(/j1: complete, 3000 texts(: 3000 written in \d+ label files, 0 skipped|, all written \(or skipped\) before this run)/);
    const files = readdirSync(out).filter((f) => f.endsWith('.txt'));
    const written = files.flatMap((f) => readFileSync(join(out, f), 'utf8').trim().split('\n'));
    expect(written.length).toBe(3000);
    expect(new Set(written).size).toBe(3000);
    expect([...written].sort()).toEqual([...lines].sort());
    expect(files).toEqual(expect.arrayContaining(['deu_Latn.txt', 'spa_Latn.txt', 'eng_Latn.txt', 'fra_Latn.txt']));
    expect(readFileSync(join(out, 'spa_Latn.txt'), 'utf8')).toContain('Mañana vamos');
  });
});
