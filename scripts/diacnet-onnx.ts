/**
 * ONNX export of a diacnet model (weights from scripts/train_diacnet.py) and its model
 * folder. Graph (opset 13), N texts of T characters:
 * - chars int32[N, T] (vocabulary ids, 0 = padding), lang int32[N] (language index),
 *   valid float32[N, 1, T] (1 for a character, 0 for padding), mask float32[N, T, C]
 *   (0 for the letter's candidates, a large negative number for the rest);
 * - h = (Ec[chars] + El[lang]) · valid, as [N, E, T]; per layer i:
 *   a = ReLU(Conv(h, W_i, b_i; kernel 5, dilation d_i, same padding)) · valid,
 *   h = a (first layer) or h + a;
 * - feats int32[N, T, L] (a letter's hashed context features, padded with the id
 *   `buckets`, the zero row), fscale float32[N, T, 1] (1 / its number of features, 0 for
 *   characters without a choice): w = (Σ_l Ef[feats]) · fscale · P, the word-level input;
 * - probs float32[N, T, C] = softmax((h^T + w) · Wo + bo + mask).
 * NumPy's weights are [5·C_in, H] with row k·C_in + c; ONNX Conv wants [H, C_in, 5].
 *
 * Usage: `node --import tsx scripts/diacnet-onnx.ts --weights DIR --data DIR --name diacnet-mini-2.0 [--out models/]`
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { FLOAT, INT, INT32, INTS, int64s, onnx, tensor, valueInfo, type INodeProto, type ITensorProto } from './onnx-graph.ts';

/** Weights as train_diacnet.py writes them. */
export interface DiacnetWeights {
  names: string[]; shapes: Record<string, number[]>; dilations: number[]; kernel: number; hidden: number; emb: number;
  /** the hashed features' settings and ids per letter */
  features: { buckets: number; window: number }; features_per_letter: number;
  data: Record<string, Float32Array>;
}

/** Reads OUT/weights.json and OUT/weights.bin. */
export function readWeights(dir: string): DiacnetWeights {
  const meta = JSON.parse(readFileSync(join(dir, 'weights.json'), 'utf8')) as Omit<DiacnetWeights, 'data'>;
  const buf = readFileSync(join(dir, 'weights.bin'));
  const data: Record<string, Float32Array> = {};
  let off = 0;
  for (const n of meta.names) {
    const size = meta.shapes[n]!.reduce((a, b) => a * b, 1);
    data[n] = new Float32Array(buf.buffer.slice(buf.byteOffset + off, buf.byteOffset + off + size * 4));
    off += size * 4;
  }
  return { ...meta, data };
}

/** The ONNX model of a diacnet network. @returns the bytes of model.onnx */
export function exportDiacnet(w: DiacnetWeights): Uint8Array {
  const K = w.kernel;
  const init: ITensorProto[] = [
    tensor('Ec', w.shapes.Ec!, w.data.Ec!), tensor('El', w.shapes.El!, w.data.El!),
    tensor('Wo', w.shapes.Wo!, w.data.Wo!), tensor('bo', w.shapes.bo!, w.data.bo!), int64s('axis1', [1]), int64s('axis2', [2]),
    tensor('P', w.shapes.P!, w.data.P!),
  ];
  const [FB, F] = w.shapes.Ef as [number, number];
  const Ef = new Float32Array((FB + 1) * F);
  Ef.set(w.data.Ef!);
  init.push(tensor('Ef', [FB + 1, F], Ef));
  const node: INodeProto[] = [
    { opType: 'Gather', input: ['Ec', 'chars'], output: ['ec'], attribute: [{ name: 'axis', type: INT, i: 0 }] },
    { opType: 'Gather', input: ['El', 'lang'], output: ['el'], attribute: [{ name: 'axis', type: INT, i: 0 }] },
    { opType: 'Unsqueeze', input: ['el', 'axis1'], output: ['el3'] },
    { opType: 'Add', input: ['ec', 'el3'], output: ['h0t'] },
    { opType: 'Transpose', input: ['h0t'], output: ['h0u'], attribute: [{ name: 'perm', type: INTS, ints: [0, 2, 1] }] },
    { opType: 'Mul', input: ['h0u', 'valid'], output: ['h0'] },
  ];
  let h = 'h0';
  w.dilations.forEach((d, i) => {
    const [rows, H] = w.shapes[`W${i}`] as [number, number];
    const cin = rows / K;
    const src = w.data[`W${i}`]!;
    const W = new Float32Array(H * cin * K);
    for (let k = 0; k < K; k++) for (let c = 0; c < cin; c++) for (let o = 0; o < H; o++) W[(o * cin + c) * K + k] = src[(k * cin + c) * H + o]!;
    init.push(tensor(`W${i}`, [H, cin, K], W), tensor(`b${i}`, [H], w.data[`b${i}`]!));
    const pad = Math.floor(K / 2) * d;
    node.push(
      { opType: 'Conv', input: [h, `W${i}`, `b${i}`], output: [`c${i}`], attribute: [{ name: 'dilations', type: INTS, ints: [d] }, { name: 'pads', type: INTS, ints: [pad, pad] }, { name: 'kernel_shape', type: INTS, ints: [K] }] },
      { opType: 'Relu', input: [`c${i}`], output: [`r${i}`] },
      { opType: 'Mul', input: [`r${i}`, 'valid'], output: [`a${i}`] },
    );
    if (i === 0) h = `a${i}`;
    else { node.push({ opType: 'Add', input: [h, `a${i}`], output: [`h${i + 1}`] }); h = `h${i + 1}`; }
  });
  node.push(
    { opType: 'Transpose', input: [h], output: ['ht'], attribute: [{ name: 'perm', type: INTS, ints: [0, 2, 1] }] },
    { opType: 'Gather', input: ['Ef', 'feats'], output: ['frows'], attribute: [{ name: 'axis', type: INT, i: 0 }] },
    { opType: 'ReduceSum', input: ['frows', 'axis2'], output: ['fsum'], attribute: [{ name: 'keepdims', type: INT, i: 0 }] },
    { opType: 'Mul', input: ['fsum', 'fscale'], output: ['fbag'] },
    { opType: 'MatMul', input: ['fbag', 'P'], output: ['wlevel'] },
    { opType: 'Add', input: ['ht', 'wlevel'], output: ['hw'] },
    { opType: 'MatMul', input: ['hw', 'Wo'], output: ['scores'] },
    { opType: 'Add', input: ['scores', 'bo'], output: ['logits'] },
    { opType: 'Add', input: ['logits', 'mask'], output: ['masked'] },
    { opType: 'Softmax', input: ['masked'], output: ['probs'], attribute: [{ name: 'axis', type: INT, i: -1 }] },
  );
  const graph = {
    name: 'diacnet',
    input: [
      valueInfo('chars', INT32, ['N', 'T']), valueInfo('lang', INT32, ['N']), valueInfo('valid', FLOAT, ['N', 'one', 'T']),
      valueInfo('feats', INT32, ['N', 'T', 'L']), valueInfo('fscale', FLOAT, ['N', 'T', 'one']), valueInfo('mask', FLOAT, ['N', 'T', 'C']),
    ],
    output: [valueInfo('logits', FLOAT, ['N', 'T', 'C']), valueInfo('probs', FLOAT, ['N', 'T', 'C'])],
    initializer: init, node,
  };
  return onnx.ModelProto.encode(onnx.ModelProto.create({ irVersion: 8, producerName: 'lmstream train-diacnet', opsetImport: [{ domain: '', version: 13 }], graph })).finish();
}

