/**
 * Training data of the diacnet models (scripts/train_diacnet.py): the training lines of
 * scripts/diacritics-data.ts (held-out and news development lines left out) as sequences of character ids of
 * the text without marks, lower case (one per unit, services/capabilities/diacritize/
 * marks.ts), with the class of each letter that has a choice in its language (classes and
 * candidates of diactag-2.0, so that the models share one class space) and the language.
 * Lines longer than {@link WINDOW} units are cut into windows.
 *
 * Usage: `node --import tsx scripts/diacnet-data.ts --out DIR [--max-lines N] [--max-chars N] [--corpora DIR] [--write-lines FILE | --lines FILE]` (npm run train:diacnet runs it)
 * `--write-lines FILE` also writes the training lines chosen (`language<TAB>line`, Brotli
 * when FILE ends in `.br`); `--lines FILE` reads such a file instead of the corpora, so that a
 * machine without `../shared` (a GPU machine lent for training) builds the same arrays.
 * Writes DIR/{chars,targets,cands,featrow}.i32 (concatenated sequences; featrow: the
 * letter's row of DIR/feats.u32, its hashed context features, or -1), DIR/seqs.i32 (per
 * sequence: start, length, language), DIR/candmask.u8 ([candidate sets, classes]),
 * DIR/meta.json (vocabulary, languages, classes, candidates).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { brotliCompressSync, brotliDecompressSync, constants as zlib } from 'node:zlib';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CORPORA, DIACRITICS_SOURCES, MARKED_LANGUAGES, linesOf } from './diacritics-data.ts';
import { formOf, units } from '../services/capabilities/diacritize/marks.ts';
import { classOf, type TaggerCandidates } from '../services/capabilities/diacritize/tagger.ts';
import { prepare, slotFeatures, type TaggerFeatureSpec } from '../services/capabilities/diacritize/tagger-features.ts';

/** Longest sequence, units. */
export const WINDOW = 256;
/** The hashed context features of each letter with a choice (diactag's, tagger-features.ts), the word-level input of the network. */
export const FEATURES: TaggerFeatureSpec = { buckets: 1 << 18, window: 4 };
/** Feature ids per letter, padded with FEATURES.buckets (the zero row). */
export const FEATURES_PER_LETTER = 1 + 2 * FEATURES.window + 9 + 4;
/** A character seen fewer times than this in the training text gets the unknown id. */
const MIN_CHAR_COUNT = 5;

const { values: args } = parseArgs({ options: { out: { type: 'string' }, classes: { type: 'string' }, 'max-lines': { type: 'string' }, 'max-chars': { type: 'string' }, corpora: { type: 'string' }, lines: { type: 'string' }, 'write-lines': { type: 'string' } } });
/** Most training lines per language (tests build tiny models with few). */
const MAX_LINES = Number(args['max-lines'] ?? Infinity);
/**
 * Most training characters per language, in file order (default 12 million): the
 * 2017 Vietnamese Wikipedia alone is 52 million, which would outweigh the other ten
 * languages in a time-boxed training and not fit the feature arrays in memory; the word
 * model (scripts/word-lm.ts) reads all of it.
 */
const MAX_CHARS = Number(args['max-chars'] ?? 12_000_000);
const OUT = args.out ?? '/tmp/diacnet-data';
const TAGGER = args.classes ?? fileURLToPath(new URL('../models/diactag-2.0/', import.meta.url));
const classes = JSON.parse(readFileSync(join(TAGGER, 'classes.json'), 'utf8')) as string[];
const candidates = JSON.parse(readFileSync(join(TAGGER, 'candidates.json'), 'utf8')) as TaggerCandidates;
const classIndex = new Map(classes.map((c, i) => [c, i]));
const languages = Object.keys(DIACRITICS_SOURCES);

// candidate sets: one id per (language, letter)
const candSets: number[][] = [];
const candId = new Map<string, number>();
for (const lang of languages) for (const [base, list] of Object.entries(candidates[lang] ?? {})) { candId.set(`${lang}\t${base}`, candSets.length); candSets.push(list); }

