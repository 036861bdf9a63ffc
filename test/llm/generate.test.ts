/**
 * Grammar-constrained generation (services/llm/generate.ts) on the tiny extraction weights
 * with their subword vocabulary: the output follows the grammar, token spans cover the
 * text, and generation stops at the grammar's stop trigger.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateWithGrammar } from '../../services/llm/generate.ts';
import { llamaRuntime } from '../../services/llm/llama.ts';
import { closeLlm, openLlm, splitPrompt, type LoadedLlm } from '../../services/llm/model.ts';
import { ModelRepository } from '../../services/models/repository.ts';
import { templateSchema } from '../../services/capabilities/extract/template.ts';
import { MODELS, useTinyWeights } from '../helpers/llm.ts';

useTinyWeights();
let llm: LoadedLlm;
beforeAll(async () => { llm = await openLlm(new ModelRepository(MODELS).config('mist-extract-1.0')!, 1); });
afterAll(async () => { if (llm) await closeLlm(llm); });

describe('generateWithGrammar', () => {
  it('stops at the grammar\'s stop trigger (regression: newlines after the JSON ran to the token limit and the document failed with 413)', async () => {
    const template = { sender: 'verbatim-string', amount: 'number', kind: ['receipt', 'bill'], lines: [{ item: 'string' }] };
    const grammar = await (await llamaRuntime()).createGrammarForJsonSchema(templateSchema(template, { maxValueChars: 40, maxListItems: 3 }) as never);
    const { shared, tails } = splitPrompt(llm, 'Extract.', 'Template: ...', ['']);
    const prompt = [...shared, ...tails[0]!.tokenize(llm.model.tokenizer)];
    const gen = await llm.sequences.use((seq) => generateWithGrammar(llm.model, seq, prompt, grammar, 800));
    expect(gen.truncated).toBe(false);
    expect(gen.tokens.length).toBeLessThan(800);
    const value = JSON.parse(gen.text) as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(['sender', 'amount', 'kind', 'lines']);
    expect(gen.text).toBe(gen.text.trimEnd());
    // the spans tile the generated text
    expect(gen.tokens[0]!.start).toBe(0);
    for (let i = 1; i < gen.tokens.length; i++) expect(gen.tokens[i]!.start).toBe(gen.tokens[i - 1]!.end);
    expect(gen.evaluated).toBe(prompt.length + gen.tokens.length);
  });

  it('stops when its check throws', async () => {
    const grammar = await (await llamaRuntime()).createGrammarForJsonSchema({ type: 'array', items: { type: 'string' } } as never);
    let n = 0;
    await expect(llm.sequences.use((seq) => generateWithGrammar(llm.model, seq, llm.model.tokenize('List:'), grammar, 500, () => { if (++n > 10) throw new Error('stop'); }))).rejects.toThrow('stop');
    expect(n).toBe(11);
  });
});
