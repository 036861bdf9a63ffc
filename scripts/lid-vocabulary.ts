/**
 * Builds the word-frequency stage of language ID (services/capabilities/language-id/vocabulary.ts)
 * from the training text and writes `vocabulary.txt.br` into each language-ID model folder;
 * `npm run train:lid` calls it after the second stages, and
 * `npm run train:lid-vocabulary [-- --repo DIR] [--only NAME] [--cap N]` runs it alone
 * against the installed models.
 *
 * - Counts: every word of each label's training lines and lexicon entries (scripts/lid-data.ts
 *   Pool.train and Pool.lexicon; never the held-out lines or the news development set),
 *   as {@link vocabularyTokens} reads them, in two parts ({@link countWords}: parallel
 *   sources and the rest), and a third part for the labels with a word-frequency list
 *   (scripts/lid-data.ts frequencyLists: OpenSubtitles2018 counts, CC BY-SA 4.0, for por,
 *   spa, fra, ita, pol, tur and vie); per part its {@link CAPS} most frequent words are kept (ties
 *   alphabetically), `N_L` counts all of them.
 * - `S`, `λ`, `D`, `α` and `B` ({@link SCALES} × {@link LAMBDAS} × {@link DISCOUNTS} ×
 *   {@link SIZE_POWERS} × {@link MAX_BONUSES}) are chosen on the news development set (scripts/lid-data.ts
 *   newsDevTexts and newsDevShortTexts: the held-out NTREX-128 documents, whole and cut
 *   into words and word pairs as web text is): the mean of the three accuracies, among
 *   the settings that get at least as many of the project's check sentences right as the
 *   earlier stages alone and cost no label more than {@link MAX_LABEL_LOSS} of its news
 *   sentences (or, where no setting is within that, no more than the least any setting
 *   costs; with the two parts of {@link countWords} both models have settings within 3). Without that rule the first grid (rates only: `D` = `α` = 0) took Standard
 *   Arabic news from 93 to 85 of 100 (to Moroccan and Hassaniya) and Zulu from 81 to 70 (to
 *   Northern Ndebele) for lid-lite-608, and 3 of 8 Standard Arabic news sentences of the
 *   tests. The held-out split is reported beside it, not used for the choice.
 * - The temperatures of the re-ranked scores, per length bucket (those of the model's own
 *   calibration), minimise the negative log-likelihood of the gold label on the held-out
 *   texts the stage changes (temperature scaling, Guo et al. 2017).
 *
 * The evaluation sets in ../shared/data/lid-eval are never read.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { brotliCompressSync, constants as zlib } from 'node:zlib';
import { heldOutTexts, newsDevShortTexts, newsDevTexts, type Pool } from './lid-data.ts';
import { replaceCardSection } from './model-card.ts';
import { argmax, checkSentences, firstStage } from './lid-clusters.ts';
import { refineWithClusters } from '../services/capabilities/language-id/clusters.ts';
import type { TemperatureBucket } from '../services/capabilities/language-id/decode.ts';
import { loadVocabulary, readVocabulary, refineWithVocabulary, vocabularyStage, vocabularyTokens, VOCABULARY_FILE, type VocabularyHeader, type VocabularyStage } from '../services/capabilities/language-id/vocabulary.ts';
import { accuracy, expectedCalibrationError, type Prediction } from '../services/lib/evaluation.ts';

/**
 * Most words kept per part of a label's text ({@link countWords}), per model: what the
 * model's size allows (a model folder stays within 1.5 times the size of the models of
 * commit a825b98: 51 MB and 7 MB; 14.4 and 2.0 MB files). In the first grid (one part per
 * label, rates only) every word (5.0 million entries) gave lid-neural-608 0.2–0.3 points
 * more of the news development set's words and word pairs than 20,000 per label (4.0
 * million), and lid-lite-608 with 1,500 got 60.7 / 77.5 / 95.6 % of them (words / pairs /
 * sentences) against 59.3 / 76.1 / 95.3 % with 1,000.
 */
export const CAPS: Readonly<Record<string, number>> = { 'lid-neural-608': 20_000, 'lid-lite-608': 1_000 };
/**
 * Longest text each model's stage reads (characters; null: any), a cost cap. On 80–120
 * character sentences the stage took lid-lite-608 from 33,809 to 23,822 texts/s and
 * lid-neural-608 from 29,683 to 18,694 (`npm run bench:lid -- --sets sentences`, one run);
 * lid-lite-608 exists to be fast, and the stage's gains are on one or two words (news words
 * +9.5 points, sentences +2.0), so its stage reads texts of up to 60 characters only.
 */
