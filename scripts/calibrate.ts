/**
 * `npm run calibrate -- --model NAME [--data FILE.jsonl] [--dry-run]`: fits a generative
 * model's calibration temperatures on a labelled set and writes them to its config.json
 * `calibration`. Items are split in two by position: the temperatures are fitted on the
 * even ones and accuracy and the expected calibration error (15 bins) are reported,
 * before and after, on the odd ones, so the figures are not measured on what was fitted.
 *
 * - A decision model (default set eval/decisions.jsonl): one temperature per question type
 *   (services/capabilities/decide/calibration.ts).
 * - An extraction model (default set eval/extraction.jsonl): the temperature of field
 *   confidences, fitted on whether each predicted value is right
 *   (services/capabilities/extract/calibration.ts).
 *
 * Reads MODEL_REPOSITORY (default ./models), MODEL_WEIGHTS_DIR, INFERENCE_THREADS.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { eceAt, fitTemperature, nll, predictionsAt } from '../services/capabilities/decide/calibration.ts';
import { fieldEce, fieldNll, fitFieldTemperature, type FieldOutcome } from '../services/capabilities/extract/calibration.ts';
import { accuracy } from '../services/lib/evaluation.ts';
import { closeLlm, openLlm } from '../services/llm/model.ts';
import { ModelRepository, type InstalledModel } from '../services/models/repository.ts';
import { readSet, scoreSet, type SetItem } from './decide-eval.ts';
import { answerSet, readExtractionSet, scoreFields } from './extract-eval.ts';

const { values } = parseArgs({ options: { model: { type: 'string' }, data: { type: 'string' }, 'dry-run': { type: 'boolean' } } });
const name = values.model ?? 'purplemist-flash-1.0';
const root = process.env.MODEL_REPOSITORY ?? join(import.meta.dirname, '..', 'models');
const cfg = new ModelRepository(root).config(name);
if (!cfg) {
  console.error(`model ${name} is not installed in ${root}: no weights file where its config.json "weights" point (set MODEL_WEIGHTS_DIR)`);
  process.exit(1);
}
const threads = Number(process.env.INFERENCE_THREADS ?? 1);
const evens = <T>(xs: readonly T[], odd: boolean) => xs.filter((_x, i) => i % 2 === (odd ? 1 : 0));

let calibration: Record<string, number>;
if (cfg.capability === 'decide') calibration = await decisions(cfg);
else if (cfg.capability === 'extract') calibration = await extraction(cfg);
else {
  console.error(`model ${name} is a ${cfg.capability} model; only decision and extraction models are calibrated`);
  process.exit(1);
}
if (values['dry-run']) {
  console.log('dry run: config.json not changed');
} else {
  const file = join(cfg.dir, 'config.json');
  const raw = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  writeFileSync(file, `${JSON.stringify({ ...raw, calibration }, null, 2)}\n`);
  console.log(`wrote calibration ${JSON.stringify(calibration)} to ${file}`);
}

async function decisions(model: InstalledModel): Promise<Record<string, number>> {
  const data = values.data ?? join(import.meta.dirname, '..', 'eval', 'decisions.jsonl');
  const cases = readSet(data);
  const llm = await openLlm(model, 1, threads);
  let items: SetItem[];
  try {
    items = await scoreSet(llm, cases, (n) => { if (n % 20 === 0) process.stderr.write(`scored ${n}/${cases.length} cases\n`); });
  } finally {
    await closeLlm(llm);
  }
  const index = new Map(cases.map((c, i) => [c.id, i]));
  const fit = items.filter((it) => index.get(it.case)! % 2 === 0);
  const held = items.filter((it) => index.get(it.case)! % 2 === 1);
  const out: Record<string, number> = {};
  const rows = [];
  for (const type of ['choice', 'noul', 'score'] as const) {
    const f = fit.filter((it) => it.type === type), h = held.filter((it) => it.type === type);
    const fitted = +fitTemperature(f).toFixed(3);
    const t = nll(h, fitted) <= nll(h, 1) ? fitted : 1;
    out[type] = t;
    rows.push({
      type, 'fit items': f.length, 'held-out items': h.length, fitted, written: t,
      'accuracy %': +(100 * accuracy(predictionsAt(h, 1))).toFixed(1),
      'ECE before %': +(100 * eceAt(h, 1)).toFixed(2), 'ECE after %': +(100 * eceAt(h, t)).toFixed(2),
      'NLL before': +nll(h, 1).toFixed(4), 'NLL after': +nll(h, t).toFixed(4),
    });
  }
  console.log(`${name} on ${data}: ${cases.length} cases, ${items.length} decisions (fitted on the even cases, measured on the odd)`);
  console.table(rows);
  return out;
}

async function extraction(model: InstalledModel): Promise<Record<string, number>> {
  const data = values.data ?? join(import.meta.dirname, '..', 'eval', 'extraction.jsonl');
  const docs = readExtractionSet(data);
  // the engine applies the configured temperature; c^T undoes it (c' = c^(1/T))
  const current = Number((model.calibration as { field?: number } | undefined)?.field ?? 1);
  const answers = await answerSet(root, name, docs, threads);
  const outcomes = (odd: boolean): FieldOutcome[] => evens(answers, odd).flatMap((a) => (a.failed ? [] : scoreFields(a.doc.template, a.doc.labels, a.data, a.confidence).predicted))
    .map((o) => ({ confidence: Math.pow(o.confidence, current), correct: o.correct }));
  const fit = outcomes(false), held = outcomes(true);
  const fitted = +fitFieldTemperature(fit).toFixed(3);
  const t = fieldNll(held, fitted) <= fieldNll(held, 1) ? fitted : 1;
  console.log(`${name} on ${data}: ${docs.length} documents, ${fit.length + held.length} predicted values (fitted on the even documents, measured on the odd)`);
  console.table([{
    'fit values': fit.length, 'held-out values': held.length, fitted, written: t,
    'right %': +(100 * held.filter((o) => o.correct).length / Math.max(1, held.length)).toFixed(1),
    'ECE before %': +(100 * fieldEce(held, 1)).toFixed(2), 'ECE after %': +(100 * fieldEce(held, t)).toFixed(2),
    'NLL before': +fieldNll(held, 1).toFixed(4), 'NLL after': +fieldNll(held, t).toFixed(4),
  }]);
  return { field: t };
}
