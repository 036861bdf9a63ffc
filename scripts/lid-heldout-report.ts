/**
 * The held-out figures of the installed language-ID models as the service answers
 * (first stage, the second stage of confusable clusters, the word-frequency stage): accuracy, macro-F1 and
 * ECE (15 bins) per held-out set and on the news development set (the held-out documents
 * of NTREX-128, scripts/lid-data.ts newsDevTexts; and one word and one word pair of each of its
 * sentences, newsDevShortTexts) with its labels under 90%, every label under 90% on held-out sentences with its
 * main confusion, and the labels known from word lists only with their held-out words, as
 * Markdown tables for docs/language-id.md and the issue's targets. With `--cards`, each
 * model card gets (replaces) a section with every label's held-out score and one with
 * every label's news development score.
 *
 * Usage: `npm run report:lid [-- --repo DIR] [--cards]` (default: models/ of this checkout).
 * Reads the training text's held-out split (scripts/lid-data.ts); never lid-eval.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { heldOutTexts, HELD_OUT_SETS, loadTrainingText, newsDevShortTexts, newsDevTexts } from './lid-data.ts';
import { replaceCardSection } from './model-card.ts';
import { modelAnswers } from './lid-answers.ts';
import { createEngine } from '../services/capabilities/language-id/backends/lid-embedding-bag.ts';
import { accuracy, expectedCalibrationError, macroF1, type Prediction } from '../services/capabilities/language-id/evaluation.ts';

/** Headings of the model card's sections written by `--cards` (replaced on each run). */
const CARD_SECTION = '## Held-out score per label';
const NEWS_SECTION = '## News development set per label';


const { values } = parseArgs({ options: { repo: { type: 'string' }, cards: { type: 'boolean', default: false } } });
const repo = values.repo ?? join(dirname(fileURLToPath(import.meta.url)), '..', 'models');
const { pools } = loadTrainingText();
const held = heldOutTexts(pools);
const news = newsDevTexts(pools);
const newsShort = newsDevShortTexts(pools);
const engine = createEngine({ repository: repo, executionProvider: 'cpu', intraOpThreads: 1 });

/** A label's score on one held-out set: accuracy and its most frequent wrong answer. */
interface LabelScore { label: string; set: string; texts: number; acc: number; main: string; n: number; }
function scoresOf(preds: Prediction[], set: string): LabelScore[] {
  const byLabel = new Map<string, Prediction[]>();
  for (const p of preds) {
    const ps = byLabel.get(p.gold);
    if (ps) ps.push(p); else byLabel.set(p.gold, [p]);
  }
  return [...byLabel].map(([label, ps]) => {
    const wrong = new Map<string, number>();
    for (const p of ps) if (p.predicted !== label) wrong.set(p.predicted, (wrong.get(p.predicted) ?? 0) + 1);
    const [main, n] = [...wrong].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0] ?? ['', 0];
    return { label, set, acc: accuracy(ps), texts: ps.length, main, n };
  });
}
const row = (x: LabelScore) => `| ${x.label} | ${x.texts} | ${(100 * x.acc).toFixed(0)}% | ${x.main ? `${x.main} (${x.n})` : '–'} |`;

/** The service's answers (coverage mode) to labelled texts. */
async function answers(model: string, texts: ReadonlyArray<{ label: string; text: string }>): Promise<Prediction[]> {
  const out = await modelAnswers(engine, model, texts.map((t) => t.text), 'coverage');
  return out.map((o, i) => ({ gold: texts[i]!.label, predicted: o.label, confidence: o.confidence }));
}

