/**
 * `npm run bench:overload [-- --baseline REF]`: how the embedded service behaves at and
 * beyond its capacity. Three workloads: /v1/language-id single texts (about 100
 * characters), /v1/language-id/batch with 256 texts, and /v1/diacritize single
 * Vietnamese sentences (diacnet-mini-2.0: there the model, not HTTP, is the bottleneck;
 * on a 2-core machine the language-ID rows are bound by HTTP and by the load generator,
 * which runs on the same cores). For each it first measures capacity (closed loop, 5 s),
 * then offers 1× and 4× that rate (autocannon `overallRate`, open loop, BENCH_DURATION s
 * each) and prints per row: answered requests/s, 2xx/s (goodput), p50 / p99 latency of
 * the 2xx answers only (the served requests), the status mix and how many 503s carried
 * `Retry-After`, the in-flight limit at the end of the row (`GET /ready`, trees that
 * report it), the latency of `GET /health` asked every 100 ms by separate processes
 * during the load (p50 / p99 / max and failures, on the main port and on HEALTH_PORT, the
 * health thread's port), and the service's resident memory: before the row and its peak
 * (VmHWM), and after each language-ID 4× row also 45 s after it ended (does memory come
 * back after a burst? V8 gives its heap back after about 30 s of idle).
 *
 * `--baseline REF` runs the same rows first against REF (bench/baseline.ts: a git
 * worktree of it) and prints both, so the before/after comparison comes from one run on
 * one machine.
 *
 * Environment: BENCH_DURATION (s per row, default 10), BENCH_MODEL (language ID, default
 * lid-neural-608), BENCH_ROWS (comma-separated of single, batch, diacritize; default all),
 * BENCH_SERVICE_CPUS (e.g. `0`: the service on those CPUs only, through taskset; run the
 * benchmark itself elsewhere, `taskset -c 1 npm run bench:overload`, so that the load
 * generator does not take the service's CPU). Linux only (/proc). Everything, the load
 * generator included, runs on this machine.
 */
import './tmp.ts'; // temporary files in a folder of the run's own, removed at exit
import autocannon from 'autocannon';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { checkoutBaseline } from './baseline.ts';
import { SENTENCES } from './sentences.ts';
import { NODE_FLAGS } from '../services/node-flags.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const MODEL = process.env.BENCH_MODEL ?? 'lid-neural-608';
const SERVICE_CPUS = process.env.BENCH_SERVICE_CPUS ?? '';
const ROWS = new Set((process.env.BENCH_ROWS ?? 'single,batch,diacritize').split(',').map((r) => r.trim()));
/** Vietnamese without its marks (written for this benchmark): 63 characters */
const VIETNAMESE = 'Toi muon di xem phim voi ban be vao toi nay o trung tam thanh pho';
const KEY = 'bench-key';
const PORT = 18191;
const HEALTH_PORT = 18192;
const BASE = `http://127.0.0.1:${PORT}`;

const { values: args } = parseArgs({ options: { baseline: { type: 'string' } } });

/** Resident memory of a process, MB: `VmRSS` now or `VmHWM` (peak). */
function memoryMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
}

/** Resets the peak-RSS counter of a process (Linux: writing 5 to clear_refs). */
function resetPeak(pid: number): void {
  try { execFileSync('sh', ['-c', `echo 5 > /proc/${pid}/clear_refs`]); } catch { /* not allowed: the peak then counts from start */ }
}

