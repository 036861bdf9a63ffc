/**
 * What the garbage collector does with short-lived objects, per V8 isolate, from V8's
 * `--trace-gc-nvp` lines (one per collection) under the services' node flags
 * (services/node-flags.ts). Three runs, each a child process:
 * - `spread`: 6 s of 192 answers a millisecond built as `{ ...answer, text }` and dropped
 *   (the language-ID engine's item outputs until issue 17's seventh session);
 * - `literal`: the same answers written out field by field (what the engine does now:
 *   services/capabilities/language-id/backends/lid-embedding-bag.ts `itemOutput`);
 * - `engine`: the language-ID engine on its inference thread (services/workers/inference-pool.ts),
 *   300 micro-batches of 64 texts a second for 8 s, as the embedded service runs it.
 * Each child switches the trace on after 3 s of warm-up (the model's loading and the first
 * compilations promote what they keep, and that is not what is measured), as Node's
 * `v8.setFlagsFromString` documentation does with `--trace_gc`.
 * Printed per isolate: scavenges, MB promoted by them, mark-compacts, and the collections'
 * milliseconds (pauses, incremental steps and V8's helper threads' work; CPU time, not
 * wall time). On Node 20 (V8 11.3) the `spread` run promotes nearly every answer and
 * runs mark-compacts; on Node 22 and 24 neither run does. Usage: `npm run bench:gc`.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { NODE_FLAGS } from '../services/node-flags.ts';

type Mode = 'spread' | 'literal' | 'engine';
/** Run before the trace is switched on, ms. */
const WARM_UP_MS = 3000;
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** 192 answers a millisecond for `ms`, built as `mode` says and dropped. */
async function answers(mode: 'spread' | 'literal', ms: number): Promise<void> {
  const make = (i: number) => ({ language: 'eng', script: 'Latn', label: 'eng_Latn', languageName: 'English', confidence: i / 1e6, top: [{ label: 'eng_Latn', language: 'eng', score: 0.9 }], warnings: [] as string[] });
  const t0 = Date.now();
  let made = 0, tracing = false;
  while (Date.now() - t0 < ms + WARM_UP_MS) {
    if (!tracing && Date.now() - t0 >= WARM_UP_MS) { setFlagsFromString('--trace-gc-nvp'); tracing = true; made = 0; }
    const out: unknown[] = [];
    for (let i = 0; i < 192; i++) {
      const a = make(i);
      out.push(mode === 'spread'
        ? { output: { ...a, text: null }, failure: null }
        : { output: { language: a.language, script: a.script, label: a.label, languageName: a.languageName, confidence: a.confidence, top: a.top, warnings: a.warnings, text: null }, failure: null });
    }
    made += out.length;
    await new Promise((r) => setTimeout(r, 1));
  }
  process.stderr.write(`answers ${made}\n`);
}

/** `rate` micro-batches of 64 texts a second through one inference thread for `ms`. */
async function engine(rate: number, ms: number): Promise<void> {
  const { default: pino } = await import('pino');
  const { InferencePool } = await import('../services/workers/inference-pool.ts');
  const { BACKENDS, resultSchemaOf } = await import('../services/capabilities/index.ts');
  const texts = readFileSync(new URL('../test/fixtures/lid-sentences.tsv', import.meta.url), 'utf8').trim().split('\n').map((l) => l.split('\t')[1]!);
  const pool = new InferencePool(BACKENDS['lid-embedding-bag']!.module, { repository: fileURLToPath(new URL('../models', import.meta.url)), executionProvider: 'cpu', intraOpThreads: 1 },
    1, pino({ level: 'warn' }), resultSchemaOf('language-id'));
  await pool.load('lid-neural-608');
  let k = 0, done = 0;
  const batch = () => Array.from({ length: 64 }, () => ({ text: texts[k++ % texts.length]!, model: 'lid-neural-608', mode: 'traffic', topK: 3, candidates: null }));
  const t0 = Date.now();
  let sent = 0;
  await new Promise<void>((resolve) => {
    const total = rate * (ms + WARM_UP_MS) / 1000;
    let tracing = false;
    const timer = setInterval(() => {
      if (!tracing && Date.now() - t0 >= WARM_UP_MS) { setFlagsFromString('--trace-gc-nvp'); tracing = true; }
      const due = Math.min(total, Math.floor((Date.now() - t0) * rate / 1000));
      for (; sent < due; sent++) void pool.run('lid-neural-608', batch()).then(() => { done++; });
      if (sent >= total) { clearInterval(timer); resolve(); }
    }, 10);
  });
  while (done < sent) await new Promise((r) => setTimeout(r, 10));
  process.stderr.write(`micro-batches ${done} (${rate * WARM_UP_MS / 1000} of them before the trace)\n`);
  await pool.terminate();
}

