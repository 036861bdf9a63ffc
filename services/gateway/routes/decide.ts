/**
 * POST /v1/decide, /v1/decide/batch and the alias POST /v1/systemone (spec:
 * "Decision request"). Billing: one decision per answered question.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { DEFAULT_MODEL, modelsOf } from '../../capabilities.ts';
import { ServiceError } from '../../lib/errors.ts';
import { contextOf, type RouteDeps } from '../deps.ts';
import { outputOf } from '../dispatcher.ts';
import { checkContextLength, checkStateNotBlank, itemValidator } from '../validation.ts';
import { AUTHED, ERRORS, SECURITY } from './common.ts';

const QUESTION = {
  type: 'object',
  required: ['type', 'instructions'],
  properties: {
    type: { type: 'string', enum: ['choice', 'noul', 'score'] },
    instructions: { type: 'string' },
    criteria: {},
  },
  allOf: [
    {
      if: { properties: { type: { const: 'choice' } } },
      then: {
        required: ['criteria'],
        properties: { criteria: { type: 'object', minProperties: 2, maxProperties: 255, additionalProperties: { type: ['string', 'null'] } } },
      },
    },
    {
      if: { properties: { type: { const: 'noul' } } },
      then: { properties: { criteria: { type: 'object', properties: { true: { type: ['string', 'null'] }, false: { type: ['string', 'null'] } }, additionalProperties: false } } },
    },
    {
      if: { properties: { type: { const: 'score' } } },
      then: { required: ['criteria'], properties: { criteria: { type: 'array', minItems: 2, maxItems: 26, items: { type: 'string' } } } },
    },
  ],
} as const;

const STATE = { type: ['string', 'object', 'array'], minLength: 1, minProperties: 1, minItems: 1 } as const;
const QUESTIONS = { type: 'object', minProperties: 1, maxProperties: 64, additionalProperties: QUESTION } as const;

/** Body schema of POST /v1/decide. */
export const DECIDE_BODY = {
  type: 'object',
  required: ['state', 'questions'],
  properties: { model: { type: 'string', enum: modelsOf('decide') }, state: STATE, questions: QUESTIONS },
} as const;

const CASE = {
  type: 'object',
  required: ['id', 'state', 'questions'],
  properties: { id: { type: ['string', 'integer'] }, state: STATE, questions: QUESTIONS },
} as const;
const checkCase = itemValidator(CASE);

const BATCH_BODY = {
  type: 'object',
  required: ['cases'],
  properties: {
    model: { type: 'string', enum: modelsOf('decide') },
    cases: { type: 'array', minItems: 1, maxItems: 32, items: { type: 'object' } },
  },
} as const;

interface DecideOutput { answers: string; decisions: number; }

/** Route plugin. */
export const decideRoutes: FastifyPluginAsync<RouteDeps> = async (app, deps) => {
  const single = async (req: FastifyRequest) => {
    const body = req.body as { model?: string; state: unknown; questions: Record<string, unknown> };
    checkStateNotBlank(body.state);
    checkContextLength(body.state);
    const model = body.model ?? DEFAULT_MODEL.decide;
    const [r] = await deps.dispatcher.dispatch<DecideOutput>('decide', model, [
      { model, state: JSON.stringify(body.state), questions: JSON.stringify(body.questions) },
    ], contextOf(req, deps.config));
    const out = outputOf(r!);
    return { model, answers: JSON.parse(out.answers) as unknown, usage: { decisions: out.decisions } };
  };
  const schema = { tags: ['decide'], security: SECURITY, body: DECIDE_BODY, response: { ...ERRORS, 413: ERRORS[400] } };
  app.post('/v1/decide', { ...AUTHED, schema: { ...schema, summary: 'Typed decisions with calibrated probabilities' } }, single);
  app.post('/v1/systemone', { ...AUTHED, schema: { ...schema, summary: 'Alias of POST /v1/decide' } }, single);

  app.post('/v1/decide/batch', { ...AUTHED, schema: { tags: ['decide'], security: SECURITY, body: BATCH_BODY, response: ERRORS, summary: 'Up to 32 decision cases' } }, async (req) => {
    const body = req.body as { model?: string; cases: Array<Record<string, unknown>> };
    const model = body.model ?? DEFAULT_MODEL.decide;
    const results: Array<Record<string, unknown> | undefined> = new Array(body.cases.length);
    const valid: Array<{ index: number; id: unknown; input: Record<string, unknown> }> = [];
    body.cases.forEach((c, index) => {
      try {
        checkCase(c, `cases[${index}]`);
        checkStateNotBlank(c.state, `cases[${index}].state`);
        checkContextLength(c.state, `cases[${index}].state`);
        valid.push({ index, id: c.id, input: { model, state: JSON.stringify(c.state), questions: JSON.stringify(c.questions) } });
      } catch (err) {
        const e = err as ServiceError;
        results[index] = { id: c?.id ?? null, error: e.message, status: e.status };
      }
    });
    let decisions = 0;
    if (valid.length > 0) {
      const rs = await deps.dispatcher.dispatch<DecideOutput>('decide', model, valid.map((v) => v.input), contextOf(req, deps.config));
      rs.forEach((r, k) => {
        const v = valid[k]!;
        if (r.failure) results[v.index] = { id: v.id, error: r.failure.error, status: r.failure.status };
        else { results[v.index] = { id: v.id, answers: JSON.parse(r.output.answers) }; decisions += r.output.decisions; }
      });
    }
    return { model, results, usage: { decisions } };
  });
};
