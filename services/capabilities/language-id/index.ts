/**
 * Language identification (spec: "Language identification request"): POST
 * /v1/language-id (+ /batch), GET /v1/lid/models and the legacy POST /v1/detect-language
 * (+ /batch). Billed per text. Models: the project's own (docs/language-id.md), served
 * by the `lid-embedding-bag` backend.
 */
import { defineCapability, engineModule } from '../types.ts';

export default defineCapability({
  name: 'language-id',
  avroSymbol: 'language_id',
  billingUnit: 'texts',
  endpoint: '/v1/language-id',
  models: [
    { name: 'lid-neural-608', languages: ['mul'], description: 'language identification, most accurate' },
    { name: 'lid-lite-608', languages: ['mul'], description: 'language identification, fastest' },
  ],
  defaultModel: 'lid-neural-608',
  usageQuantity: () => 1,
  // a worker's micro-batch queue (max_queue_size 8,192 of models/lid-*), about 0.4 s of
  // work at 20,000 texts/s; 2,048 shed half the batches of 256 at 1× capacity in
  // `npm run bench:overload`, since 16 connections at that rate keep about 8 batches in flight
  maxInflightItems: 8192,
  routes: async () => [(await import('./routes.ts')).languageIdRoutes, (await import('./legacy-routes.ts')).legacyLidRoutes],
  backends: {
    // hashed character n-gram embedding bag, decoding in the ONNX graph (scripts/lid-onnx.ts)
    'lid-embedding-bag': engineModule(import.meta.url, './backends/lid-embedding-bag'),
  },
});
