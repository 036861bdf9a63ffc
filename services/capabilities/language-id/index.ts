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
  // the ceiling of the adaptive in-flight limit: a worker's micro-batch queue
  // (max_queue_size 8,192 of models/lid-*). Its floor is 1,024 (four batches of 256);
  // above it the limit grows while items do not wait (16 connections keep about 8
  // batches in flight at 1× capacity in `npm run bench:overload`)
  maxInflightItems: 8192,
  // the worker's queue holds up to max_queue_size (8,192) texts; 250 ms of it is what a
  // caller of the batch routes already meets at 1× capacity (p99 about 200 ms in `npm run
  // bench:overload`). Short texts on 2 cores are bound by HTTP, not by the model: there
  // the main loop's own delay shows in the worker's queue, and targets of 50 and 100 ms
  // shed most single texts at 4× with goodput falling to 0.3–0.65× (a refusal costs the
  // loop half of what an answer does)
  queueTargetMs: 250,
  routes: async () => [(await import('./routes.ts')).languageIdRoutes, (await import('./legacy-routes.ts')).legacyLidRoutes],
  // both modes, a short and a longer text
  warmupItems: (model) => [
    { text: 'Habari za asubuhi', model, mode: 'traffic', topK: 3, candidates: null, echoText: false },
    { text: 'Good morning to all of you, and welcome to the meeting of the committee.', model, mode: 'coverage', topK: 3, candidates: null, echoText: false },
  ],
  backends: {
    // hashed character n-gram embedding bag, decoding in the ONNX graph (scripts/lid-onnx.ts)
    'lid-embedding-bag': engineModule(import.meta.url, './backends/lid-embedding-bag'),
  },
});