export const MAX_CHARS: Readonly<Record<string, number | null>> = { 'lid-neural-608': null, 'lid-lite-608': 60 };
/** Candidate `S` (see vocabulary.ts). */
export const SCALES = [1e6, 1e7, 1e8, 1e9, 1e10];
/** Candidate `λ`. */
export const LAMBDAS = [0.5, 0.75, 1, 1.5];
/**
 * Candidate `D` (absolute discounting, Ney, Essen & Kneser 1994). 0 was in the grid until
 * the word-frequency lists: without a discount a word a small text wrote once counts in
 * full (the "rates favour small texts" hazard of docs/language-id.md), and with the lists
 * D = 0 won lid-neural-608's grid by 0.007 points of the news mean (S = 10^6, λ = 1.5, B = 6;
 * 84.910 against 84.903 for S = 10^7, λ = 1, D = 0.9, B = 8), answering one of the tests'
 * 8 Standard Arabic news sentences Moroccan (arb 0.89 → ary 0.61; with λ = 1 too: ary
 * 0.56). Every setting chosen before used 0.9.
 */
export const DISCOUNTS = [0.9];
/** Candidate `α` (0.25 and 0.5 were tried before the two parts of {@link countWords}: they cost Bosnian and others more than 3 news sentences). */
export const SIZE_POWERS = [0];
/** Candidate `B` (null: no limit). */
export const MAX_BONUSES = [null, 8, 6, 4];
/** Most news development sentences (of 100) one label may lose to the stage. */
export const MAX_LABEL_LOSS = 3;
/** Name of the set of the project's check sentences (scripts/lid-clusters.ts checkSentences: 118 news and everyday sentences in 35 members of the confusable clusters, 20 of them Standard Arabic, in no training source). */
const CHECK_SET = 'check sentences';
/** Labels re-ranked: the 25 that `top` can list. */
export const TOP_K = 25;
/** Candidate temperatures. */
const TEMPERATURES = [0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.1, 1.25, 1.4, 1.6, 1.8, 2, 2.25, 2.5, 3, 3.5, 4, 5, 6, 8];
/** Heading of the model card's section (replaced on each run). */
const CARD_SECTION = '## Word-frequency stage';

/** Word counts of one part of a label's training text: its words with counts, and its total. */
export interface WordCounts { counts: Map<string, number>; total: number }

/**
 * Word counts of every label's training text, in two parts: the lines of parallel sources
 * (scripts/lid-data.ts PARALLEL_SOURCE: NTREX-128 news, Bible translations) and the rest
 * (other lines and lexicon entries); and a third for a label with word-frequency lists
 * (`lists`, scripts/lid-data.ts frequencyLists: subtitles' counts). The stage takes a word's highest rate of the parts
 * (vocabulary.ts), so that the same news documents translated give the same rates to
 * every label they train, however much other text a label has: counted together, Standard
 * Arabic's news words were rarer in its news and Wikipedia than in Hassaniya's news alone.
 */
export function countWords(pools: ReadonlyMap<string, Pool>, lists: ReadonlyMap<string, ReadonlyMap<string, number>> = new Map()): Map<string, WordCounts[]> {
  const out = new Map<string, WordCounts[]>();
  for (const [label, p] of pools) {
    const parts = [{ counts: new Map<string, number>(), total: 0 }, { counts: new Map<string, number>(), total: 0 }, { counts: new Map<string, number>(), total: 0 }];
    const adder = (part: WordCounts, n = 1) => (w: string) => { part.counts.set(w, (part.counts.get(w) ?? 0) + n); part.total += n; };
    const [parallel, rest] = [adder(parts[0]!), adder(parts[1]!)];
    for (const line of p.train) vocabularyTokens(line, p.parallel.has(line) ? parallel : rest);
    for (const entry of p.lexicon) vocabularyTokens(entry, rest);
    for (const [word, n] of lists.get(label) ?? []) vocabularyTokens(word, adder(parts[2]!, n));
    const kept = parts.filter((x) => x.total > 0);
    if (kept.length > 0) out.set(label, kept);
  }
  return out;
}

/**
 * The file's text (before compression): header line, then per label (in `labels` order)
 * and part of its text, the part's `cap` most frequent words grouped by count (see vocabulary.ts).
 */
