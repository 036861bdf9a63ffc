/**
 * `npm run bench`: requests/s and latency (autocannon) of /v1/language-id, single and
 * batch of 64, through the whole embedded pipeline without outcome events, the same with them and the
 * analytics consumer (OUTCOME_EVENTS=true: their cost, issue 16), with the pipeline bypassed
 * (bench/direct-server.ts) so the pipeline's overhead shows as a ratio, and through
 * Kafka (librdkafka's mock cluster, services as separate processes); then bulk
 * ingestion throughput (texts/s from a file to corpus files, connectors/) on
 * BENCH_BULK_LINES lines (default 100,000) in BENCH_BULK_RUNS jobs one after another (default 2), BENCH_BULK_ITEMS lines to a request event
 * (default 100), the source unpaced unless BENCH_BULK_RATE lines/s is set. librdkafka's
 * mock cluster keeps only 5 MB per partition and drops the oldest record batches beyond
 * that, consumed or not: a run where it dropped records nobody had read ends with the
 * sink short of its lines, and is reported as failed rather than as a figure (a Kafka
 * broker keeps what `retention.bytes` and `retention.ms` say, by default a week
 * whatever the size, so there the source needs no pacing). Every line must be in the
 * corpus files exactly once. The Kafka rows
 * need Debian's python3-confluent-kafka (skipped without it, or with BENCH_KAFKA=0; BENCH_EMBEDDED=0 skips the embedded and direct rows, BENCH_KAFKA_ROWS=0 the Kafka HTTP rows).
 *
 * Environment: BENCH_DURATION (s per row, default 10), BENCH_ROUNDS (parts each embedded
 * and direct row is measured in, alternating with the rows it is compared with; default
 * 3), BENCH_WARMUP (s of unmeasured load before each row, default 2), BENCH_CONNECTIONS (single-text
 * requests in flight, default 64), BENCH_BATCH_CONNECTIONS (default 4),
 * BENCH_MODEL (default lid-neural-608).
 * The service and the baseline run as child processes; autocannon runs here.
 */
import './tmp.ts'; // temporary files in a folder of the run's own, removed at exit
import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openSync, readFileSync, writeFileSync, readdirSync } from 'node:fs';
import { kafkaAvailable } from '../test/helpers/kafka.ts';
import { CpuMeter, cpuSeconds } from './cpu.ts';
import { profileArgs, startKafkaEnv } from './kafka-env.ts';
import { SENTENCES } from './sentences.ts';
import { NODE_FLAGS } from '../services/node-flags.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP_S = Number(process.env.BENCH_WARMUP ?? 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const BATCH_CONNECTIONS = Number(process.env.BENCH_BATCH_CONNECTIONS ?? 4);
const MODEL = process.env.BENCH_MODEL ?? 'lid-neural-608';
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const KEY = 'bench-key';

const BATCH = Array.from({ length: 64 }, (_, i) => SENTENCES[i % SENTENCES.length]!);

