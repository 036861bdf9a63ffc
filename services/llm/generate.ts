/**
 * Grammar-constrained greedy generation on one sequence (extraction, question
 * generation): the prompt is evaluated, then tokens are taken one at a time at
 * temperature 0 (the most probable token the grammar allows; nothing is sampled, unless
 * the caller asks for seeded sampling) until the grammar is complete (the model's
 * end-of-generation token, or one of the grammar's stop triggers: node-llama-cpp's JSON
 * grammars end in "\n\n\n\n" followed by any number of newlines, which a model may
 * never stop writing), `maxTokens` is reached, or `check` throws. Each token is kept with its probability and the characters it spans
 * in the generated text, so callers can score parts of the output (a field's
 * confidence).
 */
import { LlamaGrammarEvaluationState, type LlamaContextSequence, type LlamaGrammar, type LlamaModel, type Token } from 'node-llama-cpp';

/** A generated token: its probability (as llama.cpp reports it for the chosen token) and the characters [start, end) it spans. */
export interface GeneratedToken { token: Token; probability: number; start: number; end: number; }

/** What a generation produced. */
export interface Generation {
  text: string;
  tokens: GeneratedToken[];
  /** true when it stopped at `maxTokens` before the grammar was complete */
  truncated: boolean;
  /** tokens evaluated: the prompt's and the generated ones */
  evaluated: number;
}

/** Tokens detokenized together to place a token in the text (a UTF-8 character may span several byte tokens). */
const WINDOW = 8;

/**
 * Generates under a grammar (see the module comment). The sequence keeps the prompt and
 * the generated tokens; the caller frees it.
 * @param check called before each token; throws to stop (cancellation, deadline)
 * @param sampling instead of greedy decoding: sampling at a temperature with a seed (reproducible), for a second attempt whose greedy answer would repeat the first
 */
export async function generateWithGrammar(model: LlamaModel, seq: LlamaContextSequence, prompt: Token[], grammar: LlamaGrammar, maxTokens: number, check: () => void = () => {}, sampling?: { temperature: number; seed: number }): Promise<Generation> {
  const tokens: GeneratedToken[] = [];
  const ids: Token[] = [];
  let text = '';
  let truncated = true;
  // triggers are strings, LlamaText or token lists; the text ones are compared with the text
  const triggers = grammar.stopGenerationTriggers.map((t) => (typeof t === 'string' ? t : Array.isArray(t) ? (t.every((x) => typeof x === 'string') ? t.join('') : '') : t.toString())).filter((t) => t.length > 0);
  check();
  const gen = seq.evaluateWithMetadata(prompt, { confidence: true }, { temperature: sampling?.temperature ?? 0, seed: sampling?.seed, grammarEvaluationState: new LlamaGrammarEvaluationState({ model, grammar }) });
  for await (const out of gen) {
    if (tokens.length >= maxTokens) break;
    check();
    ids.push(out.token);
    // the text grows by what the last token adds to a window of the previous ones
    const from = Math.max(0, ids.length - WINDOW);
    const before = model.detokenize(ids.slice(from, -1));
    const after = model.detokenize(ids.slice(from));
    const added = after.startsWith(before) ? after.slice(before.length) : null;
    if (added === null) text = model.detokenize(ids);
    else text += added;
    tokens.push({ token: out.token, probability: out.confidence ?? 0, start: text.length - (added ?? '').length, end: text.length });
    if (triggers.some((t) => text.endsWith(t))) { truncated = false; break; }
    if (tokens.length >= maxTokens) break;
  }
  if (tokens.length < maxTokens) truncated = false;
  const full = model.detokenize(ids);
  return { text: grammar.trimWhitespaceSuffix ? full.trimEnd() : full, tokens, truncated, evaluated: prompt.length + tokens.length };
}

/**
 * The probability of a span of the generated text: the product of the probabilities of
 * the tokens that overlap characters [start, end).
 * @returns 1 for a span no token overlaps
 */
export function spanProbability(tokens: readonly GeneratedToken[], start: number, end: number): number {
  let logP = 0;
  for (const t of tokens) if (t.end > start && t.start < end) logP += Math.log(Math.max(t.probability, 1e-12));
  return Math.exp(logP);
}