const lines: Array<{ lang: number; text: string }> = [];
if (args.lines) {
  const raw = readFileSync(args.lines);
  for (const row of (args.lines.endsWith('.br') ? brotliDecompressSync(raw) : raw).toString('utf8').split('\n')) {
    const tab = row.indexOf('\t');
    if (tab < 0) continue;
    const li = languages.indexOf(row.slice(0, tab));
    if (li < 0) throw new Error(`${args.lines}: unknown language ${row.slice(0, tab)}`);
    lines.push({ lang: li, text: row.slice(tab + 1) });
  }
} else {
  for (const [li, lang] of languages.entries()) {
    let taken = 0;
    let chars = 0;
    for (const l of linesOf(lang, args.corpora ?? CORPORA)) {
      if (taken >= MAX_LINES || chars >= MAX_CHARS) break;
      if (l.role !== 'train') continue;
      // a line without any mark in a language that writes them is text written without marks: left out
      if (MARKED_LANGUAGES.has(lang) && !units(l.text).some((u) => u.marked)) continue;
      lines.push({ lang: li, text: l.text });
      taken++;
      chars += l.text.length;
    }
  }
}
if (args['write-lines']) {
  const text = Buffer.from(lines.map((l) => `${languages[l.lang]}\t${l.text}\n`).join(''), 'utf8');
  writeFileSync(args['write-lines'], args['write-lines'].endsWith('.br') ? brotliCompressSync(text, { params: { [zlib.BROTLI_PARAM_QUALITY]: 9, [zlib.BROTLI_PARAM_LGWIN]: 24, [zlib.BROTLI_PARAM_SIZE_HINT]: text.length } }) : text);
}
const charCount = new Map<string, number>();
for (const { text } of lines) for (const u of units(text)) charCount.set(u.context, (charCount.get(u.context) ?? 0) + 1);
// 0 = padding, 1 = unknown
const vocab = ['\u0000pad', '\u0000unk', ...[...charCount].filter(([, n]) => n >= MIN_CHAR_COUNT).sort((a, b) => b[1] - a[1]).map(([c]) => c)];
const charId = new Map(vocab.map((c, i) => [c, i]));

const chars: number[] = []; const targets: number[] = []; const cands: number[] = []; const seqs: number[] = [];
/** per unit: the row of its features in `feats`, or -1 */
const featRow: number[] = [];
let feats = new Uint32Array(1 << 24); let featCount = 0;
for (const { lang, text } of lines) {
  const us = units(text);
  const language = languages[lang]!;
  const prepared = prepare(us);
  for (let s = 0; s < us.length; s += WINDOW) {
    const piece = us.slice(s, s + WINDOW);
    seqs.push(chars.length, piece.length, lang);
    for (let j = 0; j < piece.length; j++) {
      const u = piece[j]!;
      chars.push(charId.get(u.context) ?? 1);
      const cid = u.letter ? candId.get(`${language}\t${u.base}`) : undefined;
      const cls = cid === undefined ? undefined : classIndex.get(classOf(formOf(u, language), u.base));
      const ok = cid !== undefined && cls !== undefined && candSets[cid]!.includes(cls);
      targets.push(ok ? cls! : -1);
      cands.push(ok ? cid! : -1);
      if (ok) {
        if ((featCount + 1) * FEATURES_PER_LETTER > feats.length) { const f = new Uint32Array(feats.length * 2); f.set(feats); feats = f; }
        const ids = slotFeatures(prepared, s + j, language, FEATURES);
        feats.fill(FEATURES.buckets, featCount * FEATURES_PER_LETTER, (featCount + 1) * FEATURES_PER_LETTER);
        feats.set(ids, featCount * FEATURES_PER_LETTER);
        featRow.push(featCount++);
      } else featRow.push(-1);
    }
  }
}
mkdirSync(OUT, { recursive: true });
const write = (name: string, a: ArrayLike<number>, T: Int32ArrayConstructor | Uint8ArrayConstructor) => writeFileSync(join(OUT, name), Buffer.from(T.from(a).buffer));
write('featrow.i32', featRow, Int32Array);
writeFileSync(join(OUT, 'feats.u32'), Buffer.from(feats.buffer, 0, featCount * FEATURES_PER_LETTER * 4));
write('chars.i32', chars, Int32Array); write('targets.i32', targets, Int32Array); write('cands.i32', cands, Int32Array); write('seqs.i32', seqs, Int32Array);
const mask = new Uint8Array(candSets.length * classes.length);
candSets.forEach((list, k) => { for (const c of list) mask[k * classes.length + c] = 1; });
writeFileSync(join(OUT, 'candmask.u8'), mask);
writeFileSync(join(OUT, 'meta.json'), JSON.stringify({ vocab, languages, classes, candidates, candSets: candSets.length, units: chars.length, sequences: seqs.length / 3, features: FEATURES, featuresPerLetter: FEATURES_PER_LETTER }));
console.log(`${lines.length} lines, ${seqs.length / 3} sequences, ${chars.length} units, ${targets.filter((t) => t >= 0).length} letters with a choice, ${vocab.length} characters`);
