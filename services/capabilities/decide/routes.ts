/**
 * POST /v1/decide, /v1/decide/batch and the alias POST /v1/systemone (spec:
 * "Decision request"). Billing: one decision per answered question.
 */
import type { FastifyRequest } from 'fastify';
import capability from './index.ts';
import type { DecideOutput, DecideRequest } from '../../events/contract.ts';
import { ServiceError, codeOf } from '../../lib/errors.ts';
import {
  BODY_LIMITS, ERRORS, ERROR_BODY, FIELD_LIMITS, SECURITY, answerSchema, checkContextLength, checkStateNotBlank, itemValidator, outputOf, usageSchema, type CapabilityRoutes,
} from '../../route-kit/index.ts';

const QUESTION = {
  type: 'object',
  required: ['type', 'instructions'],
  properties: {
    type: { type: 'string', enum: ['choice', 'noul', 'score'] },
    instructions: { type: 'string', maxLength: FIELD_LIMITS.questionInstructions },
    criteria: {},
  },
  allOf: [
    {
      if: { properties: { type: { const: 'choice' } } },
      then: {
        required: ['criteria'],
        properties: {
          criteria: {
            type: 'object', minProperties: 2, maxProperties: FIELD_LIMITS.choiceOptions, propertyNames: { maxLength: FIELD_LIMITS.optionKey },
            additionalProperties: { type: ['string', 'null'], maxLength: FIELD_LIMITS.optionText },
          },
        },
      },
    },
    {
      if: { properties: { type: { const: 'noul' } } },
      then: {
        properties: {
          criteria: {
            type: 'object', additionalProperties: false,
            properties: { true: { type: ['string', 'null'], maxLength: FIELD_LIMITS.optionText }, false: { type: ['string', 'null'], maxLength: FIELD_LIMITS.optionText } },
          },
        },
      },
    },
    {
      if: { properties: { type: { const: 'score' } } },
      then: { required: ['criteria'], properties: { criteria: { type: 'array', minItems: 2, maxItems: 26, items: { type: 'string', maxLength: FIELD_LIMITS.optionText } } } },
    },
  ],
} as const;

const STATE = { type: ['string', 'object', 'array'], minLength: 1, minProperties: 1, minItems: 1, additionalProperties: true, items: {}, description: 'the thing decided about: text, or any JSON record or list' } as const;
const QUESTIONS = {
  type: 'object', minProperties: 1, maxProperties: FIELD_LIMITS.questions, propertyNames: { maxLength: FIELD_LIMITS.optionKey }, additionalProperties: QUESTION,
} as const;

/** Body schema of POST /v1/decide. */
export const DECIDE_BODY = {
  type: 'object',
  required: ['state', 'questions'],
  properties: { model: { type: 'string', enum: capability.models.map((m) => m.name) }, state: STATE, questions: QUESTIONS },
} as const;

const CASE = {
  type: 'object',
  required: ['id', 'state', 'questions'],
  properties: { id: { type: ['string', 'integer'], maxLength: FIELD_LIMITS.itemId }, state: STATE, questions: QUESTIONS },
} as const;
const checkCaseSchema = itemValidator(CASE);

const BATCH_BODY = {
  type: 'object',
  required: ['cases'],
  properties: {
    model: { type: 'string', enum: capability.models.map((m) => m.name) },
    // each case is checked on its own (CASE, in the handler), so that a broken one fails alone
    cases: { type: 'array', minItems: 1, maxItems: FIELD_LIMITS.decideBatch, items: { type: 'object', additionalProperties: true, description: 'a case: `id` (string or integer), `state` and `questions` as in POST /v1/decide' } },
  },
} as const;

const MODEL = { type: 'string', enum: capability.models.map((m) => m.name) } as const;
/** One answer (spec: "Answer fields returned" per type; answers.ts). */
const DECISION = answerSchema({
  type: { type: 'string', enum: ['choice', 'noul', 'score'] },
  choice: { type: 'string', description: 'choice: the most probable option key' },
  noul: { type: 'number', minimum: 0, maximum: 1, description: 'noul: the probability that the statement is true' },
  score: { type: 'number', description: 'score: the expected level (0 = the first level)' },
  probabilities: { type: 'object', additionalProperties: { type: 'number' }, description: 'choice: option key → probability; score: level index → probability' },
  legend: { type: 'object', additionalProperties: { type: 'string' }, description: 'score: level index → description' },
  confidence: { type: 'number', minimum: 0, maximum: 1, description: 'how peaked the distribution is (0 no idea, 1 certain); not a probability' },
}, ['choice', 'noul', 'score', 'probabilities', 'legend', 'confidence']);
const ANSWERS = { type: 'object', additionalProperties: DECISION, description: "answers keyed by the caller's question ids" } as const;
const USAGE = usageSchema('decisions');
/** Response schema (200) of POST /v1/decide. */
const ANSWER = answerSchema({ model: MODEL, answers: ANSWERS, usage: USAGE });
const ITEM_ID = { type: ['string', 'integer', 'null'], description: "the case's id" } as const;
/** Response schema (200) of POST /v1/decide/batch: each case answered, or its failure. */
const BATCH_ANSWER = answerSchema({
  model: MODEL,
  results: { type: 'array', items: { anyOf: [answerSchema({ id: ITEM_ID, ...ERROR_BODY.properties }), answerSchema({ id: ITEM_ID, answers: ANSWERS })] } },
  usage: USAGE,
});

