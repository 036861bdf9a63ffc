/**
 * Chooses the word-level rescoring's settings for a diacnet model
 * (services/capabilities/diacritize/word-lm.ts) on the news development set of each
 * language (scripts/diacritics-data.ts NEWS_DEV: half of NTREX-128 and UD dev text, never
 * trained on, so the network's probabilities there are those of unseen text). Per
 * language, by coordinate search on alpha-word accuracy (scripts/diacritics-score.ts):
 * `char_weight` (the network against the language model) with the lexicons off, then
 * `lexicon_add` (pseudo-count of a Hunspell form) and `prior_weight` (the frequency
 * list), then `char_weight`, `lexicon_add` and `prior_weight` once more; then `unknown_plain`
 * (a bonus for the letters as typed of a word no lexicon knows), `char_weight` and
 * `unknown_plain` again; then, where the word-class model (`--class-file`, word-lm.ts
 * wordClass) has the language, `class_weight`, `char_weight`, `class_weight` and
 * `prior_weight` again; then, in a language with vowel harmony (languages.ts
 * VOWEL_HARMONY_LANGUAGES: Turkish), `harmony_weight`, `char_weight` and `harmony_weight`;
 * then, where the spelling model (`--spelling-file`, spelling-lm.ts) has the language, the
 * words neither the text nor a dictionary writes: `spelling_weight` and
 * `unknown_char_weight` on a grid of both, `unknown_plain`, and the grid again; then, where
 * the word model has place names for the language (scripts/word-lm.ts chosenPlaceNames),
 * `name_bonus`; then the spelling model for the words of the word model: `known_spelling_weight`, `char_weight`
 * and `known_spelling_weight`.
 * Arabic has no vowelled news text in ../shared: its development lines are half of its
 * held-out split (diacritics-data.ts HELD_OUT_DEV_LANGUAGES), and its figure is the
 * diacritic error rate with case endings (diacritics-score.ts der; the tables print it as
 * `DER`). A language without development lines keeps the settings config.json has, or `default`.
 * Usage: `tsx scripts/tune-word-lm.ts --repo DIR --name MODEL [--lines 1000] [--only vie,pol] [--file word-lm.bin] [--class-file class-lm.bin] [--spelling-file spelling-lm.bin] [--max-candidates 32] [--candidate-beam 4] [--write]`;
 * reads the model folder's word model (`--file`, else the one config.json names, else
 * `word-lm.bin`; scripts/word-lm.ts; of a packed file only the parts of the languages
 * tuned are decompressed), prints the accuracy per
 * language and setting, and with `--write` sets the model's config.json `word_lm`.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { restore } from '../services/capabilities/diacritize/tagger.ts';
import { openDiacnet, scoreTexts } from '../services/capabilities/diacritize/backends/diacnet.ts';
import type { PlannedText } from '../services/capabilities/diacritize/backends/common.ts';
import { decodeText, DEFAULT_CLASS_SUFFIX, DEFAULT_MAX_STATES, DEFAULT_UNKNOWN_CANDIDATES, WordLm, type WordLmSpec } from '../services/capabilities/diacritize/word-lm.ts';
import { openWordLm, type LangArrays } from '../services/capabilities/diacritize/word-lm-format.ts';
import { openSpellingLm, type SpellingArrays } from '../services/capabilities/diacritize/spelling-lm.ts';
import { VOWEL_HARMONY_LANGUAGES } from '../services/capabilities/diacritize/languages.ts';
import { ModelRepository } from '../services/models/repository.ts';
import { CORPORA, DIACRITICS_SOURCES, linesWithRole } from './diacritics-data.ts';
import { der, plannedLines, wordScore } from './diacritics-score.ts';

const { values: a } = parseArgs({ options: { repo: { type: 'string' }, name: { type: 'string' }, lines: { type: 'string', default: '1000' }, write: { type: 'boolean', default: false }, order: { type: 'string', default: '3' }, 'max-candidates': { type: 'string', default: '32' }, 'candidate-beam': { type: 'string', default: '4' }, only: { type: 'string' }, corpora: { type: 'string' }, file: { type: 'string' }, 'class-file': { type: 'string' }, 'spelling-file': { type: 'string' } } });
if (!a.repo || !a.name) throw new Error('--repo and --name are required');
const CHAR_WEIGHTS = [0.02, 0.05, 0.1, 0.2, 0.35, 0.5, 0.75, 1, 1.5];
const LEXICON_ADDS = [0, 0.25, 1, 4, 16];
const PRIOR_WEIGHTS = [0, 0.01, 0.05, 0.2, 1, 3, 10];
const UNKNOWN_PLAINS = [0, 0.5, 1, 2, 4, 8];
const CLASS_WEIGHTS = [0, 0.1, 0.2, 0.35, 0.5, 0.75];
const HARMONY_WEIGHTS = [0, 0.5, 1, 2, 4, 8];
const SPELLING_WEIGHTS = [0, 0.05, 0.1, 0.2, 0.35, 0.6, 1];
const UNKNOWN_CHAR_WEIGHTS = [0.02, 0.05, 0.1, 0.2, 0.35, 0.5, 1];
const SPELLING_PLAINS = [0, 0.25, 0.5, 1, 2, 4, 8];
const KNOWN_SPELLING_WEIGHTS = [0, 0.05, 0.1, 0.2, 0.5, 1, 2, 3, 5];
const NAME_BONUSES = [0, 0.5, 1, 2, 4, 8, 16];

const configPath = join(a.repo, a.name, 'config.json');
const cfg = JSON.parse(readFileSync(configPath, 'utf8')) as { word_lm?: Partial<WordLmSpec> };
const old = cfg.word_lm ?? {};
/** the word model file, in the model folder */
const FILE = a.file ?? old.file ?? 'word-lm.bin';
/** per language, the function that decodes its part (a packed file's part is decompressed only for the languages tuned) */
const arrays = openWordLm(readFileSync(join(a.repo, a.name, FILE)));
/** the word-class model's file (`--class-file`, else the one config.json names, else `class-lm.bin` when the folder has it) */
const CLASS_FILE = a['class-file'] ?? old.class_file ?? (existsSync(join(a.repo, a.name, 'class-lm.bin')) ? 'class-lm.bin' : undefined);
const classArrays = CLASS_FILE ? openWordLm(readFileSync(join(a.repo, a.name, CLASS_FILE))) : new Map<string, () => LangArrays>();
/** the spelling model's file (`--spelling-file`, else the one config.json names, else `spelling-lm.bin` when the folder has it) */
const SPELLING_FILE = a['spelling-file'] ?? old.spelling_file ?? (existsSync(join(a.repo, a.name, 'spelling-lm.bin')) ? 'spelling-lm.bin' : undefined);
const spellingArrays = SPELLING_FILE ? openSpellingLm(readFileSync(join(a.repo, a.name, SPELLING_FILE))) : new Map<string, () => SpellingArrays>();
const base = { file: FILE, ...(CLASS_FILE ? { class_file: CLASS_FILE, class_suffix: old.class_suffix ?? DEFAULT_CLASS_SUFFIX } : {}), ...(SPELLING_FILE ? { spelling_file: SPELLING_FILE, unknown_candidates: old.unknown_candidates ?? DEFAULT_UNKNOWN_CANDIDATES } : {}), discount: 0.7, unigram_add: 0.5, max_candidates: Number(a['max-candidates']), candidate_beam: Number(a['candidate-beam']), max_states: DEFAULT_MAX_STATES, order: Number(a.order) };
const m = await openDiacnet(new ModelRepository(a.repo), a.name, { executionProvider: 'cpu', intraOpThreads: 1 }, false);