export function vocabularyText(words: ReadonlyMap<string, readonly WordCounts[]>, labels: readonly string[], cap: number, header: Omit<VocabularyHeader, 'entries'>): string {
  const blocks: string[] = [];
  let entries = 0;
  for (const label of labels) {
    for (const w of words.get(label) ?? []) {
      const kept = [...w.counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, cap);
      entries += kept.length;
      const lines = [`@${label} ${w.total}`];
      let i = 0;
      while (i < kept.length) {
        const c = kept[i]![1];
        const same: string[] = [];
        while (i < kept.length && kept[i]![1] === c) same.push(kept[i++]![0]);
        lines.push(`${c}\t${same.sort().join(' ')}`);
      }
      blocks.push(lines.join('\n'));
    }
  }
  return `${JSON.stringify({ ...header, entries } satisfies VocabularyHeader)}\n${blocks.join('\n')}\n`;
}

/** Brotli at its best quality (about 2 minutes for lid-neural-608's 51 MB of text, 15 % smaller than quality 9). */
const compress = (text: string) => brotliCompressSync(Buffer.from(text, 'utf8'), { params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_LGWIN]: 24, [zlib.BROTLI_PARAM_SIZE_HINT]: text.length } });

/** A scored text: gold label, text, characters, and the probabilities of the earlier stages (null when preflight answers it). */
interface Row { gold: number; text: string; chars: number; probs: Float32Array | null }

/** Probabilities of the first stage and the clusters (coverage mode), as the engine has them before this stage, and the model's length buckets. */
async function earlierStages(repo: string, name: string, texts: ReadonlyArray<{ label: string; text: string }>): Promise<{ labels: readonly string[]; rows: Row[]; buckets: readonly TemperatureBucket[] }> {
  const { labels, rows, chars, info } = await firstStage(repo, name, texts.map((t) => t.text));
  const index = new Map(labels.map((l, i) => [l, i]));
  return {
    labels, buckets: info.temperatures,
    rows: texts.map((t, i) => {
      const p = rows[i] ?? null;
      if (p) refineWithClusters(p, info.clusters, t.text);
      return { gold: index.get(t.label) ?? -1, text: t.text, chars: chars[i]!, probs: p };
    }),
  };
}

/** Predictions of a set of rows with and without a stage. */
function predictions(rows: readonly Row[], labels: readonly string[], stage: VocabularyStage | null): Prediction[] {
  return rows.map((r) => {
    if (!r.probs) return { gold: labels[r.gold] ?? '?', predicted: 'preflight', confidence: 1 };
    const p = Float32Array.from(r.probs);
    if (stage) refineWithVocabulary(p, stage, r.text, r.chars);
    const b = argmax(p);
    return { gold: labels[r.gold] ?? '?', predicted: labels[b]!, confidence: p[b]! };
  });
}

/** Right answers per gold label. */
function rightPerLabel(ps: readonly Prediction[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const p of ps) m.set(p.gold, (m.get(p.gold) ?? 0) + (p.gold === p.predicted ? 1 : 0));
  return m;
}

/**
 * Builds, tunes and writes one model's stage.
 * @param listLabels the labels whose counts include a word-frequency list (named in the card)
 * @returns report lines (markdown)
 */
