/**
 * Chooses the word-level rescoring's weight for a diacnet model
 * (services/capabilities/diacritize/word-lm.ts) on a development split of the training
 * text, never on the held-out text: one training line in 20 (by a seeded hash, another
 * seed than the held-out split) is left out of the lexicon and language model built
 * here, and the model restores those lines with each weight of the grid. The character
 * network did see those lines in training, so its probabilities there are somewhat
 * over-confident; the weight chosen leans toward the network a little. One weight is
 * chosen for all languages (the best mean), and a language gets its own only where that
 * wins by 0.3 points or more on its development lines.
 * Usage: `tsx scripts/tune-word-lm.ts --repo DIR --name MODEL [--lines 400] [--write]`;
 * prints alpha-word accuracy per language and weight (and the error rates of words the
 * lexicon has and lacks), and with `--write` sets the model's config.json `word_lm`
 * (file `word-lm.tsv.gz`, the best weight per language).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fnv1a } from '../services/capabilities/language-id/features.ts';
import { stripMarks, units } from '../services/capabilities/diacritize/marks.ts';
import { restore, slotsOf } from '../services/capabilities/diacritize/tagger.ts';
import { openDiacnet, scoreTexts } from '../services/capabilities/diacritize/backends/diacnet.ts';
import type { PlannedText } from '../services/capabilities/diacritize/backends/common.ts';
import { decodeText, keyOf, WordLm, type WordLmSpec } from '../services/capabilities/diacritize/word-lm.ts';
import { ModelRepository } from '../services/models/repository.ts';
import { formsOfLine, trainingLines, wordLmText } from './word-lm.ts';

const { values: a } = parseArgs({ options: { repo: { type: 'string' }, name: { type: 'string' }, lines: { type: 'string', default: '400' }, write: { type: 'boolean', default: false }, order: { type: 'string', default: '3' }, 'max-candidates': { type: 'string', default: '8' }, only: { type: 'string' }, corpora: { type: 'string' }, weights: { type: 'string', default: '0.05,0.1,0.2,0.35,0.5,0.75,1,1.5' } } });
if (!a.repo || !a.name) throw new Error('--repo and --name are required');
/** Seed of the development split (not the held-out split's). */
const DEV_SEED = 0xde7_5eed;
const dev = (line: string) => fnv1a(stripMarks(line), DEV_SEED) % 20 === 0;

/** The decoder's settings other than the weight (written to config.json with it). */
const SETTINGS = { file: 'word-lm.tsv.gz', discount: 0.7, unigram_add: 0.5, max_candidates: Number(a['max-candidates']), order: Number(a.order) };
/** The decoder's settings; the grid sets `char_weight`. */
const spec: WordLmSpec = { ...SETTINGS, char_weight: {} };
const lm = new WordLm(spec);
const train = trainingLines(a.corpora, Infinity, dev);
lm.parse(wordLmText(train));
const devLines = new Map([...trainingLines(a.corpora, Infinity)].filter(([l]) => !a.only || a.only.split(',').includes(l)).map(([l, ls]) => [l, ls.filter(dev).slice(0, Number(a.lines))]));
/** Dev accuracy per language and weight. */
const accs = new Map<string, Map<number, number>>();
/** A language keeps its own weight only when it beats the weight best on average by this many points (the dev split is small: smaller differences are noise). */
const OWN_WEIGHT_MARGIN = 0.3;

const m = await openDiacnet(new ModelRepository(a.repo), a.name, { executionProvider: 'cpu', intraOpThreads: 1 });
const weights = a.weights!.split(',').map(Number);
const rows: Array<Record<string, string | number>> = [];
const mean = new Map<string, number[]>();
for (const [lang, ls] of devLines) {
  const texts: PlannedText[] = ls.map((want, i) => {
    const text = stripMarks(want);
    const us = units(text);
    return { i, input: { text, model: a.name!, language: lang, caseEndings: true, hints: null, aligned: true, minConfidence: 0 }, language: lang, us, slots: slotsOf(us, text, m.candidates[lang]) };
  });
  const probs = await scoreTexts(m, texts);
  const row: Record<string, string | number> = { language: lang, lines: ls.length };
  const score = (got: (t: PlannedText, k: number) => string) => {
    let ok = 0; let n = 0;
    texts.forEach((t, k) => {
      const want = formsOfLine(ls[k]!, lang); const have = formsOfLine(got(t, k), lang);
      want.forEach((w, j) => { n++; if (have[j] === w) ok++; });
    });
    return 100 * ok / Math.max(1, n);
  };
  const o = { language: lang, minConfidence: 0, caseEndings: true };
  row.network = score((t, k) => restore(t.us, t.slots, probs[k]!, m.classes, o)).toFixed(1);
  for (const w of weights) {
    spec.char_weight = { default: w };
    const acc = score((t, k) => restore(t.us, t.slots, probs[k]!, m.classes, { ...o, chosen: decodeText(lm, lang, t.us, t.slots, probs[k]!, m.classes, 0.01) }));
    row[`w=${w}`] = acc.toFixed(1);
    if (!accs.has(lang)) accs.set(lang, new Map());
    accs.get(lang)!.set(w, acc);
    mean.set(String(w), [...(mean.get(String(w)) ?? []), acc]);
  }
  {
    // errors of the last weight on words the lexicon has and on words it lacks
    let inErr = 0; let inN = 0; let outErr = 0; let outN = 0;
    texts.forEach((t, k) => {
      const got = restore(t.us, t.slots, probs[k]!, m.classes, { ...o, chosen: decodeText(lm, lang, t.us, t.slots, probs[k]!, m.classes, 0.01) });
      const want = formsOfLine(ls[k]!, lang); const have = formsOfLine(got, lang);
      want.forEach((w, j) => { const known = lm.formsOf(lang, keyOf(w)).length > 0; const bad = have[j] !== w ? 1 : 0; if (known) { inN++; inErr += bad; } else { outN++; outErr += bad; } });
    });
    row['OOV words %'] = (100 * outN / Math.max(1, inN + outN)).toFixed(1);
    row['error % known'] = (100 * inErr / Math.max(1, inN)).toFixed(1);
    row['error % OOV'] = (100 * outErr / Math.max(1, outN)).toFixed(1);
  }
  rows.push(row);
  console.table([row]);
}
console.table(rows);
const best = [...mean].map(([w, xs]) => [w, xs.reduce((s, x) => s + x, 0) / xs.length] as const).sort((x, y) => y[1] - x[1]);
console.log('mean alpha-word accuracy by weight:', best.map(([w, x]) => `${w}: ${x.toFixed(2)}`).join(', '));
const def = Number(best[0]?.[0] ?? 0.5);
const charWeight: Record<string, number> = { default: def };
for (const [lang, byW] of accs) {
  const [w, acc] = [...byW].sort((x, y) => y[1] - x[1])[0]!;
  if (acc - byW.get(def)! >= OWN_WEIGHT_MARGIN) charWeight[lang] = w;
}
console.log('weight per language:', JSON.stringify(charWeight));
if (a.write) {
  const path = join(a.repo, a.name, 'config.json');
  const cfg = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  cfg.word_lm = { ...SETTINGS, char_weight: charWeight, tuned_on: `one training line in 20 (seed ${DEV_SEED}), ${a.lines} lines per language, left out of the lexicon while tuning` };
  writeFileSync(path, `${JSON.stringify(cfg, null, 2)}\n`);
  console.log(`wrote word_lm to ${path}`);
}
