/**
 * The held-out figures of the installed language-ID models as the service answers
 * (first stage, then the second stage of confusable clusters): accuracy, macro-F1 and
 * ECE (15 bins) per held-out set, and every label under 90% on held-out sentences with its
 * main confusion, as a Markdown table for README.md and the targets.
 *
 * Usage: `npm run report:lid [-- --repo DIR]` (default: models/ of this checkout).
 * Reads the training text's held-out split (scripts/lid-data.ts); never lid-eval.
 */
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { heldOutTexts, HELD_OUT_SETS, loadTrainingText } from './lid-data.ts';
import { createEngine } from '../services/capabilities/language-id/backends/lid-embedding-bag.ts';
import { accuracy, expectedCalibrationError, macroF1, type Prediction } from '../services/capabilities/language-id/evaluation.ts';

const { values } = parseArgs({ options: { repo: { type: 'string' } } });
const repo = values.repo ?? join(dirname(fileURLToPath(import.meta.url)), '..', 'models');
const { pools } = loadTrainingText();
const held = heldOutTexts(pools);
const engine = createEngine({ repository: repo, executionProvider: 'cpu', intraOpThreads: 1 });

for (const model of ['lid-neural-608', 'lid-lite-608']) {
  const preds: Prediction[] = [];
  for (let i = 0; i < held.length; i += 256) {
    const batch = held.slice(i, i + 256);
    const out = await engine.run(model, batch.map((h) => ({ text: h.text, model, mode: 'coverage' as const, topK: 1, candidates: null })));
    out.forEach((o, k) => preds.push({ gold: batch[k]!.label, predicted: o.output!.label, confidence: o.output!.confidence }));
  }
  console.log(`\n## ${model}: held-out split, coverage mode, the service's answers\n`);
  console.log('| set | texts | accuracy | macro-F1 | ECE (15 bins) |\n|---|---:|---:|---:|---:|');
  for (const [set] of HELD_OUT_SETS) {
    const p = preds.filter((_, i) => held[i]!.set === set);
    console.log(`| ${set} | ${p.length} | ${(100 * accuracy(p)).toFixed(1)}% | ${(100 * macroF1(p)).toFixed(1)} | ${(100 * expectedCalibrationError(p)).toFixed(1)}% |`);
  }
  const sentences = preds.filter((_, i) => held[i]!.set === 'sentences');
  const byLabel = new Map<string, Prediction[]>();
  for (const p of sentences) byLabel.set(p.gold, [...(byLabel.get(p.gold) ?? []), p]);
  const low = [...byLabel].map(([label, ps]) => {
    const wrong = new Map<string, number>();
    for (const p of ps) if (p.predicted !== label) wrong.set(p.predicted, (wrong.get(p.predicted) ?? 0) + 1);
    const [main, n] = [...wrong].sort((a, b) => b[1] - a[1])[0] ?? ['', 0];
    return { label, acc: accuracy(ps), texts: ps.length, main, n };
  }).filter((x) => x.acc < 0.9).sort((a, b) => a.acc - b.acc);
  console.log(`\nLabels under 90% on held-out sentences: ${low.length} of ${byLabel.size}\n\n| label | sentences | accuracy | main confusion |\n|---|---:|---:|---|`);
  for (const x of low) console.log(`| ${x.label} | ${x.texts} | ${(100 * x.acc).toFixed(0)}% | ${x.main} (${x.n}) |`);
}
