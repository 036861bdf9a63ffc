/**
 * Builds a tiny Llama-architecture GGUF model for tests of the generative runtime
 * (services/llm/llama.ts): 2 transformer blocks, 64-wide embeddings, 4 attention heads,
 * 128-wide SwiGLU feed-forward, seeded random weights (scripts/rng.ts), and a
 * SentencePiece-style vocabulary: `<unk>`, `<s>`, `</s>`, the 256 byte tokens
 * `<0x00>`…`<0xFF>` (llama.cpp's byte fallback spells any UTF-8 text with them), and, by
 * default, the 6,134 characters and subword pieces BPE learnt from the project's own text
 * (scripts/tiny-vocab.ts, scripts/tiny-vocab.json), scored by merge rank so that
 * llama.cpp's tokenizer merges text into them as a real model's would. About 3.4 MB
 * (0.5 MB with bytes only).
 * Its output is meaningless; it exercises loading, tokenization, decoding, token
 * probabilities and grammars on the real llama.cpp runtime without weights from outside.
 * Tensor names and metadata keys: llama.cpp's `llama` architecture (src/llama-arch.cpp).
 *
 * Usage: `npx tsx scripts/tiny-llm.ts OUT.gguf`
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { GGUF_TYPE, writeGguf, type GgufTensor, type GgufValue } from './gguf.ts';
import { rng } from './rng.ts';
import type { TinyVocab } from './tiny-vocab.ts';

/** The committed vocabulary (scripts/tiny-vocab.json, written by scripts/tiny-vocab.ts). */
export const TINY_VOCAB: TinyVocab = JSON.parse(readFileSync(new URL('./tiny-vocab.json', import.meta.url), 'utf8')) as TinyVocab;

/** Shape of the tiny model. */
export interface TinyLlmShape { embedding: number; blocks: number; heads: number; feedForward: number; contextLength: number; }
/** The default shape (context 4,096 tokens: byte tokens make prompts long). */
export const TINY_SHAPE: TinyLlmShape = { embedding: 64, blocks: 2, heads: 4, feedForward: 128, contextLength: 4096 };

/**
 * The bytes of a tiny Llama GGUF (see the module comment).
 * @param seed PRNG seed of the weights
 */
export function tinyLlm(seed = 7, shape: TinyLlmShape = TINY_SHAPE, vocab: TinyVocab | null = TINY_VOCAB): Buffer {
  // "▁" is SentencePiece's space; learnt pieces score by merge rank (earlier = higher)
  const pieces = vocab ? [...new Set(['▁', ...vocab.chars, ...vocab.pieces])] : ['▁'];
  const rank = new Map((vocab?.pieces ?? []).map((p, i) => [p, -(i + 1)]));
  const tokens = ['<unk>', '<s>', '</s>', ...Array.from({ length: 256 }, (_, i) => `<0x${i.toString(16).toUpperCase().padStart(2, '0')}>`), ...pieces];
  // llama.cpp token types: 1 normal, 2 unknown, 3 control, 6 byte
  const tokenTypes = [2, 3, 3, ...new Array<number>(256).fill(6), ...pieces.map(() => 1)];
  const scores = tokens.map((t, i) => (i < 259 ? 0 : rank.get(t) ?? 0));
  const { embedding: E, blocks, heads, feedForward: F } = shape;
  const V = tokens.length;
  const metadata: Array<[string, GgufValue]> = [
    ['general.architecture', { type: GGUF_TYPE.STRING, value: 'llama' }],
    ['general.name', { type: GGUF_TYPE.STRING, value: 'lmstream tiny test model' }],
    ['general.file_type', { type: GGUF_TYPE.U32, value: 0 }],
    ['llama.context_length', { type: GGUF_TYPE.U32, value: shape.contextLength }],
    ['llama.embedding_length', { type: GGUF_TYPE.U32, value: E }],
    ['llama.block_count', { type: GGUF_TYPE.U32, value: blocks }],
    ['llama.feed_forward_length', { type: GGUF_TYPE.U32, value: F }],
    ['llama.attention.head_count', { type: GGUF_TYPE.U32, value: heads }],
    ['llama.attention.head_count_kv', { type: GGUF_TYPE.U32, value: heads }],
    ['llama.rope.dimension_count', { type: GGUF_TYPE.U32, value: E / heads }],
    ['llama.attention.layer_norm_rms_epsilon', { type: GGUF_TYPE.F32, value: 1e-5 }],
    ['tokenizer.ggml.model', { type: GGUF_TYPE.STRING, value: 'llama' }],
    ['tokenizer.ggml.tokens', { type: GGUF_TYPE.ARRAY, of: GGUF_TYPE.STRING, values: tokens }],
    ['tokenizer.ggml.scores', { type: GGUF_TYPE.ARRAY, of: GGUF_TYPE.F32, values: scores }],
    ['tokenizer.ggml.token_type', { type: GGUF_TYPE.ARRAY, of: GGUF_TYPE.I32, values: tokenTypes }],
    ['tokenizer.ggml.bos_token_id', { type: GGUF_TYPE.U32, value: 1 }],
    ['tokenizer.ggml.eos_token_id', { type: GGUF_TYPE.U32, value: 2 }],
    ['tokenizer.ggml.unknown_token_id', { type: GGUF_TYPE.U32, value: 0 }],
    // no space before the text, so a text's tokens are its own bytes and spaces
    ['tokenizer.ggml.add_space_prefix', { type: GGUF_TYPE.BOOL, value: false }],
    // a plain chat template (Jinja, as GGUF files carry one)
    ['tokenizer.chat_template', { type: GGUF_TYPE.STRING, value: "{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}{% if add_generation_prompt %}assistant: {% endif %}" }],
  ];
  const r = rng(seed);
  const tensors: GgufTensor[] = [];
  const add = (name: string, dims: number[], ones = false) => {
    const data = new Float32Array(dims.reduce((a, b) => a * b, 1));
    for (let i = 0; i < data.length; i++) data[i] = ones ? 1 : (r() - 0.5) * 0.2;
    tensors.push({ name, dims, data });
  };
  add('token_embd.weight', [E, V]);
  add('output_norm.weight', [E], true);
  add('output.weight', [E, V]);
  for (let b = 0; b < blocks; b++) {
    add(`blk.${b}.attn_norm.weight`, [E], true);
    for (const m of ['attn_q', 'attn_k', 'attn_v', 'attn_output']) add(`blk.${b}.${m}.weight`, [E, E]);
    add(`blk.${b}.ffn_norm.weight`, [E], true);
    add(`blk.${b}.ffn_gate.weight`, [E, F]);
    add(`blk.${b}.ffn_up.weight`, [E, F]);
    add(`blk.${b}.ffn_down.weight`, [F, E]);
  }
  return writeGguf(metadata, tensors);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const out = process.argv[2];
  if (!out) throw new Error('usage: npx tsx scripts/tiny-llm.ts OUT.gguf');
  const bytes = tinyLlm();
  writeFileSync(out, bytes);
  console.log(`wrote ${out} (${bytes.length} bytes)`);
}
