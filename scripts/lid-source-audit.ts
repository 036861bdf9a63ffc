/**
 * Audits the language-ID training sources against an installed model: for every file of
 * `../shared/data/corpora/text/<label>/` with running text, the model's answers (coverage
 * mode, the service's answers) to the file's held-out lines (the last tenth of a parallel
 * source, as scripts/lid-data.ts holds them out; a seeded sample of 200 lines of any other
 * file), and the share answered with the file's label. A file the model mostly answers
 * as one other label, though the file trained the label, is text in that other language
 * or a source the label cannot be told from: read it before training on it.
 *
 * Usage: `npm run audit:lid [-- --model NAME] [--below 0.6]` (default lid-neural-608,
 * files whose share is under 0.6). Prints a Markdown table, worst first.
 * Reads ../shared/data/corpora only; never lid-eval.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createEngine } from '../services/capabilities/language-id/backends/lid-embedding-bag.ts';
import { modelAnswers } from './lid-answers.ts';
import { PARALLEL_SOURCE, WITHHELD, heldOutCount, lineLabel, shuffle, sourceLabel, sourceLines } from './lid-data.ts';
import { rng } from './rng.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const TEXT = join(ROOT, '..', 'shared', 'data', 'corpora', 'text');
const { values } = parseArgs({ options: { model: { type: 'string', default: 'lid-neural-608' }, below: { type: 'string', default: '0.6' } } });
const below = Number(values.below);
if (!(below >= 0 && below <= 1)) throw new Error(`--below must be in [0, 1], got ${values.below}`);
if (!existsSync(TEXT)) throw new Error(`${TEXT} not found`);

const engine = createEngine({ repository: join(ROOT, 'models'), executionProvider: 'cpu', intraOpThreads: 1 });
const rows: Array<{ file: string; label: string; lines: number; share: number; main: string; n: number }> = [];
for (const folder of readdirSync(TEXT, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort()) {
  for (const f of readdirSync(join(TEXT, folder)).filter((n) => n.endsWith('.txt') && !n.endsWith('.words.txt')).sort()) {
    const key = `${folder}/${f.slice(0, -4)}`;
    const label = sourceLabel(folder, key);
    if (label === null || Object.hasOwn(WITHHELD, label)) continue;
    const all = sourceLines(label, join(TEXT, folder, f));
    const lines = PARALLEL_SOURCE.test(f) ? all.slice(all.length - Math.max(1, heldOutCount(all.length))) : shuffle([...all], rng(7)).slice(0, 200);
    const answers = await modelAnswers(engine, values.model!, lines.map((l) => (l.length > 300 ? l.slice(0, 300) : l)), 'coverage');
    const wrong = new Map<string, number>();
    let right = 0;
    answers.forEach((a, i) => {
      if (a.label === lineLabel(label, lines[i]!)) right++;
      else wrong.set(a.label, (wrong.get(a.label) ?? 0) + 1);
    });
    const [main, n] = [...wrong].sort((a, b) => b[1] - a[1])[0] ?? ['–', 0];
    rows.push({ file: key, label, lines: lines.length, share: right / Math.max(1, lines.length), main, n });
  }
}
console.log(`${values.model}: ${rows.length} files; answered with their label under ${below}:\n`);
console.log('| file | trains | lines | share answered with it | main other answer |\n|---|---|---:|---:|---|');
for (const r of rows.filter((x) => x.share < below).sort((a, b) => a.share - b.share)) {
  console.log(`| ${r.file} | ${r.label} | ${r.lines} | ${(100 * r.share).toFixed(0)}% | ${r.main} (${r.n}) |`);
}
