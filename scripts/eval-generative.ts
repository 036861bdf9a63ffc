/**
 * `npm run eval:generative -- --models DIR`: runs the project's labelled sets against the
 * generative models whose GGUF weights are in DIR (named `<model>.gguf`, as
 * MODEL_WEIGHTS_DIR expects) and prints their quality figures. Quality figures need real
 * weights, which this project does not ship; on the tiny test models (npm run models:tiny)
 * they are chance-level by construction.
 *
 * - Decisions (eval/decisions.jsonl, scripts/decide-set.ts): accuracy per question type
 *   and per language, and expected calibration error (15 bins) with the temperatures in
 *   the model's config.json (fit them with `npm run calibrate`).
 * - Extraction and question generation: their labelled sets are not written yet (issue 15).
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { predictionsAt } from '../services/capabilities/decide/calibration.ts';
import { accuracy, expectedCalibrationError } from '../services/lib/evaluation.ts';
import { closeLlm, openLlm } from '../services/llm/model.ts';
import { ModelRepository } from '../services/models/repository.ts';
import { readSet, scoreSet, type SetItem } from './decide-eval.ts';

const { values } = parseArgs({ options: { models: { type: 'string' }, data: { type: 'string' } } });
if (values.models) process.env.MODEL_WEIGHTS_DIR = values.models;
const repo = new ModelRepository(process.env.MODEL_REPOSITORY ?? join(import.meta.dirname, '..', 'models'));
const data = values.data ?? join(import.meta.dirname, '..', 'eval', 'decisions.jsonl');

const cfg = repo.config('purplemist-flash-1.0');
if (!cfg) {
  console.log('decisions: purplemist-flash-1.0 has no weights (give --models DIR holding purplemist-flash-1.0.gguf); skipped');
} else {
  const cases = readSet(data);
  const temps = (cfg.calibration ?? {}) as Record<string, number>;
  const llm = await openLlm(cfg, 1, Number(process.env.INFERENCE_THREADS ?? 1));
  let items: SetItem[];
  try { items = await scoreSet(llm, cases); } finally { await closeLlm(llm); }
  // each item calibrated with its own type's temperature
  const row = (what: string, its: SetItem[]) => {
    const preds = its.map((it) => predictionsAt([it], temps[it.type] ?? 1)[0]!);
    return { set: what, decisions: its.length, 'accuracy %': +(100 * accuracy(preds)).toFixed(1), 'ECE %': +(100 * expectedCalibrationError(preds)).toFixed(2) };
  };
  const rows = [row('all', items)];
  for (const t of ['choice', 'noul', 'score'] as const) rows.push(row(`type ${t}`, items.filter((it) => it.type === t)));
  for (const l of [...new Set(items.map((it) => it.language))]) rows.push(row(`language ${l}`, items.filter((it) => it.language === l)));
  console.log(`decisions: purplemist-flash-1.0 (${cfg.modelPath}) on ${data}, temperatures ${JSON.stringify(temps)}`);
  console.table(rows);
}
console.log('extraction, question generation: no labelled sets yet (issue 15)');
