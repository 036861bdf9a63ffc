/**
 * POST /v1/questions/generate and /batch (spec: "Question generation request"), and
 * the shared code of the legacy POST /v1/generate-questions. Billing: one generation
 * per passage. In a batch, `n` and `language` apply to every passage (the spec leaves
 * this open; docs/api-choices.md).
 */
import type { FastifyRequest } from 'fastify';
import capability, { QG_VENDOR } from './index.ts';
import type { QuestionsOutput } from '../../events/contract.ts';
import { invalid } from '../../lib/errors.ts';
import { QG_LANGUAGES, findQgLanguage } from '../../languages.ts';
import { BODY_LIMITS, ERRORS, FIELD_LIMITS, SECURITY, answerSchema, usageSchema, outputOf, outputsOf, type Admission, type CapabilityRoutes, type RouteKit } from '../../route-kit/index.ts';

const PASSAGE = { type: 'string', minLength: 1, maxLength: FIELD_LIMITS.passage } as const;
const OPTIONS = {
  n: { type: 'integer', minimum: 1, maximum: 10, default: 3 },
  language: { type: 'string', maxLength: FIELD_LIMITS.languageName, default: 'English', description: "the passage's language: 3- or 2-letter code or name of one of the 25 languages of GET /v1/languages" },
  model: { type: 'string', enum: capability.models.map((m) => m.name), default: capability.defaultModel },
} as const;

/** Body schema of POST /v1/questions/generate (and the legacy /v1/generate-questions). */
export const QUESTIONS_BODY = { type: 'object', required: ['passage'], properties: { passage: PASSAGE, ...OPTIONS } } as const;
/** Body schema of the batch routes. */
export const QUESTIONS_BATCH_BODY = { type: 'object', required: ['passages'], properties: { passages: { type: 'array', minItems: 1, maxItems: FIELD_LIMITS.passageBatch, items: PASSAGE }, ...OPTIONS } } as const;

const QUESTIONS = { type: 'array', items: { type: 'string' }, description: "questions in the passage's own language" } as const;
const ANSWER_FIELDS = {
  language: { type: 'string', description: "ISO 639-3 code of the passage's language" },
  model: { type: 'string', description: 'vendor-prefixed model name (`<vendor>/mist-qg-1.5b`)' },
} as const;
const WARNINGS = { type: 'array', items: { type: 'string' }, description: 'a very short passage, or a language the model is less confident in' } as const;
/** Response schema (200) of POST /v1/generate-questions (the legacy route: no usage block). */
export const LEGACY_QUESTIONS_ANSWER = answerSchema({ questions: QUESTIONS, ...ANSWER_FIELDS, warnings: WARNINGS });
/** Response schema (200) of POST /v1/generate-questions/batch. */
export const LEGACY_QUESTIONS_BATCH_ANSWER = answerSchema({ results: { type: 'array', items: QUESTIONS, description: 'one list per passage, in order' }, ...ANSWER_FIELDS });
const QUESTIONS_ANSWER = answerSchema({ ...LEGACY_QUESTIONS_ANSWER.properties, usage: usageSchema('generations') });
const QUESTIONS_BATCH_ANSWER = answerSchema({ ...LEGACY_QUESTIONS_BATCH_ANSWER.properties, warnings: WARNINGS, usage: usageSchema('generations') });

type Options = { n: number; language: string; model: string };

/**
 * Rule: `language` is one of the 25 languages.
 * @returns its ISO 639-3 code
 */
export function resolveLanguage(value: string): string {
  const l = findQgLanguage(value);
  if (!l) throw invalid(`language "${value}" is not one of the 25 question-generation languages (${QG_LANGUAGES.map((x) => x.code).join(', ')})`);
  return l.code;
}

/** Admission of a question-generation route (shared with the legacy routes); `items` counts its passages. */
export function questionsAdmission(items: (b: { passages: string[] }) => number): Admission {
  return { model: (b: Options) => b.model, items, check: (b: Options) => resolveLanguage(b.language) };
}

/** Runs question generation for passages; shared with the legacy routes. */
export async function generate(kit: RouteKit, req: FastifyRequest, passages: string[], o: Options): Promise<{ outs: QuestionsOutput[]; language: string; model: string }> {
  const language = resolveLanguage(o.language);
  const rs = await kit.dispatch<QuestionsOutput>(req, o.model,
    passages.map((passage) => ({ passage, model: o.model, n: o.n, language })));
  const outs = rs.length === 1 ? [outputOf(rs[0]!)] : outputsOf(rs);
  return { outs, language, model: `${QG_VENDOR}/${o.model}` };
}

/** Route plugin. */
export const questionsRoutes: CapabilityRoutes = async (app, kit) => {
  app.post('/v1/questions/generate', {
    ...kit.modelRoute(questionsAdmission(() => 1), BODY_LIMITS.questions), schema: { tags: ['questions'], summary: 'Search-style questions from a passage', operationId: 'generateQuestions', security: SECURITY, body: QUESTIONS_BODY, response: { 200: QUESTIONS_ANSWER, ...ERRORS } },
  }, async (req) => {
    const b = req.body as Options & { passage: string };
    const { outs, language, model } = await generate(kit, req, [b.passage], b);
    return { questions: outs[0]!.questions, language, model, warnings: outs[0]!.warnings, usage: { generations: 1 } };
  });

  app.post('/v1/questions/generate/batch', {
    ...kit.modelRoute(questionsAdmission((b) => b.passages.length), BODY_LIMITS.questionsBatch), schema: { tags: ['questions'], summary: 'Questions for up to 64 passages in one language', operationId: 'generateQuestionsBatch', security: SECURITY, body: QUESTIONS_BATCH_BODY, response: { 200: QUESTIONS_BATCH_ANSWER, ...ERRORS } },
  }, async (req) => {
    const b = req.body as Options & { passages: string[] };
    const { outs, language, model } = await generate(kit, req, b.passages, b);
    return { results: outs.map((o) => o.questions), language, model, warnings: [...new Set(outs.flatMap((o) => o.warnings))], usage: { generations: outs.length } };
  });
};
