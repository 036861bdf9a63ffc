/**
 * Label scoring (services/llm/labels.ts) and prompt splitting (services/llm/model.ts) on
 * the tiny purplemist-flash-1.0 weights: a label of several tokens gets the chain rule's
 * product, equal to evaluating each label from scratch; the sequence is back where it
 * was after scoring; labels that are prefixes of others are refused. (Float sums differ
 * slightly with the batch layout, so log-probabilities agree to about 1e-3.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LlamaText, type Token } from 'node-llama-cpp';
import { ModelRepository } from '../../services/models/repository.ts';
import { closeLlm, openLlm, splitPrompt, type LoadedLlm } from '../../services/llm/model.ts';
import { planLabels, scoreLabels } from '../../services/llm/labels.ts';
import { MODELS, useTinyWeights } from '../helpers/llm.ts';

useTinyWeights();
let llm: LoadedLlm;
beforeAll(async () => { llm = await openLlm(new ModelRepository(MODELS).config('purplemist-flash-1.0')!, 2); });
afterAll(async () => { if (llm) await closeLlm(llm); });

/** log P(own | tokens), evaluating each of `own`'s tokens from an empty sequence. */
async function fromScratch(tokens: Token[], own: Token[]): Promise<number> {
  return llm.sequences.use(async (seq) => {
    let lp = 0;
    for (let i = 0; i < own.length; i++) {
      await seq.clearHistory();
      const input = [...tokens, ...own.slice(0, i)];
      const out = await seq.controlledEvaluate([...input.slice(0, -1), [input.at(-1)!, { generateNext: { probabilities: true } }]]);
      lp += Math.log(out.at(-1)!.next.probabilities!.get(own[i]!) ?? 0);
    }
    return lp;
  });
}

describe('label scoring', () => {
  it('splits a chat prompt into shared tokens and a tail per question', () => {
    const { shared, tails } = splitPrompt(llm, 'SYS', 'STATE', ['Q1', 'Q2']);
    expect(llm.model.detokenize(shared)).toBe('system: SYS\nuser: STATE');
    expect(tails.map((t) => t.toString())).toEqual(['Q1\nassistant: ', 'Q2\nassistant: ']);
    expect(() => splitPrompt(llm, 'SYS', 'a\uE000b', ['Q'])).toThrow(/U\+E000/);
  });

  it('tokenizes special-token text in caller text as text, not as the special tokens', () => {
    const { shared, tails } = splitPrompt(llm, 'SYS', 'state </s><s><unk> end', ['question </s>']);
    const special = new Set([llm.model.tokens.bos, llm.model.tokens.eos].filter((t) => t !== null));
    // BOS only where the model wants it, at the start
    expect(shared.slice(1).filter((t) => special.has(t))).toEqual([]);
    expect(tails[0]!.tokenize(llm.model.tokenizer).filter((t) => special.has(t))).toEqual([]);
    expect(llm.model.detokenize(shared)).toContain('</s><s><unk>');
  });

  it('scores multi-token labels by the chain rule, as evaluating each from scratch does', async () => {
    const { shared, tails } = splitPrompt(llm, 'Pick.', 'State: a parcel arrived late.', ['Which?']);
    const labels = ['AA', 'AB', 'BA', 'CZ'];
    const plan = planLabels(llm.model.tokenizer, tails[0]!, labels);
    expect(plan.continuations.every((c) => c.length === 2)).toBe(true);
    const { logProbs, at } = await llm.sequences.use(async (seq) => {
      await seq.evaluateWithoutGeneratingNewTokens(shared);
      const r = await scoreLabels(seq, plan);
      return { ...r, at: seq.nextTokenIndex };
    });
    expect(at).toBe(shared.length);
    for (let i = 0; i < labels.length; i++) expect(logProbs[i]).toBeCloseTo(await fromScratch([...shared, ...plan.prompt], plan.continuations[i]!), 2);
  });

  it('refuses labels whose tokens are a prefix of another label', () => {
    const tail = LlamaText(['Q\nassistant: ']);
    // a character outside the tiny vocabulary is 3 byte tokens, so one is a prefix of two
    expect(() => planLabels(llm.model.tokenizer, tail, ['漢', '漢漢'])).toThrow(/prefix/);
    expect(() => planLabels(llm.model.tokenizer, tail, ['A', 'A'])).toThrow(/alike/);
  });
});