/** `wu`: the network's weight for a word neither the text nor a dictionary writes (null: `w`) */
type Setting = { w: number; lex: number; prior: number; plain: number; cls: number; harmony: number; spell: number; wu: number | null; known: number; name: number };
const chosen = new Map<string, Setting>();
const rows: Array<Record<string, string | number>> = [];
for (const lang of Object.keys(DIACRITICS_SOURCES)) {
  if (a.only && !a.only.split(',').includes(lang)) continue;
  const dev = linesWithRole(lang, 'dev', a.corpora ?? CORPORA).slice(0, Number(a.lines));
  if (dev.length === 0) { console.log(`${lang}: no development lines, settings kept`); continue; }
  const texts = plannedLines(dev, a.name!, lang, m.candidates);
  const probs = await scoreTexts(m, texts);
  const o = { language: lang, minConfidence: 0, caseEndings: true };
  /** Arabic is scored by DER with case endings (lower is better), the others by alpha-word accuracy */
  const byDer = lang === 'ara';
  /** the figure to raise: alpha-word accuracy %, or 100 minus the DER % */
  const accuracy = (got: (t: PlannedText, k: number) => string) => {
    let ok = 0; let n = 0;
    texts.forEach((t, k) => {
      const want = dev[k]!; const text = got(t, k);
      if (byDer) { const e = der(want, text).all; ok += e[1] - e[0]; n += e[1]; } else { const [x, y] = wordScore(want, text, lang); ok += x; n += y; }
    });
    return 100 * ok / Math.max(1, n);
  };
  const fmt = (v: number) => (byDer ? `DER ${(100 - v).toFixed(2)}` : v.toFixed(2));
  const wordArrays = arrays.get(lang)!();
  const classOfLang = classArrays.get(lang)?.();
  const spellingOfLang = spellingArrays.get(lang)?.();
  const cache = new Map<string, number>();
  const score = (s: Setting) => {
    const key = `${s.w}/${s.lex}/${s.prior}/${s.plain}/${s.cls}/${s.harmony}/${s.spell}/${s.wu}/${s.known}/${s.name}`;
    let v = cache.get(key);
    if (v === undefined) {
      const lm = new WordLm({ ...base, char_weight: { default: s.w }, lexicon_add: { default: s.lex }, prior_weight: { default: s.prior }, unknown_plain: { default: s.plain }, class_weight: { default: s.cls }, harmony_weight: { default: s.harmony }, spelling_weight: { default: s.spell }, unknown_char_weight: { default: s.wu ?? s.w }, known_spelling_weight: { default: s.known }, name_bonus: { default: s.name } }, new Map([[lang, wordArrays]]), classOfLang ? new Map([[lang, classOfLang]]) : null, spellingOfLang ? new Map([[lang, spellingOfLang]]) : null);
      v = accuracy((t, k) => restore(t.us, t.slots, probs[k]!, m.classes, { ...o, chosen: decodeText(lm, lang, t.us, t.slots, probs[k]!, m.classes, 0.01) }));
      cache.set(key, v);
    }
    return v;
  };
  const best = (list: Setting[]) => list.reduce((x, y) => (score(y) > score(x) + 1e-9 ? y : x));
  let s: Setting = { w: 0.5, lex: 0, prior: 0, plain: 0, cls: 0, harmony: 0, spell: 0, wu: null, known: 0, name: 0 };
  s = best(CHAR_WEIGHTS.map((w) => ({ ...s, w })));
  const plain = score(s);
  s = best(LEXICON_ADDS.map((lex) => ({ ...s, lex })));
  s = best(PRIOR_WEIGHTS.map((prior) => ({ ...s, prior })));
  s = best(CHAR_WEIGHTS.map((w) => ({ ...s, w })));
  s = best(LEXICON_ADDS.map((lex) => ({ ...s, lex })));
  s = best(PRIOR_WEIGHTS.map((prior) => ({ ...s, prior })));
  const lexicons = score(s);
  s = best(UNKNOWN_PLAINS.map((plain) => ({ ...s, plain })));
  s = best(CHAR_WEIGHTS.map((w) => ({ ...s, w })));
  s = best(UNKNOWN_PLAINS.map((plain) => ({ ...s, plain })));
  const unknown = score(s);
  if (classOfLang) {
    s = best(CLASS_WEIGHTS.map((cls) => ({ ...s, cls })));
    s = best(CHAR_WEIGHTS.map((w) => ({ ...s, w })));
    s = best(CLASS_WEIGHTS.map((cls) => ({ ...s, cls })));
    s = best(PRIOR_WEIGHTS.map((prior) => ({ ...s, prior })));
  }
  const classes = score(s);
  if (VOWEL_HARMONY_LANGUAGES.has(lang)) {
    s = best(HARMONY_WEIGHTS.map((harmony) => ({ ...s, harmony })));
    s = best(CHAR_WEIGHTS.map((w) => ({ ...s, w })));
    s = best(HARMONY_WEIGHTS.map((harmony) => ({ ...s, harmony })));
  }
  const harmony = score(s);
  if (spellingOfLang) {
    // the two weights together (one at a time stalled: Polish with the mini found no
    // spelling weight worth taking at the network's char_weight, then no unknown_char_weight
    // worth taking without a spelling weight)
    const both = () => best(SPELLING_WEIGHTS.flatMap((spell) => UNKNOWN_CHAR_WEIGHTS.map((wu) => ({ ...s, spell, wu }))));
    s = both();
    s = best(SPELLING_PLAINS.map((plain) => ({ ...s, plain })));
    s = both();
  }
  const unknownWords = score(s);
  if (wordArrays.namesLen.length > 0) s = best(NAME_BONUSES.map((name) => ({ ...s, name })));
  const names = score(s);
  if (spellingOfLang) {
    s = best(KNOWN_SPELLING_WEIGHTS.map((known) => ({ ...s, known })));
    s = best(CHAR_WEIGHTS.map((w) => ({ ...s, w })));
    s = best(KNOWN_SPELLING_WEIGHTS.map((known) => ({ ...s, known })));
  }
  chosen.set(lang, s);
  const row = { language: lang, lines: dev.length, network: fmt(accuracy((t, k) => restore(t.us, t.slots, probs[k]!, m.classes, o))), 'word LM': fmt(plain), 'with lexicons': fmt(lexicons), 'unknown words as typed': fmt(unknown), 'word classes': fmt(classes), 'vowel harmony': fmt(harmony), 'unknown words': fmt(unknownWords), 'place names': fmt(names), 'spelling of known words': fmt(score(s)), char_weight: s.w, lexicon_add: s.lex, prior_weight: s.prior, unknown_plain: s.plain, class_weight: s.cls, harmony_weight: s.harmony, spelling_weight: s.spell, unknown_char_weight: s.wu ?? s.w, known_spelling_weight: s.known, name_bonus: s.name };
  rows.push(row);
  console.table([row]);
}
console.table(rows);
const record = (pick: (s: Setting) => number, prev: Readonly<Record<string, number>> | undefined, fallback: number) => {
  const out: Record<string, number> = { ...(prev ?? {}), default: prev?.default ?? fallback };
  for (const [lang, s] of chosen) out[lang] = pick(s);
  return out;
};
const spec = { ...base, char_weight: record((s) => s.w, old.char_weight, 0.5), lexicon_add: record((s) => s.lex, old.lexicon_add, 0), prior_weight: record((s) => s.prior, old.prior_weight, 0), unknown_plain: record((s) => s.plain, old.unknown_plain, 0), ...(CLASS_FILE ? { class_weight: record((s) => s.cls, old.class_weight, 0) } : {}), harmony_weight: record((s) => s.harmony, old.harmony_weight, 0), ...(SPELLING_FILE ? { spelling_weight: record((s) => s.spell, old.spelling_weight, 0), unknown_char_weight: { ...(old.unknown_char_weight ?? {}), ...Object.fromEntries([...chosen].map(([lang, s]) => [lang, s.wu ?? s.w])) }, known_spelling_weight: record((s) => s.known, old.known_spelling_weight, 0) } : {}), name_bonus: record((s) => s.name, old.name_bonus, 0) };
console.log('settings:', JSON.stringify(spec));
if (a.write) {
  (cfg as Record<string, unknown>).word_lm = { ...spec, tuned_on: `the news development set (scripts/diacritics-data.ts NEWS_DEV; Arabic: half of its held-out split, HELD_OUT_DEV_LANGUAGES, by DER), up to ${a.lines} lines per language` };
  writeFileSync(configPath, `${JSON.stringify(cfg, null, 2)}\n`);
  console.log(`wrote word_lm to ${configPath}`);
}