/** Typed inputs and outputs written to config.json. */
export const DIACNET_INPUTS = {
  chars: { data_type: 'int32', dims: ['N', 'T'], doc: 'character ids of the text without marks, lower case (vocab.json; 0 = padding, 1 = unknown)' },
  lang: { data_type: 'int32', dims: ['N'], doc: 'index of the language in vocab.json languages' },
  valid: { data_type: 'float32', dims: ['N', 1, 'T'], doc: '1 for a character, 0 for padding' },
  feats: { data_type: 'int32', dims: ['N', 'T', 'L'], doc: "a letter's hashed context features (services/capabilities/diacritize/tagger-features.ts), padded with features.buckets" },
  fscale: { data_type: 'float32', dims: ['N', 'T', 1], doc: '1 / the number of features of a letter with a choice, 0 elsewhere' },
  mask: { data_type: 'float32', dims: ['N', 'T', 'C'], doc: "0 for the letter's candidate classes, a large negative number for the others" },
} as const;
export const DIACNET_OUTPUTS = {
  logits: { data_type: 'float32', dims: ['N', 'T', 'C'] },
  probs: { data_type: 'float32', dims: ['N', 'T', 'C'], doc: 'probability of each class per character' },
} as const;

/**
 * The model folder's config.json for exported weights: the serving settings, the inputs and
 * outputs, and `training` (weights.json without the tensor names and shapes). `previous`
 * is the config.json the folder had, if any: its `word_lm` settings are kept, since the
 * word model's file outlives a retrained network and tune-word-lm.ts retunes only the
 * languages that have a news development set (Arabic has none, so its settings would
 * otherwise fall back to the defaults).
 */
export function diacnetConfig(name: string, w: Pick<DiacnetWeights, 'features' | 'features_per_letter'>, training: Record<string, unknown>, previous?: { word_lm?: unknown }): Record<string, unknown> {
  const { names: _names, shapes: _shapes, ...rest } = training;
  return {
    name, capability: 'diacritize', backend: 'diacnet', max_batch_size: 64,
    dynamic_batching: { max_queue_delay_ms: 2, max_queue_size: 2048 }, instance_count: 1, version_policy: { latest: {} }, model_file: 'model.onnx',
    inputs: DIACNET_INPUTS, outputs: DIACNET_OUTPUTS, language_id_model: 'lid-lite-608', features: w.features, features_per_letter: w.features_per_letter, training: rest,
    ...(previous?.word_lm ? { word_lm: previous.word_lm } : {}),
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values: args } = parseArgs({ options: { weights: { type: 'string' }, data: { type: 'string' }, name: { type: 'string' }, out: { type: 'string' } } });
  const w = readWeights(args.weights!);
  const meta = JSON.parse(readFileSync(join(args.data!, 'meta.json'), 'utf8')) as { vocab: string[]; languages: string[]; classes: string[]; candidates: unknown };
  const dir = join(args.out ?? fileURLToPath(new URL('../models/', import.meta.url)), args.name!);
  const configPath = join(dir, 'config.json');
  const previous = existsSync(configPath) ? JSON.parse(readFileSync(configPath, 'utf8')) as { word_lm?: unknown } : undefined;
  mkdirSync(join(dir, '1'), { recursive: true });
  writeFileSync(join(dir, '1', 'model.onnx'), exportDiacnet(w));
  writeFileSync(join(dir, 'classes.json'), JSON.stringify(meta.classes));
  writeFileSync(join(dir, 'candidates.json'), JSON.stringify(meta.candidates));
  writeFileSync(join(dir, 'vocab.json'), JSON.stringify({ vocab: meta.vocab, languages: meta.languages }));
  const training = JSON.parse(readFileSync(join(args.weights!, 'weights.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(configPath, `${JSON.stringify(diacnetConfig(args.name!, w, training, previous), null, 2)}\n`);
  console.log(`wrote ${dir}`);
}
