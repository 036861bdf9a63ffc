/**
 * `npm run train:diacritics`: trains diactag-2.0, the cheapest diacritic-restoration
 * model (issue 13), and writes it to the model repository (`models/diactag-2.0/`: ONNX
 * graph, config.json, classes.json, candidates.json, card.md).
 *
 * Model: per letter that may take a mark, a fastText-style classifier (Joulin et al.
 * 2017: the mean of hashed feature embeddings, a linear layer, a softmax) over the marks
 * the letter takes in that language (services/capabilities/diacritize/tagger-features.ts
 * for the features; the softmax runs over the letter's candidates only). It never
 * changes a letter: a class is the sequence of combining marks added to it (or, for
 * ł ı đ ɓ ɗ ƙ ƴ, the letter that replaces it). Trained by SGD with a linearly decaying
 * learning rate, seeded; the ONNX graph is the language-ID one (scripts/lid-onnx.ts),
 * with the candidates as the label mask.
 *
 * Data: scripts/diacritics-data.ts (sources and licences); the news development set and
 * one line in ten of the rest (by a seeded hash) are never trained on, nor is the 2017
 * Vietnamese Wikipedia (it would fill most of Vietnamese's letters with one register). In Yorùbá, Igbo, Hausa, Vietnamese and Arabic
 * a line with no mark at all is taken for text written without marks and weighs
 * {@link UNMARKED_WEIGHT}.
 *
 * Usage: `npm run train:diacritics [-- --out DIR] [--epochs N] [--max-slots N]`;
 * `npm run train:diacritics -- --model diacnet-2.0` (or `diacnet-mini-2.0`) trains a diacnet
 * model instead, with its recipe (scripts/train-diacnet.ts, `npm run train:diacnet`).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { DIACNET_RECIPES } from './diacnet-recipes.ts';
import { exportEmbeddingBag, LID_INPUTS, LID_OUTPUTS } from './lid-onnx.ts';
import { rng } from './rng.ts';
import { DIACRITICS_SOURCES, MARKED_LANGUAGES, UNMARKED_WEIGHT, linesOf, wordModelOnly } from './diacritics-data.ts';
import { formOf, hasMarks, units } from '../services/capabilities/diacritize/marks.ts';
import { classOf, type TaggerCandidates } from '../services/capabilities/diacritize/tagger.ts';
import { prepare, slotFeatures, type TaggerFeatureSpec } from '../services/capabilities/diacritize/tagger-features.ts';

const { values: args } = parseArgs({ options: { out: { type: 'string' }, epochs: { type: 'string' }, 'max-slots': { type: 'string' }, seed: { type: 'string' }, model: { type: 'string', default: 'diactag-2.0' } } });
if (args.model !== 'diactag-2.0') {
  if (!(args.model! in DIACNET_RECIPES)) throw new Error(`--model must be diactag-2.0, ${Object.keys(DIACNET_RECIPES).join(' or ')}`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./train-diacnet.ts', import.meta.url)), '--name', args.model!, ...(args.out ? ['--out', args.out] : []), ...(args.seed ? ['--seed', args.seed] : [])], { stdio: 'inherit' });
  process.exit(r.status ?? 1);
}
const OUT = args.out ?? fileURLToPath(new URL('../models/', import.meta.url));
const NAME = 'diactag-2.0';
const SEED = Number(args.seed ?? 13);
const EPOCHS = Number(args.epochs ?? 4);
/** Most training slots per language (lines are taken in a seeded random order until it is reached). */
const MAX_SLOTS = Number(args['max-slots'] ?? 1_500_000);
/** A marked form seen fewer times than this for a letter in a language is taken for a typo and not learnt. */
const MIN_FORM_COUNT = 3;
const SPEC: TaggerFeatureSpec = { buckets: 1 << 18, window: 4 };
const DIM = 32;
const LR = 0.3;

const rand = rng(SEED);
function shuffle<T>(a: T[]): T[] {
  for (let i = a.length - 1; i > 0; i--) { const j = Math.floor(rand() * (i + 1)); [a[i], a[j]] = [a[j]!, a[i]!]; }
  return a;
}

const t0 = Date.now();
const log = (msg: string) => console.log(`[${((Date.now() - t0) / 1000).toFixed(0)} s] ${msg}`);

