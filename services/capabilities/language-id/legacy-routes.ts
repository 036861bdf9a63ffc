/**
 * Older language-ID routes kept for existing clients (spec, "Versioning"):
 * POST /v1/detect-language (+ /batch): served by the 608-language models but answers
 *   only with one of the 25 older languages; `model` lid-neural-25 / lid-lite-25 select
 *   lid-neural-608 / lid-lite-608; `variant` questions → traffic, passages → coverage.
 * Their request and response fields are written down in docs/api-choices.md.
 */
import type { LanguageIdOutput } from '../../events/contract.ts';
import { QG_LANGUAGES, findQgLanguage } from '../../languages.ts';
import { BODY_LIMITS, ERRORS, FIELD_LIMITS, SECURITY, answerSchema, outputOf, outputsOf, type CapabilityRoutes } from '../../route-kit/index.ts';

/** Legacy model names and the models that serve them. */
export const LEGACY_LID_MODELS: Readonly<Record<string, string>> = { 'lid-neural-25': 'lid-neural-608', 'lid-lite-25': 'lid-lite-608' };
/** Legacy variants and the modes they select. */
export const LEGACY_VARIANTS: Readonly<Record<string, 'traffic' | 'coverage'>> = { questions: 'traffic', passages: 'coverage' };

const TEXT = { type: 'string', minLength: 1, maxLength: FIELD_LIMITS.lidText } as const;
const OPTIONS = {
  model: { type: 'string', enum: Object.keys(LEGACY_LID_MODELS), default: 'lid-neural-25' },
  variant: { type: 'string', enum: Object.keys(LEGACY_VARIANTS), default: 'questions' },
} as const;
const CANDIDATES = QG_LANGUAGES.map((l) => l.code);

const LEGACY_ANSWER = answerSchema({
  language: { type: 'string', description: 'ISO 639-3 code of one of the 25 older languages' },
  language_name: { type: 'string' },
  confidence: { type: 'number' },
});
const ECHO = { model: { type: 'string', enum: Object.keys(LEGACY_LID_MODELS) }, variant: { type: 'string', enum: Object.keys(LEGACY_VARIANTS) } } as const;

/** The legacy answer: the 25-language code (macrolanguage), its name and the confidence among the 25. */
function legacyAnswer(a: LanguageIdOutput): Record<string, unknown> {
  const l = findQgLanguage(a.language);
  return { language: l?.code ?? a.language, language_name: l?.name ?? a.language, confidence: a.confidence };
}

/** Route plugin. */
export const legacyLidRoutes: CapabilityRoutes = async (app, kit) => {
  const lid = (texts: string[], b: { model: string; variant: string }) =>
    texts.map((text) => ({ text, model: LEGACY_LID_MODELS[b.model]!, mode: LEGACY_VARIANTS[b.variant]!, topK: 1, candidates: CANDIDATES }));

  const model = (b: { model: string }) => LEGACY_LID_MODELS[b.model]!;
  app.post('/v1/detect-language', {
    ...kit.modelRoute({ model, items: () => 1 }, BODY_LIMITS.languageId), schema: { tags: ['legacy'], summary: 'Legacy: best of the 25 older languages; use /v1/language-id', security: SECURITY,
      operationId: 'detectLanguage', body: { type: 'object', required: ['text'], properties: { text: TEXT, ...OPTIONS } },
      response: { 200: answerSchema({ ...LEGACY_ANSWER.properties, ...ECHO }), ...ERRORS } },
  }, async (req) => {
    const b = req.body as { text: string; model: string; variant: string };
    const [r] = await kit.dispatch<LanguageIdOutput>(req, LEGACY_LID_MODELS[b.model]!, lid([b.text], b));
    // added to the answer's object, not spread into a new one (see routes.ts `singleAnswer`)
    return Object.assign(legacyAnswer(outputOf(r!)), { model: b.model, variant: b.variant });
  });

  app.post('/v1/detect-language/batch', {
    ...kit.modelRoute({ model, items: (b: { texts: string[] }) => b.texts.length }, BODY_LIMITS.languageIdBatch), schema: { tags: ['legacy'], summary: 'Legacy: batch of up to 256 texts', security: SECURITY,
      operationId: 'detectLanguageBatch', body: { type: 'object', required: ['texts'], properties: { texts: { type: 'array', minItems: 1, maxItems: FIELD_LIMITS.lidBatch, items: TEXT }, ...OPTIONS } },
      response: { 200: answerSchema({ results: { type: 'array', items: LEGACY_ANSWER }, ...ECHO }), ...ERRORS } },
  }, async (req) => {
    const b = req.body as { texts: string[]; model: string; variant: string };
    const rs = await kit.dispatch<LanguageIdOutput>(req, LEGACY_LID_MODELS[b.model]!, lid(b.texts, b));
    return { results: outputsOf(rs).map(legacyAnswer), model: b.model, variant: b.variant };
  });
};