function start(script: string, port: number, env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, [...NODE_FLAGS, '--import', 'tsx', join(ROOT, script)], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', API_KEYS: KEY, RATE_LIMIT_MAX: '1000000000', DATA_DIR: mkdtempSync(join(tmpdir(), 'bench-')), BENCH_MODEL: MODEL, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function ready(base: string | number): Promise<void> {
  const url = typeof base === 'number' ? `http://127.0.0.1:${base}` : base;
  const end = Date.now() + 60_000;
  while (Date.now() < end) {
    try {
      const r = await fetch(`${url}/v1/language-id`, {
        method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` }, body: JSON.stringify({ text: 'warm up the model', model: MODEL }),
      });
      if (r.status === 200) return;
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`server ${url} did not become ready`);
}

interface Row { scenario: string; 'requests/s': number; 'texts/s': number; 'p50 ms': number; 'p99 ms': number; errors: number; }
/** CPU a process used per request and per text over a row (its own CPU time, /proc), and cores busy. */
interface CpuRow { scenario: string; process: string; 'CPU ms/request': number; 'CPU µs/text': number; cores: number; }
const cpuRows: CpuRow[] = [];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * Measures one row in ROUNDS parts of DURATION/ROUNDS seconds (the parts of the rows being
 * compared alternate, so a noisy moment of the machine falls on all of them alike); before
 * the first part, WARMUP_S seconds of the same requests at 8 in flight (JIT, connections,
 * model) that do not count. Requests/s is the total over the parts; p50 and p99 are the
 * parts' medians.
 */
class Measured {
  private requests = 0; private seconds = 0; private errors = 0;
  private readonly p50: number[] = []; private readonly p99: number[] = [];
  private warm = false;
  private readonly cpu: Record<string, number> = {};
  /** @param pids processes whose CPU time is counted, by service name */
  constructor(readonly scenario: string, private readonly base: string | number, private readonly path: string, private readonly bodies: object[],
    private readonly connections: number, private readonly textsPerRequest: number, private readonly pids: Record<string, number> = {}) {}

  private run(c: number, duration: number) {
    return autocannon({
      url: typeof this.base === 'number' ? `http://127.0.0.1:${this.base}` : this.base, connections: c, duration,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
      requests: this.bodies.map((b) => ({ method: 'POST' as const, path: this.path, body: JSON.stringify(b) })),
    });
  }

  /** Runs one part of `seconds`. */
  async part(seconds: number): Promise<void> {
    if (!this.warm && WARMUP_S > 0) await this.run(Math.min(8, this.connections), WARMUP_S);
    this.warm = true;
    const meter = new CpuMeter(this.pids);
    meter.begin();
    const r = await this.run(this.connections, seconds);
    for (const [name, secs] of Object.entries(meter.end())) this.cpu[name] = (this.cpu[name] ?? 0) + secs;
    this.requests += r.requests.total; this.seconds += r.duration; this.errors += r.errors + r.non2xx;
    this.p50.push(r.latency.p50); this.p99.push(r.latency.p99);
  }

  row(): Row {
    const rps = this.requests / this.seconds;
    for (const [process, secs] of Object.entries(this.cpu)) {
      cpuRows.push({
        scenario: this.scenario, process, 'CPU ms/request': +(secs * 1000 / this.requests).toFixed(3),
        'CPU µs/text': Math.round(secs * 1e6 / (this.requests * this.textsPerRequest)), cores: +(secs / this.seconds).toFixed(2),
      });
    }
    return { scenario: this.scenario, 'requests/s': Math.round(rps), 'texts/s': Math.round(rps * this.textsPerRequest), 'p50 ms': median(this.p50), 'p99 ms': median(this.p99), errors: this.errors };
  }
}

/** Measures one row in one part (the Kafka rows). */
async function load(scenario: string, base: string | number, path: string, bodies: object[], connections: number, textsPerRequest: number, pids: Record<string, number>): Promise<Row> {
  const m = new Measured(scenario, base, path, bodies, connections, textsPerRequest, pids);
  await m.part(DURATION);
  return m.row();
}

const rows: Row[] = [];
// the pipeline with and without outcome events (issue 16: their cost), and the model behind
// Fastify alone: the three servers run side by side and their parts alternate, in a
// different order each round
const servers = [
  ['pipeline', 'services/main.ts', 18181, { OUTCOME_EVENTS: 'false' }],
  ['pipeline with outcome events', 'services/main.ts', 18183, { OUTCOME_EVENTS: 'true' }],
  ['direct', 'bench/direct-server.ts', 18182, {}],
] as const;
// BENCH_EMBEDDED=0: the Kafka rows and bulk ingestion only
const children = process.env.BENCH_EMBEDDED === '0' ? [] : servers.map(([, script, port, env]) => start(script, port, env));
if (children.length > 0) try {
  await Promise.all(servers.map(([, , port]) => ready(port)));
  for (const [kind, path, bodies, connections, texts] of [
    ['single', '/v1/language-id', SENTENCES.map((text) => ({ text, model: MODEL })), CONNECTIONS, 1],
    ['batch of 64', '/v1/language-id/batch', [{ texts: BATCH, model: MODEL }], BATCH_CONNECTIONS, 64],
  ] as const) {
    const measured = servers.map(([name, , port], i) => new Measured(`${name} ${kind}`, port, path, bodies as object[], connections, texts,
      { [name === 'direct' ? 'direct server' : 'embedded (gateway + worker + billing)']: children[i]!.pid! }));
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < measured.length; i++) {
        await measured[(i + round) % measured.length]!.part(DURATION / ROUNDS);
        // a second for what the last part left (the analytics consumer's backlog) to finish
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
    rows.push(...measured.map((m) => m.row()));
  }
} finally {
  for (const c of children) c.kill('SIGTERM');
}
/**
 * One bulk ingestion job: the source streams `input` (`lines` lines) into the language-ID
 * topic while the sink writes the corpus; CPU rows for the services (`pids`) and the
 * connectors go to cpuRows.
 * @returns the job's line of the report (texts/s end to end, or why it failed)
 */
async function bulkJob(job: number, input: string, lines: number, env: NodeJS.ProcessEnv, pids: Record<string, number>): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-bulk-'));
  const limitMs = Number(process.env.BENCH_BULK_TIMEOUT_S ?? 600) * 1000;
  // connector logs go to <dir>/<script>.log; their CPU time is sampled every 100 ms while
  // they run (their /proc entry goes when they exit)
  const connectorCpu: Record<string, number> = {};
  const run = (script: string, args: string[]) => new Promise<number | null>((resolve) => {
    const name = script.split('/').pop()!.replace(/\.ts$/, '');
    const log = openSync(join(dir, `${name}.log`), 'w');
    const child = spawn(process.execPath, [...profileArgs(name), '--import', 'tsx', join(ROOT, script), ...args], { env, stdio: ['ignore', 'ignore', log] });
    const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
    const sample = setInterval(() => { const c = cpuSeconds(child.pid!); if (!Number.isNaN(c)) connectorCpu[name] = c; }, 100);
    child.on('exit', (code) => { clearTimeout(timer); clearInterval(sample); resolve(code); });
  });
  // the sink first, and the source once the sink's group has its partitions: a sink that
  // joined seconds after an unpaced source started could find the oldest results gone
  // (the mock cluster keeps 5 MB per partition; in one run of the fifth session 128 lines
  // were lost that way). The time counts from the source's start.
  const sinkDone = run('connectors/corpus-sink.ts', ['--job', `bench${job}`, '--out', join(dir, 'out'), '--expect', String(lines)]);
  let sinkExited = false;
  void sinkDone.then(() => { sinkExited = true; });
  const sinkLog = join(dir, 'corpus-sink.log');
  for (const until = Date.now() + 60_000; !sinkExited && Date.now() < until && !readFileSync(sinkLog, 'utf8').includes(': reading '); ) await new Promise((r) => setTimeout(r, 50));
  const services = new CpuMeter(pids);
  services.begin();
  const t0 = Date.now();
  const [src, sink] = await Promise.all([
    run('connectors/lid-source.ts', ['--file', input, '--job', `bench${job}`, '--model', MODEL, '--items', process.env.BENCH_BULK_ITEMS ?? '100', ...(process.env.BENCH_BULK_RATE ? ['--rate', process.env.BENCH_BULK_RATE] : [])]),
    sinkDone,
  ]);
  const s = (Date.now() - t0) / 1000;
  for (const [process, secs] of Object.entries({ ...services.end(), ...connectorCpu })) {
    if (process === 'gateway') continue;
    cpuRows.push({ scenario: `bulk ingestion, job ${job}`, process, 'CPU ms/request': NaN, 'CPU µs/text': Math.round(secs * 1e6 / lines), cores: +(secs / s).toFixed(2) });
  }
  const files = readdirSync(join(dir, 'out')).filter((f) => f.endsWith('.txt'));
  // nothing lost or duplicated: every numbered line once
  const written = files.flatMap((f) => readFileSync(join(dir, 'out', f), 'utf8').split('\n').filter((l) => l.length > 0));
  const distinct = new Set(written).size;
  if (written.length !== lines || distinct !== lines) console.error(`bulk ingestion: ${written.length} lines written, ${distinct} distinct, ${lines} sent`);
  return src === 0 && sink === 0 && written.length === lines && distinct === lines
    ? `bulk ingestion (Kafka), job ${job}: ${lines} lines from file to ${files.length} corpus files in ${s.toFixed(1)} s = ${Math.round(lines / s)} texts/s (end to end, one worker; ${process.env.BENCH_BULK_ITEMS ?? '100'} lines per request event; source ${process.env.BENCH_BULK_RATE ? `paced at ${process.env.BENCH_BULK_RATE} lines/s` : 'unpaced'})`
    : `bulk ingestion, job ${job}, failed (source exit ${src}, sink exit ${sink}; logs in ${dir})`;
}

