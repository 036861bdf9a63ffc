/**
 * Older question-generation routes kept for existing clients (spec, "Versioning"):
 * POST /v1/generate-questions (+ /batch): request as /v1/questions/generate, response
 * without the usage block. Fields: docs/api-choices.md.
 */
import { BODY_LIMITS, ERRORS, SECURITY, type CapabilityRoutes } from '../../route-kit/index.ts';
import { LEGACY_QUESTIONS_ANSWER, LEGACY_QUESTIONS_BATCH_ANSWER, QUESTIONS_BATCH_BODY, QUESTIONS_BODY, generate, questionsAdmission } from './routes.ts';

/** Route plugin. */
export const legacyQuestionsRoutes: CapabilityRoutes = async (app, kit) => {
  app.post('/v1/generate-questions', {
    ...kit.modelRoute(questionsAdmission(() => 1), BODY_LIMITS.questions), schema: { tags: ['legacy'], summary: 'Legacy: use /v1/questions/generate', operationId: 'legacyGenerateQuestions', security: SECURITY, body: QUESTIONS_BODY, response: { 200: LEGACY_QUESTIONS_ANSWER, ...ERRORS } },
  }, async (req) => {
    const b = req.body as { passage: string; n: number; language: string; model: string };
    const { outs, language, model } = await generate(kit, req, [b.passage], b);
    return { questions: outs[0]!.questions, language, model, warnings: outs[0]!.warnings };
  });

  app.post('/v1/generate-questions/batch', {
    ...kit.modelRoute(questionsAdmission((b) => b.passages.length), BODY_LIMITS.questionsBatch), schema: { tags: ['legacy'], summary: 'Legacy: use /v1/questions/generate/batch', operationId: 'legacyGenerateQuestionsBatch', security: SECURITY, body: QUESTIONS_BATCH_BODY, response: { 200: LEGACY_QUESTIONS_BATCH_ANSWER, ...ERRORS } },
  }, async (req) => {
    const b = req.body as { passages: string[]; n: number; language: string; model: string };
    const { outs, language, model } = await generate(kit, req, b.passages, b);
    return { results: outs.map((o) => o.questions), language, model };
  });
};