interface DecideBody { model?: string; state: unknown; questions: Record<string, unknown>; }

/**
 * Rules of a decision case beyond its schema: a state that is not blank, and a state and
 * questions that each fit the model's context (413 otherwise).
 */
function checkCase(c: DecideBody, prefix = ''): void {
  checkStateNotBlank(c.state, `${prefix}state`);
  checkContextLength(c.state, `${prefix}state`);
  checkContextLength(c.questions, `${prefix}questions`);
}

/** Questions of a case as the rate limit counts them (one decision each); 1 for a case too broken to count. */
const questionCount = (c: unknown): number => {
  const q = (c as { questions?: unknown } | null)?.questions;
  return typeof q === 'object' && q !== null ? Math.max(1, Object.keys(q).length) : 1;
};
const modelOf = (b: { model?: string }) => b.model ?? capability.defaultModel;

/** The cases of a batch after their rules: failure entries by position, and the valid cases' request events. */
interface CasePlan {
  results: Array<Record<string, unknown> | undefined>;
  valid: Array<{ index: number; id: unknown; input: DecideRequest }>;
}

/** Route plugin. */
export const decideRoutes: CapabilityRoutes = async (app, kit) => {
  const single = async (req: FastifyRequest) => {
    const body = req.body as DecideBody;
    const model = body.model ?? capability.defaultModel;
    const [r] = await kit.dispatch<DecideOutput>(req, model, [
      { model, state: JSON.stringify(body.state), questions: JSON.stringify(body.questions) },
    ]);
    const out = outputOf(r!);
    return { model, answers: JSON.parse(out.answers) as unknown, usage: { decisions: out.decisions } };
  };
  const schema = { tags: ['decide'], security: SECURITY, body: DECIDE_BODY, response: { 200: ANSWER, ...ERRORS } };
  const route = kit.modelRoute({ model: modelOf, items: () => 1, units: questionCount, check: (b: DecideBody) => checkCase(b) }, BODY_LIMITS.decide);
  app.post('/v1/decide', { ...route, schema: { ...schema, summary: 'Typed decisions with calibrated probabilities', operationId: 'decide' } }, single);
  app.post('/v1/systemone', { ...route, schema: { ...schema, summary: 'Alias of POST /v1/decide', operationId: 'systemone' } }, single);

  // each case is checked before admission (schema, then the rules): a batch of broken
  // cases is answered without a model; the model is checked only for the valid ones
  const checkCases = (b: { model?: string; cases: Array<Record<string, unknown>> }): CasePlan => {
    const plan: CasePlan = { results: new Array(b.cases.length), valid: [] };
    b.cases.forEach((c, index) => {
      try {
        checkCaseSchema(c, `cases[${index}]`);
        checkCase(c as unknown as DecideBody, `cases[${index}].`);
        plan.valid.push({ index, id: c.id, input: { model: modelOf(b), state: JSON.stringify(c.state), questions: JSON.stringify(c.questions) } });
      } catch (err) {
        // only a broken rule (400, 413) is the case's failure; anything else fails the request
        if (!(err instanceof ServiceError)) throw err;
        plan.results[index] = { id: c?.id ?? null, error: err.message, status: err.status, code: err.code };
      }
    });
    return plan;
  };
  const batchRoute = kit.modelRoute({
    model: modelOf, check: checkCases, items: (_b: unknown, plan: CasePlan) => plan.valid.length,
    units: (b: { cases: unknown[] }) => b.cases.reduce<number>((n, c) => n + questionCount(c), 0),
  }, BODY_LIMITS.decideBatch);
  app.post('/v1/decide/batch', { ...batchRoute, schema: { tags: ['decide'], security: SECURITY, body: BATCH_BODY, response: { 200: BATCH_ANSWER, ...ERRORS }, summary: 'Up to 32 decision cases', operationId: 'decideBatch' } }, async (req) => {
    const model = modelOf(req.body as { model?: string });
    const { results, valid } = req.admitted as CasePlan;
    let decisions = 0;
    if (valid.length > 0) {
      const rs = await kit.dispatch<DecideOutput>(req, model, valid.map((v) => v.input));
      rs.forEach((r, k) => {
        const v = valid[k]!;
        if (r.failure) results[v.index] = { id: v.id, error: r.failure.error, status: r.failure.status, code: codeOf(r.failure) };
        else { results[v.index] = { id: v.id, answers: JSON.parse(r.output.answers) }; decisions += r.output.decisions; }
      });
    }
    return { model, results, usage: { decisions } };
  });
};