// --- candidates: the marked forms of each letter per language --------------------------
const languages = Object.keys(DIACRITICS_SOURCES);
const train = new Map<string, Array<{ text: string; weight: number }>>();
const counts = new Map<string, Map<string, number>>(); // `${lang}\t${base}` → class → count
for (const lang of languages) {
  const all = linesOf(lang);
  const lines = all.filter((l) => l.role === 'train' && !wordModelOnly(l.source));
  const kept: Array<{ text: string; weight: number }> = [];
  for (const l of lines) {
    const us = units(l.text);
    const marked = us.some((u) => u.letter && hasMarks(u.text));
    const weight = MARKED_LANGUAGES.has(lang) && !marked ? UNMARKED_WEIGHT : 1;
    kept.push({ text: l.text, weight });
    if (weight < 1) continue;
    for (const u of us) {
      if (!u.letter) continue;
      const key = `${lang}\t${u.base}`;
      let m = counts.get(key);
      if (!m) counts.set(key, (m = new Map()));
      const c = classOf(formOf(u, lang), u.base);
      m.set(c, (m.get(c) ?? 0) + 1);
    }
  }
  train.set(lang, shuffle(kept));
  log(`${lang}: ${kept.length} training lines (${all.length - lines.length} held out), ${kept.filter((k) => k.weight < 1).length} without marks`);
}

const classes: string[] = [''];
const classIndex = new Map<string, number>([['', 0]]);
const candidates: TaggerCandidates = {};
for (const [key, m] of counts) {
  const [lang, base] = key.split('\t') as [string, string];
  const kept = [...m].filter(([c, n]) => c === '' || n >= MIN_FORM_COUNT).map(([c]) => c);
  if (!kept.includes('')) kept.push('');
  if (kept.length < 2) continue;
  const ids = kept.map((c) => {
    let i = classIndex.get(c);
    if (i === undefined) { i = classes.length; classes.push(c); classIndex.set(c, i); }
    return i;
  }).sort((a, b) => a - b);
  (candidates[lang] ??= {})[base] = ids;
}
log(`${classes.length} classes; letters with a choice: ${languages.map((l) => `${l} ${Object.keys(candidates[l] ?? {}).length}`).join(', ')}`);

// --- examples ---------------------------------------------------------------------------
interface Examples { ids: Uint32Array; offsets: Uint32Array; y: Uint16Array; cand: Uint32Array; weight: Float32Array; n: number; }
const candLists: number[][] = [];
const candKey = new Map<string, number>();
const keyOf = (lang: string, base: string): number => {
  const k = `${lang}\t${base}`;
  let i = candKey.get(k);
  if (i === undefined) { i = candLists.length; candLists.push(candidates[lang]![base]!); candKey.set(k, i); }
  return i;
};
/** A Uint32Array that grows by doubling (JavaScript arrays stop at about 2^27 elements). */
class Growable {
  data = new Uint32Array(1 << 20);
  length = 0;
  push(v: number): void {
    if (this.length === this.data.length) { const d = new Uint32Array(this.data.length * 2); d.set(this.data); this.data = d; }
    this.data[this.length++] = v;
  }
}
function examples(): Examples {
  const ids = new Growable(); const offsets: number[] = [0]; const y: number[] = []; const cand: number[] = []; const weight: number[] = [];
  for (const lang of languages) {
    let slots = 0;
    for (const line of train.get(lang)!) {
      if (slots >= MAX_SLOTS) break;
      const us = units(line.text);
      const p = prepare(us);
      for (let i = 0; i < us.length; i++) {
        const u = us[i]!;
        const list = u.letter ? candidates[lang]?.[u.base] : undefined;
        if (!list) continue;
        const c = classIndex.get(classOf(formOf(u, lang), u.base));
        if (c === undefined || !list.includes(c)) continue;
        for (const f of slotFeatures(p, i, lang, SPEC)) ids.push(f);
        offsets.push(ids.length); y.push(c); cand.push(keyOf(lang, u.base)); weight.push(line.weight);
        slots++;
      }
    }
    log(`${lang}: ${slots} training slots`);
  }
  return { ids: ids.data.subarray(0, ids.length), offsets: Uint32Array.from(offsets), y: Uint16Array.from(y), cand: Uint32Array.from(cand), weight: Float32Array.from(weight), n: y.length };
}
const ex = examples();
log(`${ex.n} slots, ${ex.ids.length} feature ids`);