for (const model of ['lid-neural-608', 'lid-lite-608']) {
  const preds = await answers(model, held);
  const newsPreds = await answers(model, news);
  console.log(`\n## ${model}: held-out split, coverage mode, the service's answers\n`);
  console.log('| set | texts | accuracy | macro-F1 | ECE (15 bins) |\n|---|---:|---:|---:|---:|');
  for (const [set] of HELD_OUT_SETS) {
    const p = preds.filter((_, i) => held[i]!.set === set);
    console.log(`| ${set} | ${p.length} | ${(100 * accuracy(p)).toFixed(1)}% | ${(100 * macroF1(p)).toFixed(1)} | ${(100 * expectedCalibrationError(p)).toFixed(1)}% |`);
  }
  console.log(`| news development (NTREX-128 held-out documents, ${new Set(news.map((n) => n.label)).size} labels) | ${newsPreds.length} | ${(100 * accuracy(newsPreds)).toFixed(1)}% | ${(100 * macroF1(newsPreds)).toFixed(1)} | ${(100 * expectedCalibrationError(newsPreds)).toFixed(1)}% |`);
  const shortPreds = await answers(model, newsShort);
  for (const set of ['news word pairs', 'news words'] as const) {
    const p = shortPreds.filter((_, i) => newsShort[i]!.set === set);
    console.log(`| ${set} (one per news development sentence) | ${p.length} | ${(100 * accuracy(p)).toFixed(1)}% | ${(100 * macroF1(p)).toFixed(1)} | ${(100 * expectedCalibrationError(p)).toFixed(1)}% |`);
  }
  const newsLow = scoresOf(newsPreds, 'news').filter((x) => x.acc < 0.9).sort((a, b) => a.acc - b.acc || (a.label < b.label ? -1 : 1));
  console.log(`\nLabels under 90% on the news development set: ${newsLow.length}\n\n| label | sentences | accuracy | main confusion |\n|---|---:|---:|---|`);
  for (const x of newsLow) console.log(row(x));
  const sentences = scoresOf(preds.filter((_, i) => held[i]!.set === 'sentences'), 'sentences');
  const withSentences = new Set(sentences.map((s) => s.label));
  // labels known from word lists only: their held-out words
  const words = scoresOf(preds.filter((p, i) => held[i]!.set === 'words' && !withSentences.has(p.gold)), 'words');
  const low = sentences.filter((x) => x.acc < 0.9).sort((a, b) => a.acc - b.acc || (a.label < b.label ? -1 : 1));
  console.log(`\nLabels under 90% on held-out sentences: ${low.length} of ${sentences.length}\n\n| label | sentences | accuracy | main confusion |\n|---|---:|---:|---|`);
  for (const x of low) console.log(row(x));
  console.log(`\nLabels known from word lists only, held-out words: ${words.length}, mean accuracy ${(100 * words.reduce((s, x) => s + x.acc, 0) / Math.max(1, words.length)).toFixed(1)}%\n\n| label | words | accuracy | main confusion |\n|---|---:|---:|---|`);
  for (const x of words.sort((a, b) => a.acc - b.acc || (a.label < b.label ? -1 : 1))) console.log(row(x));
  const card = join(repo, model, 'card.md');
  if (values.cards && existsSync(card)) {
    const all = [...sentences, ...words].sort((a, b) => (a.label < b.label ? -1 : 1));
    const cell = (x: LabelScore) => `| ${x.label} | ${x.set} | ${x.texts} | ${(100 * x.acc).toFixed(0)}% | ${x.main ? `${x.main} (${x.n})` : '–'} |`;
    const header = '| label | held-out set | texts | right | main confusion (count) |\n|---|---|---:|---:|---|';
    let text = replaceCardSection(readFileSync(card, 'utf8'), CARD_SECTION, `The service's answers (second stage and word frequencies included, coverage mode) on each label's held-out sentences, or, for a label known from word lists only, its held-out words (\`npm run report:lid -- --cards\`).\n\n${header}\n${all.map(cell).join('\n')}`);
    const newsAll = scoresOf(newsPreds, 'news').sort((a, b) => (a.label < b.label ? -1 : 1));
    text = replaceCardSection(text, NEWS_SECTION, `The service's answers (coverage mode) on the news development set: the held-out documents of each label's NTREX-128 file (the last tenth; scripts/lid-data.ts newsDevTexts), ${newsPreds.length} sentences of ${newsAll.length} labels, accuracy ${(100 * accuracy(newsPreds)).toFixed(1)} %, macro-F1 ${(100 * macroF1(newsPreds)).toFixed(1)}.\n\n${header}\n${newsAll.map(cell).join('\n')}`);
    writeFileSync(card, text);
    console.log(`wrote ${card}`);
  }
}
