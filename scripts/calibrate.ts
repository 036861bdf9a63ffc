/**
 * `npm run calibrate -- --model NAME --data FILE.jsonl [--dry-run]`: fits a decision
 * model's temperatures, one per question type (services/capabilities/decide/
 * calibration.ts), on a labelled set (default eval/decisions.jsonl), and writes them to
 * the model's config.json `calibration`. Cases are split in two by position: the
 * temperatures are fitted on the even cases and the expected calibration error (15 bins)
 * and accuracy are reported, before and after, on the odd ones, so the figures are not
 * measured on what was fitted.
 *
 * Reads MODEL_REPOSITORY (default ./models), MODEL_WEIGHTS_DIR, INFERENCE_THREADS.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { eceAt, fitTemperature, nll, predictionsAt } from '../services/capabilities/decide/calibration.ts';
import { accuracy } from '../services/lib/evaluation.ts';
import { closeLlm, openLlm } from '../services/llm/model.ts';
import { ModelRepository } from '../services/models/repository.ts';
import { readSet, scoreSet, type SetItem } from './decide-eval.ts';

const { values } = parseArgs({ options: { model: { type: 'string' }, data: { type: 'string' }, 'dry-run': { type: 'boolean' } } });
const name = values.model ?? 'purplemist-flash-1.0';
const data = values.data ?? join(import.meta.dirname, '..', 'eval', 'decisions.jsonl');
const repo = new ModelRepository(process.env.MODEL_REPOSITORY ?? join(import.meta.dirname, '..', 'models'));
const cfg = repo.config(name);
if (!cfg) {
  console.error(`model ${name} is not installed in ${repo.root}: no weights file where its config.json "weights" point (set MODEL_WEIGHTS_DIR)`);
  process.exit(1);
}
if (cfg.capability !== 'decide') {
  console.error(`model ${name} is a ${cfg.capability} model, not a decision model`);
  process.exit(1);
}

const cases = readSet(data);
const llm = await openLlm(cfg, 1, Number(process.env.INFERENCE_THREADS ?? 1));
let items: SetItem[];
try {
  items = await scoreSet(llm, cases, (n) => { if (n % 20 === 0) process.stderr.write(`scored ${n}/${cases.length} cases\n`); });
} finally {
  await closeLlm(llm);
}
const index = new Map(cases.map((c, i) => [c.id, i]));
const fit = items.filter((it) => index.get(it.case)! % 2 === 0);
const held = items.filter((it) => index.get(it.case)! % 2 === 1);

const calibration: Record<string, number> = {};
const rows = [];
for (const type of ['choice', 'noul', 'score'] as const) {
  const f = fit.filter((it) => it.type === type), h = held.filter((it) => it.type === type);
  const t = +fitTemperature(f).toFixed(3);
  calibration[type] = t;
  rows.push({
    type, 'fit items': f.length, 'held-out items': h.length, temperature: t,
    'accuracy %': +(100 * accuracy(predictionsAt(h, 1))).toFixed(1),
    'ECE before %': +(100 * eceAt(h, 1)).toFixed(2), 'ECE after %': +(100 * eceAt(h, t)).toFixed(2),
    'NLL before': +nll(h, 1).toFixed(4), 'NLL after': +nll(h, t).toFixed(4),
  });
}
console.log(`${name} on ${data}: ${cases.length} cases, ${items.length} decisions (fitted on the even cases, measured on the odd)`);
console.table(rows);
if (values['dry-run']) {
  console.log('dry run: config.json not changed');
} else {
  const file = join(cfg.dir, 'config.json');
  const raw = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  writeFileSync(file, `${JSON.stringify({ ...raw, calibration }, null, 2)}\n`);
  console.log(`wrote calibration ${JSON.stringify(calibration)} to ${file}`);
}
