/**
 * Older routes kept for existing clients (spec, "Versioning"):
 * - POST /v1/generate-questions (+ /batch): request as /v1/questions/generate, response
 *   without the usage block;
 * - POST /v1/detect-language (+ /batch): served by the 608-language models but answers
 *   only with one of the 25 older languages; `model` lid-neural-25 / lid-lite-25 select
 *   lid-neural-608 / lid-lite-608; `variant` questions → traffic, passages → coverage.
 * Their request and response fields are written down in docs/api-choices.md.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { LanguageIdOutput } from '../../events/contract.ts';
import { QG_LANGUAGES, findQgLanguage } from '../../lid/languages.ts';
import { contextOf, type RouteDeps } from '../deps.ts';
import { outputOf, outputsOf } from '../dispatcher.ts';
import { BODY_LIMITS, FIELD_LIMITS } from '../limits.ts';
import { ERRORS, SECURITY, modelRoute } from './common.ts';
import { questionsAdmission } from './questions.ts';
import { QUESTIONS_BATCH_BODY, QUESTIONS_BODY, generate } from './questions.ts';

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

/** The legacy answer: the 25-language code (macrolanguage), its name and the confidence among the 25. */
function legacyAnswer(a: LanguageIdOutput): Record<string, unknown> {
  const l = findQgLanguage(a.language);
  return { language: l?.code ?? a.language, language_name: l?.name ?? a.language, confidence: a.confidence };
}

/** Route plugin. */
export const legacyRoutes: FastifyPluginAsync<RouteDeps> = async (app, deps) => {
  app.post('/v1/generate-questions', {
    ...modelRoute(questionsAdmission(() => 1), BODY_LIMITS.questions), schema: { tags: ['legacy'], summary: 'Legacy: use /v1/questions/generate', security: SECURITY, body: QUESTIONS_BODY, response: ERRORS },
  }, async (req) => {
    const b = req.body as { passage: string; n: number; language: string; model: string };
    const { outs, language, model } = await generate(deps, req, [b.passage], b);
    return { questions: outs[0]!.questions, language, model, warnings: outs[0]!.warnings };
  });

  app.post('/v1/generate-questions/batch', {
    ...modelRoute(questionsAdmission((b) => b.passages.length), BODY_LIMITS.questionsBatch), schema: { tags: ['legacy'], summary: 'Legacy: use /v1/questions/generate/batch', security: SECURITY, body: QUESTIONS_BATCH_BODY, response: ERRORS },
  }, async (req) => {
    const b = req.body as { passages: string[]; n: number; language: string; model: string };
    const { outs, language, model } = await generate(deps, req, b.passages, b);
    return { results: outs.map((o) => o.questions), language, model };
  });

  const lid = (texts: string[], b: { model: string; variant: string }) =>
    texts.map((text) => ({ text, model: LEGACY_LID_MODELS[b.model]!, mode: LEGACY_VARIANTS[b.variant]!, topK: 1, candidates: CANDIDATES }));

  const model = (b: { model: string }) => LEGACY_LID_MODELS[b.model]!;
  app.post('/v1/detect-language', {
    ...modelRoute({ capability: 'language-id', model, items: () => 1 }, BODY_LIMITS.languageId), schema: { tags: ['legacy'], summary: 'Legacy: best of the 25 older languages; use /v1/language-id', security: SECURITY,
      body: { type: 'object', required: ['text'], properties: { text: TEXT, ...OPTIONS } }, response: ERRORS },
  }, async (req) => {
    const b = req.body as { text: string; model: string; variant: string };
    const [r] = await deps.dispatcher.dispatch<LanguageIdOutput>('language-id', LEGACY_LID_MODELS[b.model]!, lid([b.text], b), contextOf(req));
    return { ...legacyAnswer(outputOf(r!)), model: b.model, variant: b.variant };
  });

  app.post('/v1/detect-language/batch', {
    ...modelRoute({ capability: 'language-id', model, items: (b: { texts: string[] }) => b.texts.length }, BODY_LIMITS.languageIdBatch), schema: { tags: ['legacy'], summary: 'Legacy: batch of up to 256 texts', security: SECURITY,
      body: { type: 'object', required: ['texts'], properties: { texts: { type: 'array', minItems: 1, maxItems: FIELD_LIMITS.lidBatch, items: TEXT }, ...OPTIONS } }, response: ERRORS },
  }, async (req) => {
    const b = req.body as { texts: string[]; model: string; variant: string };
    const rs = await deps.dispatcher.dispatch<LanguageIdOutput>('language-id', LEGACY_LID_MODELS[b.model]!, lid(b.texts, b), contextOf(req));
    return { results: outputsOf(rs).map(legacyAnswer), model: b.model, variant: b.variant };
  });
};
