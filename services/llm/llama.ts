/**
 * The llama.cpp runtime of the generative models (issue 15: decisions, extraction,
 * question generation), through node-llama-cpp v3, which loads the GGUF files operators
 * put in the model repository. Only node-llama-cpp's prebuilt binaries are used
 * (`build: "never"`: nothing is compiled on a host); on a host with CUDA, Vulkan or Metal
 * its matching prebuilt binary is picked, otherwise the CPU one. onnxruntime-node stays the
 * runtime of the project's own models.
 */
import { getLlama, type Llama, type LlamaContextSequence, type LlamaModel, type Token } from 'node-llama-cpp';

let runtime: Promise<Llama> | undefined;

/**
 * The process's llama.cpp binding, loaded once. `LLAMA_GPU` picks the backend:
 * `auto` (default: CUDA, Vulkan or Metal where the host has one, else CPU), `false` (CPU),
 * `cuda`, `vulkan` or `metal`.
 * @throws when no prebuilt binary loads on this platform (node-llama-cpp's error)
 */
export function llamaRuntime(): Promise<Llama> {
  const gpu = process.env.LLAMA_GPU ?? 'auto';
  runtime ??= getLlama({ gpu: gpu === 'false' ? false : (gpu as 'auto' | 'cuda' | 'vulkan' | 'metal'), build: 'never', progressLogs: false });
  return runtime;
}

/**
 * The model's distribution of the next token after `prompt`, restricted to the first token
 * of each candidate and normalised over them (the option scoring of `/v1/decide`: options
 * are scored by their labels' next-token probabilities, never sampled). The sequence's
 * history is cleared before and after.
 * @param candidates strings whose first tokens must differ (e.g. option labels "A", "B")
 * @returns one probability per candidate, summing to 1
 * @throws when two candidates start with the same token, or a candidate has no token
 */
export async function nextTokenDistribution(model: LlamaModel, sequence: LlamaContextSequence, prompt: string, candidates: readonly string[]): Promise<number[]> {
  const first = candidates.map((c) => {
    const t = model.tokenize(c)[0];
    if (t === undefined) throw new Error(`candidate ${JSON.stringify(c)} has no token`);
    return t;
  });
  if (new Set(first).size !== first.length) throw new Error('two candidates start with the same token');
  const bos = model.tokens.bos;
  const tokens: Token[] = [...(bos !== null ? [bos] : []), ...model.tokenize(prompt)];
  await sequence.clearHistory();
  try {
    for await (const out of sequence.evaluateWithMetadata(tokens, { probabilities: true }, { temperature: 0 })) {
      const p = first.map((t) => out.probabilities.get(t) ?? 0);
      const sum = p.reduce((a, b) => a + b, 0);
      return sum > 0 ? p.map((x) => x / sum) : p.map(() => 1 / p.length);
    }
    throw new Error('the model produced no next token');
  } finally {
    await sequence.clearHistory();
  }
}
