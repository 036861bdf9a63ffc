/**
 * GET /v1/models, GET /v1/languages, GET /health and GET /ready: no key needed (GET /v1/lid/models is language ID's, services/capabilities/language-id/routes.ts).
 */
import type { FastifyPluginAsync } from 'fastify';
import { CAPABILITIES, MODEL_CATALOG, billingUnitOf, defaultModelOf } from '../../capabilities/index.ts';
import { QG_LANGUAGES } from '../../languages.ts';
import type { RouteDeps } from '../deps.ts';
import { PUBLIC, PUBLIC_ERRORS, answerSchema } from '../../route-kit/schemas.ts';

const MODELS = answerSchema({
  models: {
    type: 'array',
    items: answerSchema({
      name: { type: 'string', description: 'the exact value of a route\'s `model` field' },
      capability: { type: 'string', enum: [...CAPABILITIES] },
      endpoint: { type: 'string', description: 'the route that serves it' },
      status: { type: 'string', enum: ['available', 'coming soon'], description: 'available: a live worker has the model installed' },
      billing_unit: { type: 'string' },
      languages: { type: 'array', items: { type: 'string' }, description: 'ISO 639-3 codes (language ID: too many to list, see GET /v1/lid/models)' },
      default: { type: 'boolean', description: "the route's default model" },
      description: { type: 'string' },
    }),
  },
});
const LANGUAGES = answerSchema({
  languages: { type: 'array', items: answerSchema({ code: { type: 'string', description: 'ISO 639-3' }, code2: { type: 'string', description: 'ISO 639-1' }, name: { type: 'string' } }) },
});
const HEALTH = answerSchema({
  status: { type: 'string', enum: ['ok'] }, version: { type: 'string' },
  transport: { type: 'string', enum: ['memory', 'kafka'], description: 'the event log: in memory (embedded mode) or Kafka' },
  uptime_s: { type: 'integer' },
});
const COUNT_BY_CAPABILITY = { type: 'object', properties: Object.fromEntries(CAPABILITIES.map((c) => [c, { type: 'integer' }])), required: [...CAPABILITIES] } as const;
const READY = answerSchema({
  ready: { type: 'boolean' }, draining: { type: 'boolean', description: 'shutting down' },
  overloaded: { type: 'array', items: { type: 'string', enum: [...CAPABILITIES] }, description: 'capabilities holding 90 % of their in-flight limit' },
  loading_models: { type: 'array', items: { type: 'string' }, description: 'models this process is still loading at start (MODEL_PRELOAD); not ready until none is' },
  inflight_items: COUNT_BY_CAPABILITY, inflight_limits: COUNT_BY_CAPABILITY,
});

/** Route plugin. */
export const infoRoutes: FastifyPluginAsync<RouteDeps> = async (app, deps) => {
  app.get('/v1/models', { schema: { tags: ['info'], summary: 'Every model with endpoint, status, billing unit and languages', operationId: 'listModels', security: PUBLIC, response: { 200: MODELS, ...PUBLIC_ERRORS } } }, async () => ({
    models: MODEL_CATALOG.map((m) => ({
      name: m.name,
      capability: m.capability,
      endpoint: m.endpoint,
      status: deps.liveWorkers.canServe(m.capability, m.name) ? 'available' : 'coming soon',
      billing_unit: billingUnitOf(m.capability),
      languages: m.languages,
      default: defaultModelOf(m.capability) === m.name,
      description: m.description,
    })),
  }));

  app.get('/v1/languages', { schema: { tags: ['info'], summary: 'The 25 question-generation languages', operationId: 'listLanguages', security: PUBLIC, response: { 200: LANGUAGES, ...PUBLIC_ERRORS } } }, async () => ({
    languages: QG_LANGUAGES.map((l) => ({ code: l.code, code2: l.code2, name: l.name })),
  }));

  // liveness: answers while the process serves HTTP at all, whatever the load (no key, no
  // rate limit, no work); the spec's fields plus the transport and uptime
  app.get('/health', { schema: { tags: ['info'], summary: 'Liveness and version', operationId: 'health', security: PUBLIC, response: { 200: HEALTH } } }, async () => ({
    status: 'ok',
    version: deps.version,
    transport: deps.transport,
    uptime_s: Math.round(process.uptime()),
  }));

  // readiness: 503 while the process preloads its models (MODEL_PRELOAD), while shutting
  // down or while a capability holds 90 % of its in-flight limit, so a load balancer sends
  // new work to another gateway (docs/security.md)
  app.get('/ready', { schema: { tags: ['info'], summary: 'Readiness: 503 while overloaded or shutting down', operationId: 'ready', security: PUBLIC, response: { 200: READY, 503: READY } } }, async (_req, reply) => {
    const { draining, inflight } = deps.state;
    const overloaded = inflight.overloadedCapabilities();
    const loading = deps.loadingModels();
    const ready = !draining && overloaded.length === 0 && loading.length === 0;
    return reply.code(ready ? 200 : 503).send({
      ready, draining, overloaded, loading_models: loading,
      inflight_items: Object.fromEntries(CAPABILITIES.map((c) => [c, inflight.inFlight(c)])),
      // each capability's limit now: its ceiling, or less while items wait past its queue-wait target
      inflight_limits: Object.fromEntries(CAPABILITIES.map((c) => [c, inflight.limit(c)])),
    });
  });
};