// --- training: SGD on the softmax over each slot's candidates -----------------------------
const C = classes.length;
const E = new Float32Array(SPEC.buckets * DIM);
for (let i = 0; i < E.length; i++) E[i] = (rand() * 2 - 1) / DIM;
const W = new Float32Array(C * DIM); // [classes, dim]
const b = new Float32Array(C);
const h = new Float32Array(DIM);
const gh = new Float32Array(DIM);
const z = new Float64Array(64);
const order = new Uint32Array(ex.n);
for (let i = 0; i < ex.n; i++) order[i] = i;
const total = EPOCHS * ex.n;
let seen = 0;
for (let epoch = 0; epoch < EPOCHS; epoch++) {
  for (let i = ex.n - 1; i > 0; i--) { const j = Math.floor(rand() * (i + 1)); const t = order[i]!; order[i] = order[j]!; order[j] = t; }
  let loss = 0;
  for (let k = 0; k < ex.n; k++) {
    const e = order[k]!;
    const lr = LR * (1 - seen++ / total) * ex.weight[e]!;
    const from = ex.offsets[e]!; const to = ex.offsets[e + 1]!;
    h.fill(0);
    for (let f = from; f < to; f++) { const o = ex.ids[f]! * DIM; for (let j = 0; j < DIM; j++) h[j]! += E[o + j]!; }
    const inv = 1 / (to - from);
    for (let j = 0; j < DIM; j++) h[j]! *= inv;
    const list = candLists[ex.cand[e]!]!;
    let max = -Infinity;
    for (let c = 0; c < list.length; c++) {
      const o = list[c]! * DIM; let s = b[list[c]!]!;
      for (let j = 0; j < DIM; j++) s += h[j]! * W[o + j]!;
      z[c] = s; if (s > max) max = s;
    }
    let sum = 0;
    for (let c = 0; c < list.length; c++) { z[c] = Math.exp(z[c]! - max); sum += z[c]!; }
    const yc = ex.y[e]!;
    gh.fill(0);
    for (let c = 0; c < list.length; c++) {
      const cls = list[c]!;
      const p = z[c]! / sum;
      if (cls === yc) loss -= Math.log(Math.max(p, 1e-12));
      const g = p - (cls === yc ? 1 : 0);
      if (g > -1e-6 && g < 1e-6) continue;
      const o = cls * DIM; const a = lr * g;
      for (let j = 0; j < DIM; j++) { gh[j]! += g * W[o + j]!; W[o + j]! -= a * h[j]!; }
      b[cls]! -= a;
    }
    const s = lr * inv;
    for (let f = from; f < to; f++) { const o = ex.ids[f]! * DIM; for (let j = 0; j < DIM; j++) E[o + j]! -= s * gh[j]!; }
  }
  log(`epoch ${epoch + 1}/${EPOCHS}: mean loss ${(loss / ex.n).toFixed(4)}`);
}

// --- export -------------------------------------------------------------------------------
const Wt = new Float32Array(DIM * C); // [dim, classes]
for (let c = 0; c < C; c++) for (let j = 0; j < DIM; j++) Wt[j * C + c] = W[c * DIM + j]!;
const dir = join(OUT, NAME);
mkdirSync(join(dir, '1'), { recursive: true });
writeFileSync(join(dir, '1', 'model.onnx'), exportEmbeddingBag({ E, W: Wt, b, buckets: SPEC.buckets, dim: DIM, classes: C }));
writeFileSync(join(dir, 'classes.json'), JSON.stringify(classes));
writeFileSync(join(dir, 'candidates.json'), JSON.stringify(candidates));
writeFileSync(join(dir, 'config.json'), `${JSON.stringify({
  name: NAME, capability: 'diacritize', backend: 'diactag', max_batch_size: 64,
  dynamic_batching: { max_queue_delay_ms: 2, max_queue_size: 2048 }, instance_count: 1, version_policy: { latest: {} }, model_file: 'model.onnx',
  inputs: LID_INPUTS, outputs: LID_OUTPUTS,
  features: SPEC, dim: DIM, classes: C, language_id_model: 'lid-lite-608',
  training: { seed: SEED, epochs: EPOCHS, max_slots_per_language: MAX_SLOTS, slots: ex.n, min_form_count: MIN_FORM_COUNT, unmarked_weight: UNMARKED_WEIGHT, lr: LR },
}, null, 2)}\n`);
log(`wrote ${dir}`);
