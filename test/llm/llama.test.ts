/**
 * The llama.cpp runtime (services/llm/llama.ts) on a tiny Llama GGUF the project builds
 * itself (scripts/tiny-llm.ts, scripts/gguf.ts): the prebuilt CPU binary loads it,
 * tokenization round-trips any UTF-8 text, greedy decoding is deterministic, and a JSON-Schema grammar
 * constrains the output to the schema's shape.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LlamaChatSession, type LlamaContext, type LlamaModel } from 'node-llama-cpp';
import { llamaRuntime } from '../../services/llm/llama.ts';
import { tinyLlm } from '../../scripts/tiny-llm.ts';
import { writeGguf, GGUF_TYPE } from '../../scripts/gguf.ts';

const dir = mkdtempSync(join(tmpdir(), 'tiny-llm-'));
let model: LlamaModel;
let context: LlamaContext;

beforeAll(async () => {
  const path = join(dir, 'tiny.gguf');
  writeFileSync(path, tinyLlm());
  const llama = await llamaRuntime();
  model = await llama.loadModel({ modelPath: path });
  context = await model.createContext({ contextSize: 2048, sequences: 2, threads: 1 });
});
afterAll(async () => {
  await context?.dispose();
  await model?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe('gguf writer', () => {
  it('refuses a tensor whose data does not fill its dimensions', () => {
    expect(() => writeGguf([['general.architecture', { type: GGUF_TYPE.STRING, value: 'llama' }]], [{ name: 'x', dims: [2, 3], data: new Float32Array(5) }])).toThrow(/5 values for dims 2×3/);
  });
  it('writes the GGUF v3 header and aligns the data to 32 bytes', () => {
    const b = writeGguf([['k', { type: GGUF_TYPE.U32, value: 7 }]], [{ name: 't', dims: [3], data: Float32Array.from([1, 2, 3]) }]);
    expect(b.subarray(0, 4).toString()).toBe('GGUF');
    expect(b.readUInt32LE(4)).toBe(3);
    expect(b.readBigUInt64LE(8)).toBe(1n);
    expect(b.readBigUInt64LE(16)).toBe(1n);
    expect(b.length % 32).toBe(0);
    expect(b.readFloatLE(b.length - 32 + 8)).toBe(3);
  });
});

describe('llama.cpp runtime on the tiny model', () => {
  it('loads it with the architecture and vocabulary written', () => {
    expect(model.fileInfo.metadata.general.architecture).toBe('llama');
    expect(model.trainContextSize).toBe(4096);
  });
  it('round-trips UTF-8 text through its byte tokens', () => {
    for (const text of ['héllo wörld', 'ẹ ku aarọ', 'مرحبا', '✓ 3.14']) expect(model.detokenize(model.tokenize(text))).toBe(text);
  });
  it('decodes greedily and deterministically', async () => {
    const run = async () => {
      const seq = context.getSequence();
      const out: number[] = [];
      try {
        for await (const t of seq.evaluate(model.tokenize('Hello'), { temperature: 0 })) { out.push(t); if (out.length >= 8) break; }
      } finally { seq.dispose(); }
      return out;
    };
    const a = await run();
    expect(a).toHaveLength(8);
    expect(await run()).toEqual(a);
  });
  it('keeps generation inside a JSON-Schema grammar', async () => {
    const llama = await llamaRuntime();
    // (an "integer" property is not enough: node-llama-cpp 3.21's grammar let the tiny
    // model write a number its own parse() then refused as not an integer)
    const grammar = await llama.createGrammarForJsonSchema({
      type: 'object', properties: { urgent: { type: 'boolean' }, priority: { enum: ['low', 'high'] } }, required: ['urgent', 'priority'], additionalProperties: false,
    } as const);
    const seq = context.getSequence();
    try {
      const session = new LlamaChatSession({ contextSequence: seq });
      const text = await session.prompt('Describe the ticket.', { grammar, maxTokens: 200 });
      const value = grammar.parse(text);
      expect(typeof value.urgent).toBe('boolean');
      expect(['low', 'high']).toContain(value.priority);
      expect(Object.keys(value).sort()).toEqual(['priority', 'urgent']);
    } finally { seq.dispose(); }
  });
});