function startService(tree: string): ChildProcess {
  const args = [...NODE_FLAGS, '--import', 'tsx', join(tree, 'services/main.ts')];
  // BENCH_SERVICE_CPUS: the service on these CPUs only (taskset), the load generator elsewhere
  const [cmd, argv] = SERVICE_CPUS ? ['taskset', ['-c', SERVICE_CPUS, process.execPath, ...args]] : [process.execPath, args];
  return spawn(cmd, argv, {
    cwd: tree,
    env: {
      ...process.env, PORT: String(PORT), HEALTH_PORT: String(HEALTH_PORT), HOST: '127.0.0.1', LOG_LEVEL: 'error', LOG_REQUESTS: 'false', API_KEYS: KEY,
      // the rows measure overload, not the per-key rate limit
      RATE_LIMIT_MAX: '1000000000', DATA_DIR: mkdtempSync(join(tmpdir(), 'bench-overload-')),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function ready(): Promise<void> {
  const end = Date.now() + 60_000;
  while (Date.now() < end) {
    try {
      const r = await fetch(`${BASE}/v1/language-id`, {
        method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` }, body: JSON.stringify({ text: 'warm up the model', model: MODEL }),
      });
      if (r.status === 200) return;
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('the service did not become ready');
}

/** Asks once and waits for the answer (a model's first request loads it). */
async function warm(path: string, body: object): Promise<void> {
  const r = await fetch(`${BASE}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` }, body: JSON.stringify(body) });
  if (r.status !== 200) throw new Error(`${path} answered ${r.status}: ${await r.text()}`);
}

interface Probe { n: number; failed: number; p50: number; p99: number; max: number }

/** Starts a /health prober; `stop()` resolves with its figures. */
function healthProbe(url: string): { stop(): Promise<Probe> } {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/health-probe.ts'), url], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => { out += String(d); });
  return {
    stop: () => new Promise((resolve) => { child.on('exit', () => resolve(JSON.parse(out.trim() || '{"n":0,"failed":0,"p50":0,"p99":0,"max":0}'))); child.stdin!.end(); }),
  };
}

interface Row {
  tree: string; row: string; 'answers/s': number; '2xx/s': number; '2xx p50 ms': number; '2xx p99 ms': number; statuses: string; 'limit at end': string;
  '/health p50/p99/max ms (failed)': string; 'health port p50/p99/max ms (failed)': string; 'RSS before / peak / 45 s after MB': string;
}

/** Percentile `q` (0–1) of sorted values, nearest rank. */
const percentile = (sorted: number[], q: number) => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!);

/** The in-flight limit of a capability now, from `GET /ready` ('–' where the tree does not report it). */
async function limitNow(capability: string): Promise<string> {
  try {
    const r = await (await fetch(`${BASE}/ready`)).json() as { inflight_limits?: Record<string, number> };
    return r.inflight_limits ? String(r.inflight_limits[capability]) : '–';
  } catch { return '?'; }
}

const probeText = (p: Probe) => (p.n > 0 && p.failed === p.n && p.max < 50 ? 'none' : `${p.p50} / ${p.p99} / ${p.max} (${p.failed})`);

const statusMix = (r: autocannon.Result, retryAfter: number) => {
  const codes = Object.entries((r as unknown as { statusCodeStats?: Record<string, { count: number }> }).statusCodeStats ?? {}).map(([c, s]) => `${c}:${s.count}`);
  if (retryAfter > 0) codes.push(`(${retryAfter} with Retry-After)`);
  if (r.errors > 0) codes.push(`errors:${r.errors}`);
  if (r.timeouts > 0) codes.push(`timeouts:${r.timeouts}`);
  return codes.join(' ');
};

async function measure(tree: string, pid: number, row: string, capability: string, path: string, body: object, connections: number, rate: number | undefined, duration: number, settleS = 0): Promise<{ row: Row; result: autocannon.Result }> {
  const before = memoryMb(pid, 'VmRSS');
  resetPeak(pid);
  const probe = healthProbe(`${BASE}/health`);
  const portProbe = healthProbe(`http://127.0.0.1:${HEALTH_PORT}/health`);
  const served: number[] = [];
  let retryAfter = 0;
  const run = autocannon({
    url: BASE, connections, duration, timeout: 60, ...(rate ? { overallRate: rate } : {}),
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
    requests: [{
      method: 'POST', path, body: JSON.stringify(body),
      onResponse: (status: number, _body: string, _ctx: object, headers: Record<string, string | string[] | undefined> | undefined) => { if (status === 503 && headers?.['retry-after'] !== undefined) retryAfter++; },
    }],
  });
  // autocannon's result is a promise and an EventEmitter (its types know only the promise)
  (run as unknown as import('node:events').EventEmitter).on('response', (_client: unknown, status: number, _bytes: number, ms: number) => { if (status >= 200 && status < 300) served.push(ms); });
  const result = await run;
  const limit = await limitNow(capability);
  served.sort((a, b) => a - b);
  const [health, healthPort] = await Promise.all([probe.stop(), portProbe.stop()]);
  const peak = memoryMb(pid, 'VmHWM');
  if (settleS > 0) await new Promise((r) => setTimeout(r, settleS * 1000));
  const after = settleS > 0 ? String(memoryMb(pid, 'VmRSS')) : '–';
  const secs = duration;
  const total = Object.values((result as unknown as { statusCodeStats?: Record<string, { count: number }> }).statusCodeStats ?? {}).reduce((n, s) => n + s.count, 0);
  return {
    result,
    row: {
      tree, row, 'answers/s': Math.round(total / secs), '2xx/s': Math.round(result['2xx'] / secs),
      '2xx p50 ms': Math.round(percentile(served, 0.5)), '2xx p99 ms': Math.round(percentile(served, 0.99)),
      statuses: statusMix(result, retryAfter), 'limit at end': limit, '/health p50/p99/max ms (failed)': probeText(health), 'health port p50/p99/max ms (failed)': probeText(healthPort),
      'RSS before / peak / 45 s after MB': `${before} / ${peak} / ${after}`,
    },
  };
}

async function runTree(label: string, tree: string): Promise<Row[]> {
  const child = startService(tree);
  const rows: Row[] = [];
  try {
    await ready();
    const pid = child.pid!;
    const batch = { texts: Array.from({ length: 256 }, (_, i) => SENTENCES[i % SENTENCES.length]!), model: MODEL };
    const groups = [
      ['single', 'language-id', '/v1/language-id', { text: SENTENCES[0], model: MODEL }, 64, 256, 1024, 45],
      ['batch of 256', 'language-id', '/v1/language-id/batch', batch, 4, 16, 512, 45],
      ['diacritize', 'diacritize', '/v1/diacritize', { text: VIETNAMESE, language: 'vie', model: 'diacnet-mini-2.0' }, 16, 64, 1024, 0],
    ] as const;
    for (const [name, capability, path, body, probeConns, conns1, conns4, settle] of groups) {
      if (!ROWS.has(name.split(' ')[0]!)) continue;
      if (capability === 'diacritize') await warm(path, body);
      const cap = await measure(label, pid, `${name}: capacity (closed loop, ${probeConns} conns)`, capability, path, body, probeConns, undefined, 5);
      rows.push(cap.row);
      const capacity = Math.max(1, cap.row['2xx/s']);
      for (const [times, conns] of [[1, conns1], [4, conns4]] as const) {
        rows.push((await measure(label, pid, `${name}: ${times}× = ${capacity * times} req/s offered, ${conns} conns`, capability, path, body, conns, capacity * times, DURATION, times === 4 ? settle : 0)).row);
      }
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => { child.once('exit', r); setTimeout(r, 15_000); });
    if (child.exitCode === null) child.kill('SIGKILL');
  }
  return rows;
}

const rows: Row[] = [];
if (args.baseline) {
  const b = checkoutBaseline(args.baseline);
  try { rows.push(...await runTree(`baseline ${args.baseline}`, b.dir)); } finally { b.remove(); }
}
rows.push(...await runTree('this tree', ROOT));
console.log(`\nOverload, language-ID model ${MODEL}, ${DURATION} s per row (capacity probes 5 s), Node ${process.version}; latencies of the 2xx answers`);
console.table(rows);
