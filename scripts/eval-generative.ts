/**
 * `npm run eval:generative -- --models DIR`: runs the project's labelled sets against the
 * generative models whose GGUF weights are in DIR (named `<model>.gguf`, as
 * MODEL_WEIGHTS_DIR expects) and prints their quality figures. Quality figures need real
 * weights, which this project does not ship; on the tiny test models (npm run models:tiny)
 * they are chance-level by construction. A model without weights is skipped.
 *
 * - Decisions (eval/decisions.jsonl, scripts/decide-set.ts): accuracy and expected
 *   calibration error (15 bins) per question type and per language, with the temperatures
 *   of the model's config.json.
 * - Extraction (eval/extraction.jsonl, scripts/extract-set.ts), both models: field-level
 *   precision, recall and F1 per document kind, and the ECE of field confidences.
 * - Question generation: passages in each of the 25 languages built from the held-out
 *   split of the language-ID training text (../shared/data/corpora, scripts/lid-data.ts;
 *   4 passages of 4 sentences per language where the corpora have the language): the share
 *   of questions lid-neural-608 reads as the passage's language, the share ending in a
 *   question mark, and failures.
 *
 * Options: --only decide|extract|questions; --passages N (per language, default 4);
 * --limit N (the first N cases and documents of each set: a quick run).
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { predictionsAt } from '../services/capabilities/decide/calibration.ts';
import { fieldEce } from '../services/capabilities/extract/calibration.ts';
import { createEngine as createQgEngine } from '../services/capabilities/questions/backends/llama-questions.ts';
import { createEngine as createLidEngine } from '../services/capabilities/language-id/backends/lid-embedding-bag.ts';
import { QG_LANGUAGES, findQgLanguage } from '../services/languages.ts';
import { accuracy, expectedCalibrationError } from '../services/lib/evaluation.ts';
import { closeLlm, openLlm } from '../services/llm/model.ts';
import { ModelRepository } from '../services/models/repository.ts';
import { readSet, scoreSet, type SetItem } from './decide-eval.ts';
import { answerSet, emptyScores, prf, readExtractionSet, scoreFields } from './extract-eval.ts';
import { loadTrainingText } from './lid-data.ts';

const { values } = parseArgs({ options: { models: { type: 'string' }, only: { type: 'string' }, passages: { type: 'string' }, limit: { type: 'string' } } });
const limit = values.limit ? Number(values.limit) : Infinity;
if (values.models) process.env.MODEL_WEIGHTS_DIR = values.models;
const root = process.env.MODEL_REPOSITORY ?? join(import.meta.dirname, '..', 'models');
const repo = new ModelRepository(root);
const threads = Number(process.env.INFERENCE_THREADS ?? 1);
const pct = (x: number) => +(100 * x).toFixed(1);
const want = (part: string) => !values.only || values.only === part;

if (want('decide')) await decisions();
if (want('extract')) for (const m of ['mist-extract-1.0', 'mist-extract-flash-1.0']) await extraction(m);
if (want('questions')) await questions();

async function decisions(): Promise<void> {
  const cfg = repo.config('purplemist-flash-1.0');
  if (!cfg) { console.log('decisions: purplemist-flash-1.0 has no weights; skipped'); return; }
  const data = join(import.meta.dirname, '..', 'eval', 'decisions.jsonl');
  const temps = (cfg.calibration ?? {}) as Record<string, number>;
  const llm = await openLlm(cfg, 1, threads);
  let items: SetItem[];
  try { items = await scoreSet(llm, readSet(data).slice(0, limit)); } finally { await closeLlm(llm); }
  // each item calibrated with its own type's temperature
  const row = (what: string, its: SetItem[]) => {
    const preds = its.map((it) => predictionsAt([it], temps[it.type] ?? 1)[0]!);
    return { set: what, decisions: its.length, 'accuracy %': pct(accuracy(preds)), 'ECE %': +(100 * expectedCalibrationError(preds)).toFixed(2) };
  };
  const rows = [row('all', items)];
  for (const t of ['choice', 'noul', 'score'] as const) rows.push(row(`type ${t}`, items.filter((it) => it.type === t)));
  for (const l of [...new Set(items.map((it) => it.language))]) rows.push(row(`language ${l}`, items.filter((it) => it.language === l)));
  console.log(`decisions: purplemist-flash-1.0 (${cfg.modelPath}) on ${data}, temperatures ${JSON.stringify(temps)}`);
  console.table(rows);
}

async function extraction(model: string): Promise<void> {
  const cfg = repo.config(model);
  if (!cfg) { console.log(`extraction: ${model} has no weights; skipped`); return; }
  const data = join(import.meta.dirname, '..', 'eval', 'extraction.jsonl');
  const answers = await answerSet(root, model, readExtractionSet(data).slice(0, limit), threads);
  const temperature = Number((cfg.calibration as { field?: number } | undefined)?.field ?? 1);
  const kinds = [...new Set(answers.map((a) => a.doc.kind))];
  const row = (what: string, as: typeof answers) => {
    const s = emptyScores();
    for (const a of as) if (!a.failed) scoreFields(a.doc.template, a.doc.labels, a.data, a.confidence, s);
    const { precision, recall, f1 } = prf(s);
    // confidences are already calibrated by the engine: measure them at T = 1
    return { set: what, documents: as.length, failed: as.filter((a) => a.failed).length, 'precision %': pct(precision), 'recall %': pct(recall), 'F1 %': pct(f1), 'ECE %': +(100 * fieldEce(s.predicted, 1)).toFixed(2) };
  };
  console.log(`extraction: ${model} (${cfg.modelPath}) on ${data}, field temperature ${temperature}`);
  console.table([row('all', answers), ...kinds.map((k) => row(k, answers.filter((a) => a.doc.kind === k)))]);
}

async function questions(): Promise<void> {
  const model = 'mist-qg-1.5b';
  if (!repo.config(model)) { console.log(`question generation: ${model} has no weights; skipped`); return; }
  const perLanguage = Number(values.passages ?? 4);
  const { pools } = loadTrainingText();
  const passages: Array<{ language: string; passage: string }> = [];
  for (const l of QG_LANGUAGES) {
    const lines = [...pools].filter(([label]) => findQgLanguage(label.split('_')[0]!)?.code === l.code).flatMap(([, p]) => p.heldOut).filter((s) => s.length >= 20);
    for (let k = 0; k < perLanguage && (k + 1) * 4 <= lines.length; k++) passages.push({ language: l.code, passage: lines.slice(k * 4, k * 4 + 4).join(' ') });
  }
  const qg = createQgEngine({ repository: root, executionProvider: 'cpu', intraOpThreads: threads });
  const lid = createLidEngine({ repository: root, executionProvider: 'cpu', intraOpThreads: threads });
  const stats = new Map<string, { passages: number; failed: number; questions: number; inLanguage: number; marked: number }>();
  try {
    for (let i = 0; i < passages.length; i += 4) {
      const batch = passages.slice(i, i + 4);
      const rs = await qg.run(model, batch.map((p) => ({ model, passage: p.passage, n: 3, language: p.language })));
      for (const [k, r] of rs.entries()) {
        const lang = batch[k]!.language;
        const s = stats.get(lang) ?? { passages: 0, failed: 0, questions: 0, inLanguage: 0, marked: 0 };
        stats.set(lang, s);
        s.passages++;
        if (!r.output) { s.failed++; continue; }
        const read = await lid.run('lid-neural-608', r.output.questions.map((text) => ({ text, model: 'lid-neural-608', mode: 'coverage' as const, topK: 1, candidates: null })));
        s.questions += r.output.questions.length;
        s.inLanguage += read.filter((x) => x.output && findQgLanguage(x.output.language)?.code === lang).length;
        s.marked += r.output.questions.filter((q) => /[?？؟፧]\s*$/u.test(q)).length;
      }
    }
  } finally {
    await qg.unload(model);
  }
  console.log(`question generation: ${model}, ${passages.length} passages of 4 held-out sentences, n = 3; languages the corpora lack are not listed`);
  console.table([...stats].map(([language, s]) => ({
    language, passages: s.passages, failed: s.failed, questions: s.questions,
    'in the passage\'s language %': pct(s.inLanguage / Math.max(1, s.questions)), 'end in a question mark %': pct(s.marked / Math.max(1, s.questions)),
  })));
}
