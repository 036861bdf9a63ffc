/**
 * `npm run bench:overload [-- --baseline REF]`: how the embedded service behaves at and
 * beyond its capacity. For /v1/language-id single texts and batches of 256 it first
 * measures capacity (closed loop: 64 connections for single texts, 4 for batches, 5 s),
 * then offers 1× and 4× that rate (autocannon `overallRate`, open loop, over 256 / 1,024
 * connections for single texts and 16 / 512 for batches, BENCH_DURATION s each) and prints
 * per row: answered requests/s, 2xx/s, p50 / p99 latency of every answer, the status mix,
 * the latency of `GET /health` asked every 100 ms by separate processes during the load
 * (p50 / p99 / max and failures, on the main port and on HEALTH_PORT, the health thread's
 * port, where the tree has one), and the service's resident memory: before the row and
 * its peak (VmHWM), and after each 4× row also 45 s after it ended (does memory come back
 * after a burst? V8 gives its heap back after about 30 s of idle).
 *
 * `--baseline REF` runs the same rows first against REF (bench/baseline.ts: a git
 * worktree of it) and prints both, so the before/after comparison comes from one run on
 * one machine.
 *
 * Environment: BENCH_DURATION (s per row, default 10), BENCH_MODEL (default
 * lid-neural-608). Linux only (/proc). Everything, the load generator included, runs on
 * this machine: on 2 cores the generator takes a share of the CPU it measures.
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
  return spawn(process.execPath, [...NODE_FLAGS, '--import', 'tsx', join(tree, 'services/main.ts')], {
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
  tree: string; row: string; 'answers/s': number; '2xx/s': number; 'p50 ms': number; 'p99 ms': number; statuses: string;
  '/health p50/p99/max ms (failed)': string; 'health port p50/p99/max ms (failed)': string; 'RSS before / peak / 45 s after MB': string;
}

const probeText = (p: Probe) => (p.n > 0 && p.failed === p.n && p.max < 50 ? 'none' : `${p.p50} / ${p.p99} / ${p.max} (${p.failed})`);

const statusMix = (r: autocannon.Result) => {
  const codes = Object.entries((r as unknown as { statusCodeStats?: Record<string, { count: number }> }).statusCodeStats ?? {}).map(([c, s]) => `${c}:${s.count}`);
  if (r.errors > 0) codes.push(`errors:${r.errors}`);
  return codes.join(' ');
};

async function measure(tree: string, pid: number, row: string, path: string, body: object, connections: number, rate: number | undefined, duration: number, settleS = 0): Promise<{ row: Row; result: autocannon.Result }> {
  const before = memoryMb(pid, 'VmRSS');
  resetPeak(pid);
  const probe = healthProbe(`${BASE}/health`);
  const portProbe = healthProbe(`http://127.0.0.1:${HEALTH_PORT}/health`);
  const result = await autocannon({
    url: BASE, connections, duration, timeout: 60, ...(rate ? { overallRate: rate } : {}),
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
    requests: [{ method: 'POST', path, body: JSON.stringify(body) }],
  });
  const [health, healthPort] = await Promise.all([probe.stop(), portProbe.stop()]);
  const peak = memoryMb(pid, 'VmHWM');
  if (settleS > 0) await new Promise((r) => setTimeout(r, settleS * 1000));
  const after = settleS > 0 ? String(memoryMb(pid, 'VmRSS')) : '–';
  const secs = duration;
  const total = Object.values((result as unknown as { statusCodeStats?: Record<string, { count: number }> }).statusCodeStats ?? {}).reduce((n, s) => n + s.count, 0);
  return {
    result,
    row: {
      tree, row, 'answers/s': Math.round(total / secs), '2xx/s': Math.round(result['2xx'] / secs), 'p50 ms': result.latency.p50, 'p99 ms': result.latency.p99,
      statuses: statusMix(result), '/health p50/p99/max ms (failed)': probeText(health), 'health port p50/p99/max ms (failed)': probeText(healthPort),
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
    for (const [name, path, body, probeConns, conns1, conns4] of [
      ['single', '/v1/language-id', { text: SENTENCES[0], model: MODEL }, 64, 256, 1024],
      ['batch of 256', '/v1/language-id/batch', batch, 4, 16, 512],
    ] as const) {
      const cap = await measure(label, pid, `${name}: capacity (closed loop, ${probeConns} conns)`, path, body, probeConns, undefined, 5);
      rows.push(cap.row);
      const capacity = Math.max(1, cap.row['2xx/s']);
      for (const [times, conns] of [[1, conns1], [4, conns4]] as const) {
        rows.push((await measure(label, pid, `${name}: ${times}× = ${capacity * times} req/s offered, ${conns} conns`, path, body, conns, capacity * times, DURATION, times === 4 ? 45 : 0)).row);
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
console.log(`\nOverload, /v1/language-id, model ${MODEL}, ${DURATION} s per row (capacity probes 5 s), Node ${process.version}; latencies of every answer (2xx and refusals)`);
console.table(rows);
