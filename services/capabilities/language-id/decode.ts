/**
 * Turns the logits of a language-ID model into the answer of the spec's
 * language-identification response: temperature scaling, traffic prior, script mask,
 * candidate restriction, softmax, top-k and warnings.
 */
import { hanVariant, hasHanVariants, NO_SCRIPT, SCRIPT_LANGUAGES, scriptCounts, unicodeScriptsOf } from './scripts.ts';
import { findQgLanguage, languageName } from '../../languages.ts';
import { loadClusterStages, refineWithClusters, type ClusterFile, type ClusterStages } from './clusters.ts';
import { refineWithVocabulary, type VocabularyStage } from './vocabulary.ts';
import { temperatureFor, type TemperatureBucket } from './temperature.ts';

/** Texts shorter than this (characters, trimmed) get a warning. */
export const SHORT_TEXT_CHARS = 20;
/**
 * Weight of the log population prior in `traffic` mode at length 0; it fades linearly
 * to 0 at {@link PRIOR_FADE_CHARS} characters. A heuristic: the model's softmax is a
 * posterior under a uniform prior over labels, and Bayes' rule with the traffic prior
 * would add log p(language) at weight 1, which overrides the model on medium-length
 * text because the model is not calibrated there before temperature scaling.
 */
export const PRIOR_WEIGHT = 0.4;
export const PRIOR_FADE_CHARS = 100;
/** Speakers assumed for a language CLDR does not list (people). */
export const PRIOR_FLOOR = 10_000;

/** What the decoder needs to know about a loaded model. */
export interface LidModelInfo {
  labels: readonly string[];
  /** ISO 639-3 code of each label */
  languages: readonly string[];
  /** Unicode scripts each label can be written in */
  labelScripts: ReadonlyArray<readonly string[]>;
  /** ln(speakers / 1e9) per label */
  logPrior: Float32Array;
  /** temperature scaling by text length, shortest bucket first (see {@link TemperatureBucket}) */
  temperatures: readonly TemperatureBucket[];
  /** ISO 15924 part of each label */
  scripts: readonly string[];
  /** label masks per set of text scripts and candidates */
  maskCache: Map<string, { mask: Float32Array; allowedCount: number }>;
  /** second stages for confusable clusters (./clusters.ts); none when the model folder has none */
  clusters: ClusterStages;
  /** word-frequency stage (./vocabulary.ts), run after the clusters; absent when the model folder has none */
  vocabulary?: VocabularyStage;
}

export { temperatureFor, type TemperatureBucket };

/**
 * Builds {@link LidModelInfo} from labels, the population prior, the calibration (one
 * temperature, or temperatures by text length) and the second stages, if any.
 * @throws when `clusters` names a label the model does not have
 */
export function modelInfo(labels: readonly string[], prior: Record<string, number>, calibration: number | readonly TemperatureBucket[], clusters?: ClusterFile, vocabulary?: VocabularyStage): LidModelInfo {
  const languages = labels.map((l) => l.split('_')[0]!);
  return {
    ...(vocabulary ? { vocabulary } : {}),
    labels, languages, maskCache: new Map(), clusters: loadClusterStages(clusters ?? { version: 1, clusters: [] }, labels), scripts: labels.map((l) => l.split('_')[1] ?? NO_SCRIPT),
    temperatures: typeof calibration === 'number' ? [{ maxChars: null, temperature: calibration }] : calibration,
    labelScripts: labels.map((l) => (l === NO_LANGUAGE_LABEL ? ANY_SCRIPT : unicodeScriptsOf(l.split('_')[1] ?? ''))),
    logPrior: Float32Array.from(languages, (c) => Math.log((c === 'zxx' ? NO_LANGUAGE_PRIOR : Math.max(prior[c] ?? 0, PRIOR_FLOOR)) / 1e9)),
  };
}

/** One answer (fields of the spec's response, camel-cased). */
export interface LidAnswer {
  language: string; script: string; label: string; languageName: string; confidence: number;
  top: Array<{ label: string; language: string; score: number }>;
  warnings: string[];
}

/** Options of one text. */
export interface DecodeOptions {
  mode: 'traffic' | 'coverage';
  /** entries in `top`, 1–25 */
  topK: number;
  /** ISO 639-3 codes (macrolanguages allowed) the answer must be one of */
  candidates?: readonly string[] | null;
}

const round = (x: number) => Math.round(x * 1e4) / 1e4;

/** Indices of the k largest positive entries of z[0, n), largest first (insertion into a k-list: O(C·k), k ≤ 25). */
function topKOf(z: ArrayLike<number>, k: number, n: number): number[] {
  const idx: number[] = [];
  for (let c = 0; c < n; c++) {
    const v = z[c]!;
    if (v <= 0 || (idx.length === k && v <= z[idx[k - 1]!]!)) continue;
    let i = idx.length === k ? k - 1 : idx.length;
    while (i > 0 && z[idx[i - 1]!]! < v) { if (i < k) idx[i] = idx[i - 1]!; i--; }
    idx[i] = c;
  }
  return idx;
}

