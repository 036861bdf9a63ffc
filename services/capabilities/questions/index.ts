/**
 * Search-style question generation (spec: "Question generation request"): POST
 * /v1/questions/generate (+ /batch) and the legacy POST /v1/generate-questions (+ /batch).
 * Billed per generation (passage). Served by the `llama-questions` backend on GGUF weights
 * an operator supplies (docs/questions.md); without them the model answers 503
 * MODEL_NOT_INSTALLED.
 */
import { QG_LANGUAGES } from '../../languages.ts';
import { defineCapability, engineModule } from '../types.ts';

/** Vendor prefix of the model name in responses (spec: `<vendor>/mist-qg-1.5b`). */
export const QG_VENDOR = 'lmstream';

export default defineCapability({
  name: 'questions',
  avroSymbol: 'questions',
  billingUnit: 'generations',
  endpoint: '/v1/questions/generate',
  models: [{ name: 'mist-qg-1.5b', languages: QG_LANGUAGES.map((l) => l.code), description: 'search-style question generation' }],
  defaultModel: 'mist-qg-1.5b',
  usageQuantity: () => 1,
  // about a second per item on a GPU (spec): what a few workers finish within the default request timeout
  maxInflightItems: 256,
  // an item takes about a second on a GPU: a few items queued ahead of each new one
  queueTargetMs: 5000,
  routes: async () => [(await import('./routes.ts')).questionsRoutes, (await import('./legacy-routes.ts')).legacyQuestionsRoutes],
  backends: {
    // grammar-constrained generation of n distinct questions on llama.cpp (node-llama-cpp)
    'llama-questions': engineModule(import.meta.url, './backends/llama-questions'),
  },
});
