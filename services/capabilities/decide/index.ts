/**
 * Typed decisions (spec: "Decision request"): POST /v1/decide (+ /batch) and the alias
 * POST /v1/systemone. Billed per answered question. Served by the `llama-decide` backend
 * on GGUF weights an operator supplies (docs/decide.md); without them the model answers
 * 503 MODEL_NOT_INSTALLED.
 */
import { defineCapability, engineModule } from '../types.ts';

/** Languages of the decision and extraction models (spec models table; ISO 639-3). */
export const DECIDE_LANGUAGES: readonly string[] = ['eng', 'swh', 'hau', 'yor', 'ibo', 'amh', 'zul', 'kin', 'som'];

export default defineCapability({
  name: 'decide',
  avroSymbol: 'decide',
  billingUnit: 'decisions',
  endpoint: '/v1/decide',
  models: [{ name: 'purplemist-flash-1.0', languages: DECIDE_LANGUAGES, description: 'typed decisions with calibrated probabilities' }],
  defaultModel: 'purplemist-flash-1.0',
  usageQuantity: (output) => Number(output.decisions),
  // about a second per item on a GPU (spec): what a few workers finish within the default request timeout
  maxInflightItems: 256,
  // a case takes about a second on a GPU: a few cases queued ahead of each new one
  queueTargetMs: 5000,
  routes: async () => [(await import('./routes.ts')).decideRoutes],
  backends: {
    // option scoring by next-token probabilities on llama.cpp (node-llama-cpp)
    'llama-decide': engineModule(import.meta.url, './backends/llama-decide'),
  },
});
