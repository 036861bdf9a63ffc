/**
 * The llama.cpp runtime of the generative models (issue 15: decisions, extraction,
 * question generation), through node-llama-cpp v3, which loads the GGUF files operators
 * put in the model repository. Only node-llama-cpp's prebuilt binaries are used
 * (`build: "never"`: nothing is compiled on a host); on a host with CUDA, Vulkan or Metal
 * its matching prebuilt binary is picked, otherwise the CPU one. onnxruntime-node stays the
 * runtime of the project's own models.
 */
import { getLlama, type Llama } from 'node-llama-cpp';

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
