/**
 * `npm run train:diacnet -- --name diacnet-mini-2.0 [--hidden 96] [--dilations 1,2,4,8,1,2] [--feature-dim 16] [--batch 128] [--device gpu|cpu] [--minutes 5.5 | --steps N] [--out models/] [--python python3]`
 * (defaults: the model's recipe, scripts/diacnet-recipes.ts):
 * builds a diacnet model in five steps: the training data (scripts/diacnet-data.ts),
 * training (scripts/train_diacnet.py: NumPy on the CPU, Debian python3-numpy, or CuPy on
 * an NVIDIA GPU; the committed recipes name the GPU, `--device cpu` trains on the CPU), the ONNX model
 * folder (scripts/diacnet-onnx.ts), the word lexicon and trigram language model with the
 * word-class model and the spelling model (scripts/word-lm.ts, with the Hunspell lexicons of `--hunspell`,
 * default all five) and the
 * settings of the word-level rescoring per language, chosen on the news development set
 * (scripts/tune-word-lm.ts). `--word-lm-only` (npm run train:word-lm) keeps the
 * model's network and rebuilds and retunes only its word model. `--max-lines N` takes at most N training lines per
 * language (tests build tiny models with it); `--corpora DIR` reads another corpora folder
 * of the same layout (tests write a small one).
 * @throws Error when a step fails
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DIACNET_RECIPES } from './diacnet-recipes.ts';

const { values: a } = parseArgs({
  options: {
    name: { type: 'string' }, hidden: { type: 'string' }, dilations: { type: 'string' },
    minutes: { type: 'string' }, steps: { type: 'string', default: '0' }, python: { type: 'string', default: '/usr/bin/python3' }, out: { type: 'string' }, 'max-lines': { type: 'string' }, seed: { type: 'string', default: '13' },
    'feature-dim': { type: 'string' }, batch: { type: 'string' }, device: { type: 'string' }, corpora: { type: 'string' }, hunspell: { type: 'string' }, 'word-lm-only': { type: 'boolean', default: false },
  },
});
if (!a.name) throw new Error('--name is required (diacnet-2.0 or diacnet-mini-2.0)');
// the model's recipe (scripts/diacnet-recipes.ts) gives the defaults; a name without one, the mini design for 10 minutes
const recipe = DIACNET_RECIPES[a.name] ?? { ...DIACNET_RECIPES['diacnet-mini-2.0']!, minutes: 10 };
a.hidden ??= String(recipe.hidden); a.dilations ??= recipe.dilations; a['feature-dim'] ??= String(recipe.featureDim); a.minutes ??= String(recipe.minutes);
a.batch ??= String(recipe.batch); a.device ??= recipe.device;
const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'diacnet-'));
function run(cmd: string, args: string[]): void {
  const r = spawnSync(cmd, args, { stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status})`);
}
if (!a['word-lm-only']) {
  run(process.execPath, ['--max-old-space-size=12000', '--import', 'tsx', here('./diacnet-data.ts'), '--out', join(work, 'data'), ...(a['max-lines'] ? ['--max-lines', a['max-lines']] : []), ...(a.corpora ? ['--corpora', a.corpora] : [])]);
  run(a.python!, [here('./train_diacnet.py'), '--steps', a.steps!, '--data', join(work, 'data'), '--out', join(work, 'weights'), '--hidden', a.hidden!, '--dilations', a.dilations!, '--minutes', a.minutes!, '--seed', a.seed!, '--feature-dim', a['feature-dim']!, '--batch', a.batch!, '--device', a.device!]);
  run(process.execPath, ['--import', 'tsx', here('./diacnet-onnx.ts'), '--weights', join(work, 'weights'), '--data', join(work, 'data'), '--name', a.name, ...(a.out ? ['--out', a.out] : [])]);
}
const repo = a.out ?? fileURLToPath(new URL('../models/', import.meta.url));
const corpora = a.corpora ? ['--corpora', a.corpora] : [];
run(process.execPath, ['--max-old-space-size=16000', '--import', 'tsx', here('./word-lm.ts'), '--out', join(repo, a.name, 'word-lm.bin'), '--class-out', join(repo, a.name, 'class-lm.bin'), '--spelling-out', join(repo, a.name, 'spelling-lm.bin'), ...corpora, ...(a['max-lines'] ? ['--max-lines', a['max-lines']] : []), ...(a.hunspell !== undefined ? ['--hunspell', a.hunspell] : [])]);
run(process.execPath, ['--max-old-space-size=8000', '--import', 'tsx', here('./tune-word-lm.ts'), '--repo', repo, '--name', a.name, '--file', 'word-lm.bin', '--class-file', 'class-lm.bin', '--spelling-file', 'spelling-lm.bin', '--write', ...corpora]);
