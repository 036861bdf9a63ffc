/**
 * Diacritic restoration (spec: "Diacritization request"): POST /v1/diacritize (+ /batch).
 * Billed per input character. Backends: `diactag` (diactag-2.0, backends/diactag.ts) and
 * `diacnet` (the character CNN of the diacnet models, backends/diacnet.ts).
 */
import { defineCapability, engineModule } from '../types.ts';
import { DIACRITIZE_CATALOG_LANGUAGES as LANGS } from './languages.ts';

export default defineCapability({
  name: 'diacritize',
  avroSymbol: 'diacritize',
  billingUnit: 'characters',
  endpoint: '/v1/diacritize',
  models: [
    { name: 'diacnet-2.0', languages: LANGS, description: 'diacritic restoration, best accuracy, meaning hints (GPU)' },
    { name: 'diacnet-mini-2.0', languages: LANGS, description: 'diacritic restoration, half the size (GPU)' },
    { name: 'diactag-2.0', languages: LANGS, description: 'diacritic restoration, cheapest (CPU), never changes a letter' },
  ],
  defaultModel: 'diacnet-2.0',
  usageQuantity: (output) => Number(output.characters),
  // per item a longer text than language ID
  maxInflightItems: 1024,
  // a text of 20,000 characters runs for about a second: a queue of a quarter of that
  queueTargetMs: 250,
  routes: async () => [(await import('./routes.ts')).diacritizeRoutes],
  // a short text in each language and one for `auto`: the word model's tables of each language are touched once
  warmupItems: (model) => [...LANGS, 'ara-nocase', 'auto'].map((language) => ({
    text: language.startsWith('ara') ? 'ذهب الولد الى المدرسة' : 'Toi muon mot ly ca phe', model, language, caseEndings: language === 'ara', hints: null, aligned: true, minConfidence: 0,
  })),
  backends: { diactag: engineModule(import.meta.url, './backends/diactag'), diacnet: engineModule(import.meta.url, './backends/diacnet') },
});