interface IsolateGc { scavenges: number; promotedMb: number; markCompacts: number; gcMs: number; }

/** Sums `--trace-gc-nvp` lines per isolate. */
function summarise(trace: string): Map<string, IsolateGc> {
  const out = new Map<string, IsolateGc>();
  for (const line of trace.split('\n')) {
    const m = /^\[\d+:(0x[0-9a-f]+)(?::\d+)?\]\s+\d+ ms: pause=([\d.]+) .*?gc=(\w+)/.exec(line);
    if (!m) continue;
    const f = Object.fromEntries([...line.matchAll(/([\w.]+)=([\d.]+)/g)].map((x) => [x[1]!, Number(x[2])]));
    const background = Object.entries(f).filter(([k]) => k.startsWith('background.')).reduce((s, [, v]) => s + v, 0);
    const s = out.get(m[1]!) ?? { scavenges: 0, promotedMb: 0, markCompacts: 0, gcMs: 0 };
    if (m[3] === 's') { s.scavenges++; s.promotedMb += (f.promoted ?? 0) / 1e6; s.gcMs += Number(m[2]) + background; }
    else { s.markCompacts++; s.gcMs += Number(m[2]) + (f.incremental ?? 0) + background; }
    out.set(m[1]!, s);
  }
  return out;
}

/** Runs one mode in a child process and prints its isolates' figures. */
async function run(mode: Mode): Promise<void> {
  const child = spawn(process.execPath, [...NODE_FLAGS, '--import', 'tsx', fileURLToPath(import.meta.url), mode], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '', err = '';
  child.stdout.on('data', (d: Buffer) => { out += String(d); });
  child.stderr.on('data', (d: Buffer) => { err += String(d); });
  const code = await new Promise<number | null>((r) => child.on('exit', r));
  if (code !== 0) throw new Error(`${mode} exited with ${code}: ${err.slice(-2000)}`);
  for (const [isolate, s] of summarise(out)) {
    if (s.scavenges + s.markCompacts < 3) continue; // isolates that hardly ran (tsx's loader thread)
    console.log(`${mode.padEnd(8)} ${isolate.padEnd(16)} scavenges ${String(s.scavenges).padStart(4)}  promoted ${s.promotedMb.toFixed(1).padStart(6)} MB  mark-compacts ${String(s.markCompacts).padStart(3)}  gc ${Math.round(s.gcMs).toString().padStart(5)} ms`);
  }
  console.log(`${mode.padEnd(8)} ${err.trim().split('\n').filter((l) => /^(answers|micro-batches) /.test(l)).join(', ')}`);
}

const mode = process.argv[2] as Mode | undefined;
if (mode === 'spread' || mode === 'literal') await answers(mode, 6000);
else if (mode === 'engine') await engine(300, 8000);
else {
  console.log(`Node ${process.version}, flags ${NODE_FLAGS.join(' ')}`);
  for (const m of ['spread', 'literal', 'engine'] as const) await run(m);
}