/**
 * Label of the models' no-language class (ISO 639-3 `zxx` "no linguistic content",
 * ISO 15924 `Zxxx` "code for unwritten documents"): it may be answered whatever the
 * text's scripts are, unless `candidates` restrict the answer (the legacy route's best
 * of 25 languages).
 */
export const NO_LANGUAGE_LABEL = `zxx_${NO_SCRIPT}`;
/**
 * Population weight (people) of the no-language class in `traffic` mode: that of a
 * large language, so the prior neither favours nor buries it on short text. A choice,
 * not a measurement.
 */
export const NO_LANGUAGE_PRIOR = 1e8;

/** The answer for a text with no language in it. */
export function noLanguage(warning: string): LidAnswer {
  return {
    language: 'zxx', script: NO_SCRIPT, label: `zxx_${NO_SCRIPT}`, languageName: 'zxx', confidence: 1,
    top: [{ label: `zxx_${NO_SCRIPT}`, language: 'zxx', score: 1 }], warnings: [warning],
  };
}

/**
 * What the text itself says before any model runs: no letters → zxx_Zxxx.
 * @returns the scripts present in the text, or a finished answer
 */
export function preflight(text: string): { scripts: Set<string> } | { answer: LidAnswer } {
  const counts = scriptCounts(text);
  counts.delete('Zyyy');
  if (counts.size === 0 && !/\p{L}/u.test(text)) {
    return { answer: noLanguage('no language found: the text has no letters (code, numbers or symbols)') };
  }
  return { scripts: new Set(counts.keys()) };
}

/**
 * The answer for text whose letters are in scripts no trained label uses (issue 14): its
 * main script's language where essentially one language writes that script (Unicode
 * CLDR: Ol Chiki → sat, Cherokee → chr; services/capabilities/language-id/scripts.ts
 * SCRIPT_LANGUAGES), otherwise `und_<Script>` (undetermined language), with a warning that
 * the model has no training text for it. Confidence: the share of the text's letters in
 * that script.
 * @returns the answer, or undefined when the letters are in no script Unicode names
 */
export function unknownScript(text: string): LidAnswer | undefined {
  const counts = scriptCounts(text);
  counts.delete('Zyyy');
  let script = ''; let n = 0; let total = 0;
  for (const [s, c] of counts) { total += c; if (c > n) { script = s; n = c; } }
  if (!script) return undefined;
  const language = SCRIPT_LANGUAGES[script]?.language ?? 'und';
  const label = `${language}_${script}`;
  const score = round(n / total);
  const warning = language === 'und'
    ? `the model has no training text in the ${script} script, which several languages write: language undetermined (${label})`
    : `the model has no training text in the ${script} script: answered ${language}, the language that writes it (Unicode CLDR), without reading the text`;
  return { language, script, label, languageName: languageName(language), confidence: score, top: [{ label, language, score }], warnings: [warning] };
}

/** Marks the label that any script may have (the no-language class). */
const ANY_SCRIPT: readonly string[] = [];

/** Number of code points of a string. */
function codePoints(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) { const c = s.charCodeAt(i); if (c >= 0xd800 && c <= 0xdbff) { n--; i++; } }
  return n;
}

const allowed = (lang: string, want: Set<string>) => want.has(lang) || want.has(findQgLanguage(lang)?.code ?? '');

/** Added to the score of an excluded label: its probability becomes 0 (exp underflows). */
export const EXCLUDED = -1e30;

/**
 * Label mask of a text: 0 for each label written in one of `scripts` (and among the
 * candidates, if any; not in the other Han writing when `han` says which one the text is
 * in), {@link EXCLUDED} otherwise; cached per scripts, Han writing and candidates.
 * @returns the mask and the number of allowed language labels (the no-language class,
 *   allowed for every script, not counted)
 */
function labelMask(info: LidModelInfo, scripts: Set<string>, candidates: readonly string[] | null | undefined, han: 'Hans' | 'Hant' | null): { mask: Float32Array; allowedCount: number } {
  const sk0 = scripts.size === 1 ? scripts.values().next().value! : [...scripts].sort().join(',');
  const sk = han ? `${sk0}/${han}` : sk0;
  const key = candidates ? `${sk}|${candidates.join(',')}` : sk;
  // the other Han writing's labels are excluded (see hanVariant)
  const otherHan = han === 'Hans' ? 'Hant' : han === 'Hant' ? 'Hans' : null;
  let m = info.maskCache.get(key);
  if (!m) {
    const want = candidates ? new Set(candidates.map((c) => findQgLanguage(c)?.code ?? c)) : null;
    const mask = new Float32Array(info.labels.length);
    let allowedCount = 0;
    info.labelScripts.forEach((ls, c) => {
      const ok = (ls === ANY_SCRIPT || ls.some((x) => scripts.has(x))) && (!want || allowed(info.languages[c]!, want)) && (info.scripts[c] !== otherHan || !hasHanVariants(info.languages[c]!));
      mask[c] = ok ? 0 : EXCLUDED;
      if (ok && ls !== ANY_SCRIPT) allowedCount++;
    });
    m = { mask, allowedCount };
    if (info.maskCache.size < 1024) info.maskCache.set(key, m);
  }
  return m;
}

