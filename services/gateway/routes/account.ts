/**
 * POST /v1/warmup (key needed) and GET /v1/usage (key needed).
 */
import type { FastifyPluginAsync } from 'fastify';
import { CAPABILITIES, capabilityOfSymbol, modelsOf, type Capability } from '../../capabilities/index.ts';
import { ServiceError, invalid } from '../../lib/errors.ts';
import type { RouteDeps } from '../deps.ts';
import { BODY_LIMITS } from '../../route-kit/limits.ts';
import { ACCOUNT_ERRORS, ACCOUNT_READ, AUTHED, ERRORS, SECURITY, answerSchema } from '../../route-kit/schemas.ts';

/**
 * Services warmed when the body names none: question generation and language
 * identification only, in that order (spec: POST /v1/warmup, unchanged since the legacy
 * API; a new capability is warmed only when named). The names a body may give are the
 * capability names of the registry.
 */
export const DEFAULT_WARMUP: readonly Capability[] = ['questions', 'language-id'];

/**
 * How far billing is behind the stream when a usage report is read: usage messages the
 * billing consumer group has not committed (consumer lag over all partitions of the
 * usage topic, every key's) and usage events of answers this gateway delivered but has
 * not yet written. `complete` is true when both are 0: the report then holds every
 * delivered answer up to now. `messages` is null when the log could not be asked.
 */
async function billingLag(deps: RouteDeps): Promise<{ complete: boolean; messages: number | null; gateway_events: number; as_of: string }> {
  const asOf = new Date().toISOString();
  const gatewayEvents = deps.state.recorder.pending;
  let messages: number | null = null;
  try { messages = deps.billingLag ? await deps.billingLag() : null; } catch { messages = null; }
  return { complete: messages === 0 && gatewayEvents === 0, messages, gateway_events: gatewayEvents, as_of: asOf };
}

const WARMUP = answerSchema({ status: { type: 'string', enum: ['accepted'] }, services: { type: 'array', items: { type: 'string', enum: [...CAPABILITIES] }, description: 'the services whose models load in the background' } });
const USAGE_REPORT = answerSchema({
  key_id: { type: 'string' }, from: { type: 'string', format: 'date-time' }, to: { type: 'string', format: 'date-time' },
  usage: {
    type: 'array',
    items: answerSchema({
      capability: { type: 'string', enum: [...CAPABILITIES] }, model: { type: 'string' }, unit: { type: 'string', description: 'the billing unit' },
      quantity: { type: 'integer', description: 'units delivered' }, billable_units: { type: 'integer' },
      requests: { type: 'integer', description: 'requests answered; a bulk job counts each of its texts' },
    }),
  },
  billing_lag: answerSchema({
    complete: { type: 'boolean', description: 'true when the report holds every delivered answer up to as_of' },
    messages: { type: ['integer', 'null'], description: 'usage messages billing has not committed yet (null: the log could not be asked)' },
    gateway_events: { type: 'integer', description: "usage events of this gateway's delivered answers not yet written" },
    as_of: { type: 'string', format: 'date-time' },
  }),
});

/** Route plugin. */
export const accountRoutes: FastifyPluginAsync<RouteDeps> = async (app, deps) => {
  app.post('/v1/warmup', {
    ...AUTHED, bodyLimit: BODY_LIMITS.warmup,
    schema: {
      tags: ['account'], summary: 'Load models in the background', operationId: 'warmup', security: SECURITY,
      body: {
        type: ['object', 'null'],
        properties: { services: { type: 'array', minItems: 1, maxItems: CAPABILITIES.length, items: { type: 'string', enum: [...CAPABILITIES] } } },
      },
      response: { 202: WARMUP, ...ERRORS },
    },
  }, async (req, reply) => {
    // one control message per named service, however often it is named
    const services = [...new Set((req.body as { services?: Capability[] } | null)?.services ?? DEFAULT_WARMUP)];
    const now = Date.now();
    await deps.producer.send(deps.topics.control, await Promise.all(services.map(async (s) => ({
      key: s,
      value: await deps.codec.encode('control/warmup', { capability: s, models: modelsOf(s), requestedAtMs: now }),
    }))));
    return reply.code(202).send({ status: 'accepted', services });
  });

  app.get('/v1/usage', {
    ...ACCOUNT_READ,
    schema: {
      tags: ['account'], summary: "Usage of the caller's key per capability, model and billing unit", operationId: 'usage', security: SECURITY,
      querystring: { type: 'object', properties: { from: { type: 'string', format: 'date-time' }, to: { type: 'string', format: 'date-time' } } },
      response: { 200: USAGE_REPORT, ...ACCOUNT_ERRORS },
    },
  }, async (req) => {
    if (!deps.ledger) throw new ServiceError('NO_WORKER', 'usage reports are not served by this gateway');
    const q = req.query as { from?: string; to?: string };
    const from = q.from ? Date.parse(q.from) : 0;
    const to = q.to ? Date.parse(q.to) : Date.now() + 1;
    if (from > to) throw invalid('from must not be after to');
    // the lag first: usage that reaches the ledger after the report is then counted in it
    const lag = await billingLag(deps);
    const rows = await deps.ledger.report({ keyId: req.apiKey!.id, from, to });
    return {
      key_id: req.apiKey!.id,
      from: new Date(from).toISOString(),
      to: new Date(to).toISOString(),
      usage: rows.map((r) => ({ capability: capabilityOfSymbol(r.capability), model: r.model, unit: r.unit, quantity: r.quantity, billable_units: r.billable_units, requests: r.requests })),
      billing_lag: lag,
    };
  });
};
