/**
 * Document extraction (spec: "Extraction request"): POST /v1/extract (+ /batch), text or
 * an image (decoded and bounded in image threads, ./images.ts). Billed per document. No
 * backend in this build yet: its models answer 503 MODEL_NOT_INSTALLED.
 */
import { defineCapability } from '../types.ts';
import { DECIDE_LANGUAGES } from '../decide/index.ts';

export default defineCapability({
  name: 'extract',
  avroSymbol: 'extract',
  billingUnit: 'documents',
  endpoint: '/v1/extract',
  models: [
    { name: 'mist-extract-1.0', languages: DECIDE_LANGUAGES, description: 'document to JSON, 4B, most accurate' },
    { name: 'mist-extract-flash-1.0', languages: DECIDE_LANGUAGES, description: 'document to JSON, 2B, faster' },
  ],
  defaultModel: 'mist-extract-1.0',
  usageQuantity: () => 1,
  // about a second per document on a GPU (spec), and a document is the largest item
  maxInflightItems: 64,
  routes: async () => [(await import('./routes.ts')).extractRoutes],
  backends: {},
});
