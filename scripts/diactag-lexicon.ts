/**
 * Builds diactag-2.0's word lexicon (services/capabilities/diacritize/form-lexicon.ts) from
 * the training text (scripts/diacritics-data.ts mostFrequentForms: role `train`, neither the
 * held-out split nor the news development set) and chooses, per language, the least share
 * and the least count at which a word's most frequent form is taken over the tagger's
 * letters, on the news development set (alpha-word accuracy, scripts/diacritics-score.ts;
 * the first `--lines` lines per language, 600 by default as for the diacnet word model).
 * A language whose best setting is no better than the tagger alone gets none and does not
 * use the lexicon. Writes `lexicon.tsv.br` into the model folder and `lexicon` into its
 * config.json.
 *
 * Usage: `npm run train:diactag-lexicon [-- --repo models/] [--lines 600]`
 * @throws Error when diactag-2.0 is not installed in the repository
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { brotliCompressSync, constants as zlib } from 'node:zlib';
import { openTagger, scoreSlots, type Row } from '../services/capabilities/diacritize/backends/diactag.ts';
import { FormLexicon, type FormEntry, type FormLexiconSpec } from '../services/capabilities/diacritize/form-lexicon.ts';
import { stripMarks, units } from '../services/capabilities/diacritize/marks.ts';
import { restore, slotsOf } from '../services/capabilities/diacritize/tagger.ts';
import { prepare, slotFeatures } from '../services/capabilities/diacritize/tagger-features.ts';
import { ModelRepository } from '../services/models/repository.ts';
import { DIACRITICS_SOURCES, linesWithRole, mostFrequentForms } from './diacritics-data.ts';
import { wordScore } from './diacritics-score.ts';

const NAME = 'diactag-2.0';
const FILE = 'lexicon.tsv.br';
/** The settings tried: the least share of the word's occurrences, and the least count. */
const MIN_SHARES = [0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99];
const MIN_COUNTS = [1, 2, 3, 5];
/** Log-odds added to the letters as typed of a word the lexicon does not hold. */
const UNKNOWN_PLAINS = [0, 0.5, 1, 2, 4];

const { values: a } = parseArgs({ options: { repo: { type: 'string' }, lines: { type: 'string', default: '600' } } });
const repoDir = a.repo ?? fileURLToPath(new URL('../models/', import.meta.url));
const repo = new ModelRepository(repoDir);
const m = await openTagger(repo, NAME, { executionProvider: 'cpu', intraOpThreads: 1 });

const entries = new Map<string, Map<string, FormEntry>>();
for (const lang of Object.keys(DIACRITICS_SOURCES)) {
  const out = new Map<string, FormEntry>();
  for (const [key, e] of mostFrequentForms(lang)) if (e.share >= MIN_SHARES[0]!) out.set(key, e);
  entries.set(lang, out);
}
const lexicon = new FormLexicon(entries);

const minShare: Record<string, number> = {};
const minCount: Record<string, number> = {};
const unknownPlain: Record<string, number> = {};
const rows: Array<Record<string, string | number>> = [];
for (const lang of Object.keys(DIACRITICS_SOURCES)) {
  const dev = linesWithRole(lang, 'dev').slice(0, Number(a.lines));
  if (dev.length === 0) { console.log(`${lang}: no development lines, lexicon not used`); continue; }
  const texts = dev.map((want) => {
    const input = stripMarks(want);
    const us = units(input);
    const slots = slotsOf(us, input, m.candidates[lang]);
    const p = prepare(us);
    return { want, us, slots, rows: slots.map((slot): Row => ({ item: 0, slot, ids: slotFeatures(p, slot.unit, lang, m.features) })) };
  });
  const C = m.classes.length;
  const probs = await scoreSlots(m, texts.flatMap((t) => t.rows));
  const accuracy = (share: number, count: number, plain = 0) => {
    let ok = 0; let n = 0; let row = 0;
    for (const t of texts) {
      const p = probs.slice(row * C, (row + t.slots.length) * C);
      row += t.slots.length;
      if (share <= 1) lexicon.apply(lang, t.us, t.slots, p, m.classes, share, count, plain);
      const [x, y] = wordScore(t.want, restore(t.us, t.slots, p, m.classes, { language: lang, minConfidence: 0, caseEndings: true }), lang);
      ok += x; n += y;
    }
    return 100 * ok / Math.max(1, n);
  };
  const alone = accuracy(2, 0);
  let best = { share: 2, count: 0, acc: alone };
  for (const share of MIN_SHARES) for (const count of MIN_COUNTS) {
    const acc = accuracy(share, count);
    if (acc > best.acc + 1e-9) best = { share, count, acc };
  }
  let plain = 0;
  if (best.share <= 1) {
    for (const x of UNKNOWN_PLAINS) { const acc = accuracy(best.share, best.count, x); if (acc > best.acc + 1e-9) { best = { ...best, acc }; plain = x; } }
    minShare[lang] = best.share; minCount[lang] = best.count;
    if (plain > 0) unknownPlain[lang] = plain;
  }
  rows.push({ language: lang, lines: dev.length, entries: entries.get(lang)!.size, 'tagger alone': alone.toFixed(2), 'with the lexicon': best.acc.toFixed(2), min_share: best.share <= 1 ? best.share : '–', min_count: best.share <= 1 ? best.count : '–', unknown_plain: plain });
}
console.table(rows);

// a language without a setting (Arabic: no development text) does not use its entries
for (const lang of [...entries.keys()]) if (!(lang in minShare)) entries.delete(lang);
const text = Buffer.from(FormLexicon.serialise(entries), 'utf8');
writeFileSync(join(repoDir, NAME, FILE), brotliCompressSync(text, { params: { [zlib.BROTLI_PARAM_QUALITY]: 9, [zlib.BROTLI_PARAM_SIZE_HINT]: text.length } }));
const configPath = join(repoDir, NAME, 'config.json');
const cfg = JSON.parse(readFileSync(configPath, 'utf8')) as Record<string, unknown>;
const spec: FormLexiconSpec & { tuned_on: string } = { file: FILE, min_share: minShare, min_count: minCount, unknown_plain: unknownPlain, tuned_on: `the news development set (scripts/diacritics-data.ts NEWS_DEV), up to ${a.lines} lines per language` };
cfg.lexicon = spec;
writeFileSync(configPath, `${JSON.stringify(cfg, null, 2)}\n`);
console.log(`wrote ${join(repoDir, NAME, FILE)} (${(text.length / 1e6).toFixed(1)} MB of text) and lexicon settings to ${configPath}`);
