/**
 * Turns the logits of a language-ID model into the answer of the spec's
 * language-identification response: temperature scaling, traffic prior, script mask,
 * candidate restriction, softmax, top-k and warnings.
 */
import { NO_SCRIPT, scriptCounts, unicodeScriptsOf } from './scripts.ts';
import { findQgLanguage, languageName } from './languages.ts';

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
  temperature: number;
}

/** Builds {@link LidModelInfo} from labels, the population prior and the temperature. */
export function modelInfo(labels: readonly string[], prior: Record<string, number>, temperature: number): LidModelInfo {
  const languages = labels.map((l) => l.split('_')[0]!);
  return {
    labels, languages, temperature,
    labelScripts: labels.map((l) => unicodeScriptsOf(l.split('_')[1] ?? '')),
    logPrior: Float32Array.from(languages, (c) => Math.log(Math.max(prior[c] ?? 0, PRIOR_FLOOR) / 1e9)),
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

/** Indices of the k largest positive entries, largest first (insertion into a k-list: O(C·k), k ≤ 25). */
function topK(z: Float64Array, k: number): number[] {
  const idx: number[] = [];
  for (let c = 0; c < z.length; c++) {
    const v = z[c]!;
    if (v <= 0 || (idx.length === k && v <= z[idx[k - 1]!]!)) continue;
    let i = idx.length === k ? k - 1 : idx.length;
    while (i > 0 && z[idx[i - 1]!]! < v) { if (i < k) idx[i] = idx[i - 1]!; i--; }
    idx[i] = c;
  }
  return idx;
}

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
 * Decodes one row of logits.
 * @param logits the model's output for this text, length = labels
 * @param text the text (for its length and scripts)
 * @param scripts Unicode scripts present in the text (from {@link preflight})
 */
export function decode(logits: ArrayLike<number>, info: LidModelInfo, text: string, scripts: Set<string>, opts: DecodeOptions): LidAnswer {
  const chars = [...text.trim()].length;
  const C = info.labels.length;
  const wantLang = opts.candidates ? new Set(opts.candidates.map((c) => findQgLanguage(c)?.code ?? c)) : null;
  const priorW = opts.mode === 'traffic' ? PRIOR_WEIGHT * Math.max(0, 1 - chars / PRIOR_FADE_CHARS) : 0;
  const z = new Float64Array(C);
  let any = false;
  for (let c = 0; c < C; c++) {
    const okScript = info.labelScripts[c]!.some((s) => scripts.has(s));
    const lang = info.languages[c]!;
    const okLang = !wantLang || wantLang.has(lang) || wantLang.has(findQgLanguage(lang)?.code ?? '');
    if (!okScript || !okLang) { z[c] = -Infinity; continue; }
    z[c] = logits[c]! / info.temperature + priorW * info.logPrior[c]!;
    any = true;
  }
  if (!any) {
    const names = [...scripts].join(', ') || 'unknown';
    return noLanguage(`no language found: the text's script (${names}) is not covered by the model${wantLang ? ' among the allowed languages' : ''}`);
  }
  let max = -Infinity;
  for (let c = 0; c < C; c++) if (z[c]! > max) max = z[c]!;
  let sum = 0;
  for (let c = 0; c < C; c++) { z[c] = Number.isFinite(z[c]!) ? Math.exp(z[c]! - max) : 0; sum += z[c]!; }
  const order = topK(z, opts.topK);
  const best = order[0]!;
  const label = info.labels[best]!;
  const language = info.languages[best]!;
  const warnings: string[] = [];
  if (chars < SHORT_TEXT_CHARS) warnings.push(`text is very short (${chars} characters): the language may be unreliable`);
  return {
    language, script: label.split('_')[1] ?? NO_SCRIPT, label, languageName: languageName(language),
    confidence: round(z[best]! / sum),
    top: order.map((i) => ({ label: info.labels[i]!, language: info.languages[i]!, score: round(z[i]! / sum) })),
    warnings,
  };
}
