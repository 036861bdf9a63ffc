/**
 * POST /v1/decide, /v1/decide/batch and the alias POST /v1/systemone (spec:
 * "Decision request"). Billing: one decision per answered question.
 */
import type { FastifyRequest } from 'fastify';
import capability from './index.ts';
import type { DecideOutput, DecideRequest } from '../../events/contract.ts';
import { ServiceError, codeOf } from '../../lib/errors.ts';
import {
  BODY_LIMITS, ERRORS, FIELD_LIMITS, SECURITY, checkContextLength, checkStateNotBlank, itemValidator, outputOf, type CapabilityRoutes,
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

const STATE = { type: ['string', 'object', 'array'], minLength: 1, minProperties: 1, minItems: 1 } as const;
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
    cases: { type: 'array', minItems: 1, maxItems: FIELD_LIMITS.decideBatch, items: { type: 'object' } },
  },
} as const;

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
  const schema = { tags: ['decide'], security: SECURITY, body: DECIDE_BODY, response: ERRORS };
  const route = kit.modelRoute({ model: modelOf, items: () => 1, units: questionCount, check: (b: DecideBody) => checkCase(b) }, BODY_LIMITS.decide);
  app.post('/v1/decide', { ...route, schema: { ...schema, summary: 'Typed decisions with calibrated probabilities' } }, single);
  app.post('/v1/systemone', { ...route, schema: { ...schema, summary: 'Alias of POST /v1/decide' } }, single);

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
  app.post('/v1/decide/batch', { ...batchRoute, schema: { tags: ['decide'], security: SECURITY, body: BATCH_BODY, response: ERRORS, summary: 'Up to 32 decision cases' } }, async (req) => {
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
