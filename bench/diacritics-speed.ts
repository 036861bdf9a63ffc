/**
 * `npm run bench:diacritics-speed [-- --baseline REF] [--runs N] [--models a,b]`: the
 * batch-64 pass of bench:diacritics (bench/diacritics-pool.ts: 64 held-out sentences of
 * 80–120 characters per language, without marks, in batches of 64 through the model's
 * own backend, one onnxruntime thread, timed for at least 3 s after a warm-up pass) for
 * each installed diacritization model, each run in a process of its own. With `--baseline REF` the runs
 * alternate between this checkout and REF's (bench/baseline.ts: code and models as
 * committed there), so that a change shows beside its baseline on the same machine even
 * where the machine's speed moves by a third from one run to the next: per model, the
 * median characters/s of each side and the median, least and greatest ratio of the pairs
 * (this checkout / baseline; above 1 is faster).
 *
 * `--pass MODEL --pool FILE` (internal): one process's pass over the pool this checkout
 * wrote (JSON requests); prints `{"charsPerSecond": n}`. The baseline tree runs copies of
 * this file and diacritics-pool.ts, which need the backends' engine interface
 * (services/capabilities/index.ts BACKENDS) as it is since 2026-11.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { checkoutBaseline } from './baseline.ts';
import { batchPass, speedPool } from './diacritics-pool.ts';
import type { DiacritizeOutput, DiacritizeRequest } from '../services/events/contract.ts';
import type { Engine, EngineContext } from '../services/workers/engines/types.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values: args } = parseArgs({
  options: { baseline: { type: 'string' }, runs: { type: 'string', default: '5' }, models: { type: 'string' }, pass: { type: 'string' }, pool: { type: 'string' } },
});

/** The speed pass ({@link batchPass}) of `name` over the pool's texts in this process: characters per second. */
async function pass(name: string, poolFile: string): Promise<number> {
  const { BACKENDS } = await import('../services/capabilities/index.ts');
  const { ModelRepository } = await import('../services/models/repository.ts');
  const repo = new ModelRepository(join(ROOT, 'models'));
  const cfg = repo.config(name);
  if (!cfg) throw new Error(`${name} is not installed in ${repo.root}`);
  const { createEngine } = (await import(BACKENDS[cfg.backend]!.module.href)) as { createEngine(ctx: EngineContext): Engine<DiacritizeRequest, DiacritizeOutput> };
  const engine = createEngine({ repository: repo.root, executionProvider: 'cpu', intraOpThreads: 1 });
  await engine.load(name);
  const pool = (JSON.parse(readFileSync(poolFile, 'utf8')) as DiacritizeRequest[]).map((r) => ({ ...r, model: name }));
  return batchPass(engine, name, pool);
}

/** Runs this file's pass for `name` in a new process in the tree `dir`. */
function passIn(dir: string, name: string, poolFile: string): number {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(dir, 'bench', 'diacritics-speed.ts'), '--pass', name, '--pool', poolFile], { cwd: dir, encoding: 'utf8', timeout: 600_000 });
  const line = r.stdout.trim().split('\n').pop() ?? '';
  if (r.status !== 0 || !line.startsWith('{')) throw new Error(`pass of ${name} in ${dir} failed (${r.status}): ${r.stderr.slice(-2000)}`);
  return (JSON.parse(line) as { charsPerSecond: number }).charsPerSecond;
}

const median = (xs: number[]): number => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2; };

if (args.pass) {
  console.log(JSON.stringify({ charsPerSecond: Math.round(await pass(args.pass, args.pool!)) }));
} else {
  const { capabilityModule } = await import('../services/capabilities/index.ts');
  const { ModelRepository } = await import('../services/models/repository.ts');
  const repo = new ModelRepository(join(ROOT, 'models'));
  const models = args.models ? args.models.split(',') : capabilityModule('diacritize').models.map((m) => m.name).filter((n) => repo.installed(n));
  const runs = Number(args.runs);
  // the pool, built here and read by both sides (the baseline tree has no corpora beside it)
  const { linesWithRole } = await import('../scripts/diacritics-data.ts');
  const poolDir = mkdtempSync(join(tmpdir(), 'diacritics-speed-'));
  const poolFile = join(poolDir, 'pool.json');
  writeFileSync(poolFile, JSON.stringify(speedPool('', (l) => linesWithRole(l, 'heldout').slice(0, 1000))));
  const base = args.baseline ? checkoutBaseline(args.baseline) : null;
  try {
    // the baseline runs this checkout's pass over its own code and models
    if (base) for (const f of ['diacritics-speed.ts', 'diacritics-pool.ts']) copyFileSync(join(ROOT, 'bench', f), join(base.dir, 'bench', f));
    console.log(`diacritization speed, batch-64 pass (characters/s, one onnxruntime thread, Node ${process.version}), ${runs} runs per side${base ? `, alternating with ${args.baseline}` : ''}`);
    const rows: Array<Record<string, string | number>> = [];
    for (const name of models) {
      const mine: number[] = []; const theirs: number[] = [];
      for (let i = 0; i < runs; i++) {
        mine.push(passIn(ROOT, name, poolFile));
        if (base) theirs.push(passIn(base.dir, name, poolFile));
      }
      const row: Record<string, string | number> = { model: name, 'this checkout (median)': Math.round(median(mine)), runs: mine.map(Math.round).join(' ') };
      if (base) {
        const ratios = mine.map((m, i) => m / theirs[i]!);
        Object.assign(row, { [`${args.baseline} (median)`]: Math.round(median(theirs)), 'baseline runs': theirs.map(Math.round).join(' '), 'ratio of pairs: median (least–greatest)': `${median(ratios).toFixed(3)} (${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)})` });
      }
      rows.push(row);
    }
    console.table(rows);
  } finally { base?.remove(); rmSync(poolDir, { recursive: true, force: true }); }
}