export async function writeVocabularyStage(repo: string, name: string, pools: ReadonlyMap<string, Pool>, words: ReadonlyMap<string, readonly WordCounts[]>, cap = CAPS[name] ?? 20_000, listLabels: readonly string[] = []): Promise<string[]> {
  const sets: Record<string, Array<{ label: string; text: string }>> = {};
  for (const t of newsDevShortTexts(pools)) (sets[t.set] ??= []).push(t);
  sets['news sentences'] = newsDevTexts(pools);
  sets[CHECK_SET] = checkSentences();
  for (const t of heldOutTexts(pools)) (sets[`held-out ${t.set}`] ??= []).push(t);
  const all = Object.values(sets).flat();
  const { labels, rows, buckets } = await earlierStages(repo, name, all);
  const bySet: Record<string, Row[]> = {};
  let at = 0;
  for (const [s, texts] of Object.entries(sets)) { bySet[s] = rows.slice(at, at + texts.length); at += texts.length; }
  const dev = ['news words', 'news word pairs', 'news sentences'];

  // every entry once; each grid point only recomputes the bonus
  const counts = readVocabulary(compressFast(vocabularyText(words, labels, cap, { version: 1, scale: 1, lambda: 1, discount: 0, size_power: 0, max_bonus: null, top_k: TOP_K, max_chars: null, calibration: [{ max_chars: null, temperature: 1 }] })), labels);
  const stageOf = (scale: number, lambda: number, discount: number, sizePower: number, maxBonus: number | null) =>
    vocabularyStage(counts, labels.length, { scale, lambda, discount, size_power: sizePower, max_bonus: maxBonus, top_k: TOP_K, max_chars: MAX_CHARS[name] ?? null, calibration: [{ max_chars: null, temperature: 1 }] });
  // right answers per label of the news sentences without the stage
  const newsBefore = rightPerLabel(predictions(bySet['news sentences']!, labels, null));
  const checkBefore = accuracy(predictions(bySet[CHECK_SET]!, labels, null));
  // S, λ, D, α and B on the development set (the temperature does not change the answer);
  // a choice that gets fewer check sentences right than the earlier stages alone is out
  const tried: Array<{ scale: number; lambda: number; discount: number; sizePower: number; maxBonus: number | null; score: number; check: number; worst: number }> = [];
  const grid: string[] = [];
  for (const scale of SCALES) for (const lambda of LAMBDAS) for (const discount of DISCOUNTS) for (const sizePower of SIZE_POWERS) for (const maxBonus of MAX_BONUSES) {
    const stage = stageOf(scale, lambda, discount, sizePower, maxBonus);
    const preds = dev.map((s) => predictions(bySet[s]!, labels, stage));
    const accs = preds.map(accuracy);
    const check = accuracy(predictions(bySet[CHECK_SET]!, labels, stage));
    const after = rightPerLabel(preds[dev.indexOf('news sentences')]!);
    const worst = Math.max(...[...newsBefore].map(([l, n]) => n - (after.get(l) ?? 0)));
    tried.push({ scale, lambda, discount, sizePower, maxBonus, score: accs.reduce((a, b) => a + b, 0) / accs.length, check, worst });
    grid.push(`S = ${scale.toExponential(0)}, λ = ${lambda}, D = ${discount}, α = ${sizePower}, B = ${maxBonus ?? '∞'}: ${accs.map((a) => (100 * a).toFixed(2)).join(' / ')}, check ${Math.round(check * bySet[CHECK_SET]!.length)}, most news sentences one label loses ${worst}`);
  }
  // the check sentences kept, then the least loss of one label's news (at most MAX_LABEL_LOSS
  // or, where no setting is within it, the least any setting has), then the best mean
  const keeps = tried.filter((t) => t.check >= checkBefore);
  if (keeps.length === 0) throw new Error(`${name}: every setting of the grid loses check sentences`);
  const allowed = Math.max(MAX_LABEL_LOSS, Math.min(...keeps.map((t) => t.worst)));
  const best = keeps.filter((t) => t.worst <= allowed).reduce((a, b) => (b.score > a.score ? b : a));
  // temperatures per length bucket on the held-out texts the stage changes
  const stage = stageOf(best.scale, best.lambda, best.discount, best.sizePower, best.maxBonus);
  const held = Object.entries(bySet).filter(([s]) => s.startsWith('held-out')).flatMap(([, r]) => r).filter((r) => r.probs && r.gold >= 0);
  const calibration: VocabularyHeader['calibration'] = [];
  for (const [k, b] of buckets.entries()) {
    const lo = k === 0 ? -1 : buckets[k - 1]!.maxChars!;
    const mine = held.filter((r) => r.chars > lo && (b.maxChars === null || r.chars <= b.maxChars));
    // 1 where the stage changes no text of the bucket (longer than the stage's max_chars)
    let bestT = 1, bestNll = 0;
    for (const t of TEMPERATURES) {
      stage.calibration = [{ maxChars: null, temperature: t }];
      let nll = 0;
      for (const r of mine) { const p = Float32Array.from(r.probs!); if (refineWithVocabulary(p, stage, r.text, r.chars)) nll -= Math.log(Math.max(p[r.gold]!, 1e-9)); }
      if (nll > 0 && (bestNll === 0 || nll < bestNll)) { bestNll = nll; bestT = t; }
    }
    calibration.push({ max_chars: b.maxChars, temperature: bestT });
  }
  const header = { version: 1 as const, scale: best.scale, lambda: best.lambda, discount: best.discount, size_power: best.sizePower, max_bonus: best.maxBonus, top_k: TOP_K, max_chars: MAX_CHARS[name] ?? null, calibration };
  const text = vocabularyText(words, labels, cap, header);
  const data = compress(text);
  const file = join(repo, name, VOCABULARY_FILE);
  writeFileSync(file, data);
  const final = loadVocabulary(readFileSync(file), labels);
  const table = ['| set | texts | accuracy before → after | ECE (15 bins) before → after |', '|---|---:|---:|---:|'];
  const moves: string[] = [];
  for (const [s, r] of Object.entries(bySet)) {
    const [a, b] = [predictions(r, labels, null), predictions(r, labels, final)];
    table.push(`| ${s} | ${r.length} | ${(100 * accuracy(a)).toFixed(1)} → ${(100 * accuracy(b)).toFixed(1)} % | ${(100 * expectedCalibrationError(a)).toFixed(1)} → ${(100 * expectedCalibrationError(b)).toFixed(1)} % |`);
    if (s !== 'news sentences' && s !== CHECK_SET) continue;
    // labels whose count of right answers moves (by 5 or more on news sentences)
    const [ra, rb] = [rightPerLabel(a), rightPerLabel(b)];
    const moved = [...ra].filter(([l, n]) => Math.abs((rb.get(l) ?? 0) - n) >= (s === CHECK_SET ? 1 : 5)).map(([l, n]) => `${l} ${n} → ${rb.get(l) ?? 0}`);
    moves.push(`${s}: ${moved.join(', ') || 'none'}`);
  }
  const report = [
    `${name}: ${counts.labels.length} entries (at most ${cap} words per label), ${final.words} distinct words, ${(statSync(file).size / 1e6).toFixed(1)} MB; S = ${best.scale.toExponential(0)}, λ = ${best.lambda}, D = ${best.discount}, α = ${best.sizePower}, B = ${best.maxBonus ?? '∞'} (no label loses more than ${allowed} of its news sentences); temperatures ${calibration.map((c) => `${c.max_chars === null ? 'longer' : `≤ ${c.max_chars}`} → ${c.temperature}`).join(', ')}`,
    '', ...table, '',
    `Labels whose right answers move: ${moves.join('; ')}.`, '',
    `Development set (news words / word pairs / sentences, and check sentences right of ${bySet[CHECK_SET]!.length}, ${Math.round(checkBefore * bySet[CHECK_SET]!.length)} without the stage) over the grid: ${grid.join('; ')}.`,
  ];
  const card = join(repo, name, 'card.md');
  if (existsSync(card)) {
    writeFileSync(card, replaceCardSection(readFileSync(card, 'utf8'), CARD_SECTION, `How often each label's training text writes each word re-ranks the ${TOP_K} labels the earlier stages rank highest: label L gets λ · min(B, ln(1 + S · max(c − D, 0) / N)) per word of the text, c the word's count and N the word total in the part of L's text (parallel sources, the rest, or a word-frequency list where L has one) where the word's bonus is highest (services/capabilities/language-id/vocabulary.ts, scripts/lid-vocabulary.ts, file ${VOCABULARY_FILE}). The counts are of the training lines and lexicon entries only${listLabels.length > 0 ? `, and of the word-frequency lists of ${listLabels.join(', ')} (../shared/data/corpora/text/<label>/*.freq.tsv: OpenSubtitles2018 counts from hermitdave/FrequencyWords, 50,000 words each, CC BY-SA 4.0), the everyday words (greetings, thanks) that news and UDHR text rarely write` : ''}. S, λ, D and B are chosen on the news development set (mean accuracy over its words, word pairs and sentences) among the settings that get at least as many check sentences right as the earlier stages and cost no label more than ${MAX_LABEL_LOSS} of its news sentences; the temperatures per text length on the held-out split. "Before" is the first stage with the clusters, coverage mode.\n\n${report.join('\n')}`));
  }
  return report;
}

/** Brotli at a low quality: for the grid, where only the decompressed text matters. */
function compressFast(text: string): Buffer {
  return brotliCompressSync(Buffer.from(text, 'utf8'), { params: { [zlib.BROTLI_PARAM_QUALITY]: 1 } });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values } = parseArgs({ options: { repo: { type: 'string' }, only: { type: 'string' }, cap: { type: 'string' } } });
  const repo = values.repo ?? join(dirname(fileURLToPath(import.meta.url)), '..', 'models');
  const { frequencyLists, loadTrainingText } = await import('./lid-data.ts');
  const { pools } = loadTrainingText();
  const lists = frequencyLists();
  const words = countWords(pools, lists);
  const listLabels = [...lists.keys()].filter((l) => pools.has(l));
  for (const name of ['lid-neural-608', 'lid-lite-608']) {
    if (values.only && values.only !== name) continue;
    for (const line of await writeVocabularyStage(repo, name, pools, words, values.cap ? Number(values.cap) : undefined, listLabels)) console.log(line);
  }
}
