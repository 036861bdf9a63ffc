/**
 * Document extraction (spec: "Extraction request"): POST /v1/extract (+ /batch), text or
 * an image (decoded and bounded in image threads, ./images.ts; read by OCR in the
 * worker, ./ocr.ts). Billed per document. Served by the `llama-extract` backend on GGUF
 * weights an operator supplies (docs/extract.md); without them the models answer 503
 * MODEL_NOT_INSTALLED.
 */
import { defineCapability, engineModule } from '../types.ts';
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
  // a document takes about a second on a GPU: a few documents queued ahead of each new one
  queueTargetMs: 5000,
  routes: async () => [(await import('./routes.ts')).extractRoutes],
  backends: {
    // template-constrained JSON generation on llama.cpp (node-llama-cpp), OCR by tesseract.js
    'llama-extract': engineModule(import.meta.url, './backends/llama-extract'),
  },
});
