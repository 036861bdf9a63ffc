/**
 * `npm run bench:first-request [-- --baseline REF]`: what a newcomer's first requests meet
 * (issue 36). Embedded mode as `npm start` runs it (services/main.ts, default settings, so
 * MODEL_PRELOAD=default): ms from spawn to `GET /health` 200 and to `GET /ready` 200, then
 * the first `POST /v1/diacritize` (default model diacnet-2.0, Vietnamese) and the first
 * `POST /v1/language-id` (lid-neural-608) after ready, beside the median of the next 20 of
 * each, BENCH_RUNS processes each (default 3; median of the runs printed). With
 * `--baseline REF` the same runs go first against REF (bench/baseline.ts), so the figures
 * sit beside a baseline from the same machine.
 */
import './tmp.ts'; // temporary files in a folder of the run's own, removed at exit
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { freePort } from '../test/helpers/processes.ts';
import { checkoutBaseline } from './baseline.ts';
import { NODE_FLAGS } from '../services/node-flags.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const NEXT = 20;
const { values: args } = parseArgs({ options: { baseline: { type: 'string' } } });

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Polls `url` every 20 ms until it answers `status`; ms since `t0`. @throws Error after 120 s */
async function until(url: string, status: number, t0: number): Promise<number> {
  for (;;) {
    if (performance.now() - t0 > 120_000) throw new Error(`${url} did not answer ${status} within 120 s`);
    try { if ((await fetch(url)).status === status) return performance.now() - t0; } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** ms of one POST, answered 200. @throws Error on another status */
async function timed(url: string, body: unknown): Promise<number> {
  const t0 = performance.now();
  const r = await fetch(url, { method: 'POST', headers: { authorization: 'Bearer k', 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await r.arrayBuffer();
  if (r.status !== 200) throw new Error(`${url}: ${r.status}`);
  return performance.now() - t0;
}

const ROUTES = [
  ['/v1/diacritize', { text: 'Toi muon mot ly ca phe sua da va mot to pho bo tai', language: 'vi' }],
  ['/v1/language-id', { text: 'Habari za asubuhi, rafiki yangu' }],
] as const;

/** One process: its start and its first requests. */
async function once(tree: string): Promise<Record<string, number>> {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(process.execPath, [...NODE_FLAGS, '--import', 'tsx', join(tree, 'services/main.ts')], {
    cwd: tree, env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', API_KEYS: 'k', LOG_LEVEL: 'warn', DATA_DIR: mkdtempSync(join(tmpdir(), 'bench-first-')) }, stdio: 'ignore',
  });
  try {
    const base = `http://127.0.0.1:${port}`;
    const out: Record<string, number> = { health: await until(`${base}/health`, 200, t0) };
    out.ready = await until(`${base}/ready`, 200, t0);
    for (const [path, body] of ROUTES) {
      out[`${path} first`] = await timed(`${base}${path}`, body);
      const next: number[] = [];
      for (let i = 0; i < NEXT; i++) next.push(await timed(`${base}${path}`, body));
      out[`${path} next`] = median(next);
    }
    return out;
  } finally {
    child.kill('SIGKILL');
  }
}

const rows: Array<Record<string, string>> = [];
async function measure(label: string, tree: string): Promise<void> {
  const runs: Array<Record<string, number>> = [];
  for (let i = 0; i < RUNS; i++) runs.push(await once(tree));
  const m = (k: string) => median(runs.map((r) => r[k]!));
  rows.push({
    tree: label, 'to /health s': (m('health') / 1000).toFixed(2), 'to /ready s': (m('ready') / 1000).toFixed(2),
    ...Object.fromEntries(ROUTES.flatMap(([path]) => [[`${path} first ms`, m(`${path} first`).toFixed(1)], [`${path} next ${NEXT} (median) ms`, m(`${path} next`).toFixed(1)]])),
  });
}

if (args.baseline) {
  const b = checkoutBaseline(args.baseline);
  try { await measure(`baseline ${args.baseline}`, b.dir); } finally { b.remove(); }
}
await measure('this tree', ROOT);
console.log(`\nembedded npm start, default settings: spawn to /health and /ready 200, then the first request and the median of the next ${NEXT}; median of ${RUNS} processes, Node ${process.version}`);
console.table(rows);
