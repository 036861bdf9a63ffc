/**
 * A generative model of the model repository loaded on llama.cpp (services/llm/llama.ts):
 * its GGUF weights (config.json `weights`), one context with `max_batch_size` sequences
 * (llama.cpp evaluates the sequences' pending tokens together in one batch, so items that
 * run at once share each forward pass: continuous batching), and its chat template (the
 * GGUF file's own, or config.json `chat_template`). Shared by the decision, extraction
 * and question-generation backends.
 */
import {
  JinjaTemplateChatWrapper, LlamaText, resolveChatWrapper,
  type ChatWrapper, type LlamaContext, type LlamaContextSequence, type LlamaModel, type Token,
} from 'node-llama-cpp';
import type { InstalledModel } from '../models/repository.ts';
import { llamaRuntime } from './llama.ts';

/** config.json fields of a generative model (beside the repository's own, services/models/config.ts). */
export interface GenerativeConfig {
  /** most tokens one item's prompt and answer may hold; capped at the weights' training context (default 32,768: the spec's "about 32,000 tokens") */
  context_length?: number;
  /** a Jinja chat template to use instead of the GGUF file's `tokenizer.chat_template` */
  chat_template?: string;
  /** model layers put on the GPU: `auto` (default: as many as fit), or a count (0 = CPU only) */
  gpu_layers?: 'auto' | number;
}

/** Default `context_length`, tokens. */
export const DEFAULT_CONTEXT_LENGTH = 32_768;

/** A loaded generative model. */
export interface LoadedLlm {
  model: LlamaModel;
  context: LlamaContext;
  chat: ChatWrapper;
  /** tokens one sequence holds (the 413 limit of an item) */
  contextSize: number;
  sequences: SequencePool;
}

/**
 * The sequences of a context, handed to one item at a time: an item waits for a free one,
 * and its history is cleared when it is given back.
 */
export class SequencePool {
  private readonly free: LlamaContextSequence[];
  private readonly waiting: Array<(s: LlamaContextSequence) => void> = [];

  constructor(sequences: LlamaContextSequence[]) { this.free = [...sequences]; }

  /** Runs `fn` on a free sequence (waiting for one) and clears it afterwards, also when `fn` throws. */
  async use<T>(fn: (s: LlamaContextSequence) => Promise<T>): Promise<T> {
    const seq = this.free.pop() ?? await new Promise<LlamaContextSequence>((r) => this.waiting.push(r));
    try {
      return await fn(seq);
    } finally {
      await seq.clearHistory();
      const next = this.waiting.shift();
      if (next) next(seq);
      else this.free.push(seq);
    }
  }
}

/**
 * Loads an installed generative model: weights, a context of `sequences` sequences and its
 * chat template.
 * @param sequences items evaluated at once (config.json `max_batch_size`)
 * @param threads CPU threads of the context's evaluations (INFERENCE_THREADS). Set, never
 *   left to node-llama-cpp's default: that default is twice the math cores, and on a
 *   2-core host the oversubscribed threads made every evaluation of the tiny test model
 *   take about 270 ms instead of 1–4 ms
 * @throws Error when the weights do not load (not a GGUF file, not enough memory)
 */
export async function openLlm(cfg: InstalledModel & GenerativeConfig, sequences: number, threads = 1): Promise<LoadedLlm> {
  const llama = await llamaRuntime();
  const model = await llama.loadModel({ modelPath: cfg.modelPath, gpuLayers: cfg.gpu_layers ?? 'auto' });
  try {
    const contextSize = Math.min(cfg.context_length ?? DEFAULT_CONTEXT_LENGTH, model.trainContextSize);
    const context = await model.createContext({ contextSize, sequences, threads });
    const chat = cfg.chat_template ? new JinjaTemplateChatWrapper({ template: cfg.chat_template }) : resolveChatWrapper(model);
    const seqs = Array.from({ length: sequences }, () => context.getSequence());
    return { model, context, chat, contextSize: seqs[0]!.contextSize, sequences: new SequencePool(seqs) };
  } catch (err) {
    await model.dispose();
    throw err;
  }
}

/** Frees a loaded model's context and weights. */
export async function closeLlm(m: LoadedLlm): Promise<void> {
  await m.context.dispose();
  await m.model.dispose();
}

/** Marks where the user message is cut between the shared part and each item's own part (a private-use character). */
const CUT = '\uE000';

/**
 * A chat prompt of a system message and one user message, rendered with the model's chat
 * template up to the start of the model's answer, and tokenized in two parts at a cut in
 * the user message: `shared` (the template's start, the system message and the user
 * message's head) and a `rest` for each tail. Every tail is appended to the same shared
 * tokens, so a sequence evaluates the shared part once (the state of a decision, before
 * its questions).
 * @param head the user message's first part (e.g. the state)
 * @param tails the user message's second parts (e.g. one per question)
 * @returns the shared tokens (with BOS when the model wants one) and the text after the cut for each tail, as LlamaText (template tokens kept special)
 * @throws Error when a text holds the private-use cut character U+E000 (the caller removes it)
 */
export function splitPrompt(m: Pick<LoadedLlm, 'model' | 'chat'>, system: string, head: string, tails: readonly string[]): { shared: Token[]; tails: LlamaText[] } {
  if ([system, head, ...tails].some((t) => t.includes(CUT))) throw new Error('prompt text holds U+E000');
  const rendered = m.chat.generateContextState({
    chatHistory: [{ type: 'system', text: system }, { type: 'user', text: `${head}${CUT}` }, { type: 'model', response: [] }],
  }).contextText;
  const values = rendered.values;
  const at = values.findIndex((v) => typeof v === 'string' && v.includes(CUT));
  if (at < 0) throw new Error('the chat template dropped the user message');
  const [before, after] = (values[at] as string).split(CUT) as [string, string];
  const sharedText = LlamaText([...values.slice(0, at), before]);
  let shared = sharedText.tokenize(m.model.tokenizer);
  const bos = m.model.tokens.bos;
  if (bos !== null && m.model.tokens.shouldPrependBosToken && shared[0] !== bos) shared = [bos, ...shared];
  const end = values.slice(at + 1);
  return { shared, tails: tails.map((t) => LlamaText([`${t}${after}`, ...end])) };
}

/** Removes the cut character from caller text (it is a private-use character no document needs). */
export const clean = (text: string): string => text.replaceAll(CUT, '');
