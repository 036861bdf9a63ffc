/**
 * `npm run train:diacnet -- --name diacnet-mini-2.0 [--hidden 64] [--dilations 1,2,4,8] [--feature-dim 16] [--minutes 10] [--out models/]`:
 * builds a diacnet model in three steps: the training data (scripts/diacnet-data.ts),
 * training with NumPy (scripts/train_diacnet.py; Debian python3-numpy) and the ONNX model
 * folder (scripts/diacnet-onnx.ts). `--max-lines N` takes at most N training lines per
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

const { values: a } = parseArgs({
  options: {
    name: { type: 'string' }, hidden: { type: 'string', default: '64' }, dilations: { type: 'string', default: '1,2,4,8' },
    minutes: { type: 'string', default: '10' }, out: { type: 'string' }, 'max-lines': { type: 'string' }, seed: { type: 'string', default: '13' },
    'feature-dim': { type: 'string', default: '16' }, corpora: { type: 'string' },
  },
});
if (!a.name) throw new Error('--name is required (diacnet-2.0 or diacnet-mini-2.0)');
const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'diacnet-'));
function run(cmd: string, args: string[]): void {
  const r = spawnSync(cmd, args, { stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status})`);
}
run(process.execPath, ['--max-old-space-size=12000', '--import', 'tsx', here('./diacnet-data.ts'), '--out', join(work, 'data'), ...(a['max-lines'] ? ['--max-lines', a['max-lines']] : []), ...(a.corpora ? ['--corpora', a.corpora] : [])]);
run('/usr/bin/python3', [here('./train_diacnet.py'), '--data', join(work, 'data'), '--out', join(work, 'weights'), '--hidden', a.hidden!, '--dilations', a.dilations!, '--minutes', a.minutes!, '--seed', a.seed!, '--feature-dim', a['feature-dim']!]);
run(process.execPath, ['--import', 'tsx', here('./diacnet-onnx.ts'), '--weights', join(work, 'weights'), '--data', join(work, 'data'), '--name', a.name, ...(a.out ? ['--out', a.out] : [])]);