const bulk: string[] = [];
if (process.env.BENCH_KAFKA !== '0' && kafkaAvailable()) {
  const k = await startKafkaEnv(KEY);
  try {
    await ready(k.gateway);
    const pids: Record<string, number> = Object.fromEntries(k.procs.map((p) => [p.name, p.child.pid!]));
    const broker = k.kafka.pid?.();
    if (broker) pids['mock cluster'] = broker;
    // BENCH_KAFKA_ROWS=0: bulk ingestion only
    if (process.env.BENCH_KAFKA_ROWS !== '0') {
      rows.push(await load('kafka single', k.gateway, '/v1/language-id', SENTENCES.map((text) => ({ text, model: MODEL })), CONNECTIONS, 1, pids));
      rows.push(await load('kafka batch of 64', k.gateway, '/v1/language-id/batch', [{ texts: BATCH, model: MODEL }], BATCH_CONNECTIONS, 64, pids));
    }
    // bulk ingestion: file → language-ID topic → worker → corpus files. No gateway takes
    // part: it is stopped, so that its reply consumer's 1 ms empty fetches (a mock-cluster
    // setting of the HTTP rows, see kafka-env.ts) do not take CPU from the pipeline
    await k.procs.find((p) => p.name === 'gateway')?.kill('SIGTERM');
    const lines = Number(process.env.BENCH_BULK_LINES ?? 100_000);
    const input = join(mkdtempSync(join(tmpdir(), 'bench-bulk-')), 'input.txt');
    writeFileSync(input, Array.from({ length: lines }, (_, i) => `${SENTENCES[i % SENTENCES.length]} ${i}`).join('\n') + '\n');
    // BENCH_BULK_RUNS jobs one after another (default 2): runs of one build differ by up to a third here
    for (let job = 1; job <= Math.max(1, Number(process.env.BENCH_BULK_RUNS ?? 2)); job++) bulk.push(await bulkJob(job, input, lines, { ...process.env, ...k.env, LOG_LEVEL: 'warn' }, pids));
  } finally {
    await k.stop();
  }
} else {
  console.log('Kafka rows skipped (BENCH_KAFKA=0, or no python3-confluent-kafka for the mock cluster)');
}
console.log(`\n/v1/language-id, model ${MODEL}, ${DURATION} s per row, ${CONNECTIONS} connections (single), ${BATCH_CONNECTIONS} (batch), Node ${process.version}`);
console.table(rows);
console.log('CPU per request and per text, from each process\'s own CPU time over its row (all its threads; /proc/<pid>/stat):');
console.table(cpuRows);
const rps = (scenario: string) => rows.find((r) => r.scenario === scenario)?.['requests/s'] ?? NaN;
const ratio = (a: string, b: string) => (rps(a) / rps(b)).toFixed(2);
console.log(`pipeline/direct throughput: single ${ratio('pipeline single', 'direct single')}, batch ${ratio('pipeline batch of 64', 'direct batch of 64')}`);
console.log(`pipeline with outcome events (the default)/direct throughput: single ${ratio('pipeline with outcome events single', 'direct single')}, batch ${ratio('pipeline with outcome events batch of 64', 'direct batch of 64')}`);
// the Kafka services write outcome events (the default) but run no analytics consumer
const p99 = (scenario: string) => rows.find((r) => r.scenario === scenario)?.['p99 ms'] ?? NaN;
for (const [kind, emb] of [['single', 'pipeline single'], ['batch of 64', 'pipeline batch of 64']] as const) {
  const withEvents = emb.replace('pipeline', 'pipeline with outcome events');
  console.log(`kafka/embedded ${kind}: throughput ${ratio(`kafka ${kind}`, emb)} (${ratio(`kafka ${kind}`, withEvents)} against the row with outcome events), p99 ${(p99(`kafka ${kind}`) / p99(emb)).toFixed(2)} (${(p99(`kafka ${kind}`) / p99(withEvents)).toFixed(2)})`);
}
console.log(`with/without outcome events: single ${ratio('pipeline with outcome events single', 'pipeline single')}, batch ${ratio('pipeline with outcome events batch of 64', 'pipeline batch of 64')}`);
for (const line of bulk) console.log(line);
const failed = rows.filter((r) => r.errors > 0);
if (failed.length > 0) {
  console.error(`non-2xx answers or errors in: ${failed.map((r) => r.scenario).join(', ')}; these figures are not valid`);
  process.exitCode = 1;
}