/**
 * How one text is decoded: the model's softmax input is
 * `logits · invTemperature + priorWeight · logPrior + mask` (the ONNX graph of
 * scripts/lid-onnx.ts computes it; {@link decode} is the same in JavaScript).
 */
export interface DecodePlan {
  /** characters of the trimmed text (code points) */
  chars: number;
  /** 1 / the temperature of the text's length bucket */
  invTemperature: number;
  /** weight of the log population prior (0 in coverage mode) */
  priorWeight: number;
  /** per label: 0 = allowed, {@link EXCLUDED} = excluded; length = labels */
  mask: Float32Array;
}

/**
 * Plans the decoding of one text.
 * @param scripts Unicode scripts present in the text (from {@link preflight})
 * @returns the plan, or a finished zxx answer when no language label is written in the
 *   text's scripts
 */
export function planDecode(info: LidModelInfo, text: string, scripts: Set<string>, opts: DecodeOptions): DecodePlan | { answer: LidAnswer } {
  const chars = codePoints(text.trim());
  const { mask, allowedCount } = labelMask(info, scripts, opts.candidates, scripts.has('Hani') ? hanVariant(text) : null);
  if (allowedCount === 0) {
    if (!opts.candidates) { const answer = unknownScript(text); if (answer) return { answer }; }
    const names = [...scripts].join(', ') || 'unknown';
    return { answer: noLanguage(`no language found: the text's script (${names}) is not covered by the model${opts.candidates ? ' among the allowed languages' : ''}`) };
  }
  return {
    chars, mask,
    invTemperature: 1 / temperatureFor(info.temperatures, chars),
    priorWeight: opts.mode === 'traffic' ? PRIOR_WEIGHT * Math.max(0, 1 - chars / PRIOR_FADE_CHARS) : 0,
  };
}

/**
 * The answer from one row of probabilities (the softmax of the plan's scores).
 * @param probs probabilities per label, length = labels, summing to 1 over allowed labels
 * @param chars characters of the trimmed text (for the short-text warning)
 * @param topK entries in `top`, 1–25
 */
export function answerFrom(probs: ArrayLike<number>, info: LidModelInfo, chars: number, topK: number): LidAnswer {
  const order = topKOf(probs, topK, info.labels.length);
  const best = order[0]!;
  const label = info.labels[best]!;
  const language = info.languages[best]!;
  const warnings: string[] = [];
  if (label === NO_LANGUAGE_LABEL) warnings.push('no language found: the text looks like code, markup, random letters or machine tokens');
  else if (chars < SHORT_TEXT_CHARS) warnings.push(`text is very short (${chars} characters): the language may be unreliable`);
  return {
    language, script: info.scripts[best]!, label, languageName: languageName(language),
    confidence: round(probs[best]!),
    top: order.map((i) => ({ label: info.labels[i]!, language: info.languages[i]!, score: round(probs[i]!) })),
    warnings,
  };
}

/**
 * Decodes one row of logits in JavaScript (float64): {@link planDecode}, softmax, the
 * second stage of a confusable cluster ({@link refineWithClusters}), the word-frequency
 * stage ({@link refineWithVocabulary}), {@link answerFrom}. The engine runs the same computation inside the ONNX graph.
 * @param logits the model's output for this text, length = labels
 * @param text the text (for its length and scripts)
 * @param scripts Unicode scripts present in the text (from {@link preflight})
 */
export function decode(logits: ArrayLike<number>, info: LidModelInfo, text: string, scripts: Set<string>, opts: DecodeOptions): LidAnswer {
  const plan = planDecode(info, text, scripts, opts);
  if ('answer' in plan) return plan.answer;
  const C = info.labels.length;
  const z = new Float64Array(C);
  let max = -Infinity;
  for (let c = 0; c < C; c++) {
    const v = logits[c]! * plan.invTemperature + plan.priorWeight * info.logPrior[c]! + plan.mask[c]!;
    z[c] = v;
    if (v > max) max = v;
  }
  let sum = 0;
  for (let c = 0; c < C; c++) { z[c] = Math.exp(z[c]! - max); sum += z[c]!; }
  for (let c = 0; c < C; c++) z[c]! /= sum;
  refineWithClusters(z, info.clusters, text);
  if (info.vocabulary) refineWithVocabulary(z, info.vocabulary, text, plan.chars);
  return answerFrom(z, info, plan.chars, opts.topK);
}
