/**
 * The gateway's app factory: a Fastify instance with JSON-Schema validation, auth,
 * rate limits, body limits, load shedding, billing at delivery, metrics, the OpenAPI
 * document and every route of the spec. Starting a server is left to the caller
 * (services/main.ts), so tests use `app.inject()`. The order every model route runs in
 * (docs/security.md): auth and the key's first budget unit or the address's budget
 * (auth.ts), the declared body size and the body budget (body-budget.ts), the body read
 * within BODY_TIMEOUT_MS and parsed with a depth limit (json-body.ts), the route's schema,
 * then admission (admission.ts: the rest of the units, model availability, in-flight
 * items), and only then the handler's own work.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { randomUUID, timingSafeEqual } from 'node:crypto';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { ServiceError, codeForStatus, errorBody } from '../lib/errors.ts';
import { CAPABILITIES, CAPABILITY_MODULES } from '../capabilities/index.ts';
import { httpLatency, httpRequests, metricsRegistry, reportGatewayLoad } from '../lib/metrics.ts';
import type { KeyStore } from '../keys/store.ts';
import { registerAdmission } from './admission.ts';
import { registerAuth } from './auth.ts';
import { BodyBudget, registerBodyBudget } from './body-budget.ts';
import type { RouteDeps } from './deps.ts';
import type { GatewayState } from './state.ts';
import { registerDelivery } from './delivery.ts';
import { registerJsonParser } from './json-body.ts';
import { BODY_LIMITS } from '../route-kit/limits.ts';
import { ERROR_BODY, ERROR_BODY_ID } from '../route-kit/schemas.ts';
import { capabilityKit } from './capability-kit.ts';
import type { InflightItems } from './load-shedding.ts';
import { RateLimits } from './rate-limit.ts';
import { UsageRecorder } from './usage-recorder.ts';
import { OutcomeRecorder } from './outcome-recorder.ts';
import { infoRoutes } from './routes/info.ts';
import { accountRoutes } from './routes/account.ts';
import { analyticsRoutes } from './routes/analytics.ts';
import { dashboardRoutes } from './routes/dashboard.ts';

/** Options of {@link build}. */
export interface BuildOptions extends Omit<RouteDeps, 'state'> {
  keys: KeyStore;
  /** the in-flight limits, fed queue waits by the dispatcher (services/gateway/index.ts) */
  inflight: InflightItems;
  logger: Logger;
}


/** A client's `X-Request-Id` worth echoing and logging: printable ASCII, at most 128 characters. */
const CLIENT_REQUEST_ID = /^[\x21-\x7e]{1,128}$/;

/** Fastify's `trustProxy` from TRUST_PROXY ('' = the socket's address is the client's). */
export function trustProxyOf(value: string): FastifyServerOptions['trustProxy'] {
  if (value === '' || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    return (_address: string, hop: number) => hop < hops;
  }
  return value.split(',').map((s) => s.trim()).filter(Boolean);
}

/** Answers what Node's HTTP parser refuses (malformed requests, a body not received in time) in the service's error shape. */
function clientErrorHandler(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed || !socket.writable) { socket.destroy(); return; }
  const [status, message] = err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
    ? [408, 'the request was not received in full in time (BODY_TIMEOUT_MS)']
    : err.code === 'HPE_HEADER_OVERFLOW' ? [431, 'request headers are too large'] : [400, 'malformed HTTP request'];
  const body = JSON.stringify(errorBody(status === 408 ? 'BODY_TIMEOUT' : status === 431 ? 'HEADERS_TOO_LARGE' : 'INVALID_REQUEST', message));
  socket.end(`HTTP/1.1 ${status} ${status === 408 ? 'Request Timeout' : status === 431 ? 'Request Header Fields Too Large' : 'Bad Request'}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
}

/**
 * Builds the gateway app (not listening).
 * @throws Error when a plugin fails to register
 */
export async function build(opts: BuildOptions): Promise<FastifyInstance> {
  const { settings } = opts;
  const app = Fastify({
    loggerInstance: opts.logger.child({ service: 'gateway' }) as FastifyBaseLogger,
    // the request id keys correlation ids and usage event ids: always made here (a random
    // UUIDv4: 122 random bits; Node draws their entropy in bulk, where the uuid package's
    // UUIDv7 cost 11 µs of CPU per request), never the client's
    genReqId: () => randomUUID(),
    bodyLimit: BODY_LIMITS.other,
    trustProxy: trustProxyOf(settings.trustProxy),
    // a request (headers and body) must arrive within BODY_TIMEOUT_MS: 408 and the
    // connection closed after it; checked every second (Node's default is every 30 s).
    // Node 20 applies requestTimeout only when the server is created with it, not when
    // set afterwards as Fastify does, so it goes in both places.
    requestTimeout: settings.bodyTimeoutMs,
    http: { requestTimeout: settings.bodyTimeoutMs, connectionsCheckingInterval: Math.min(1000, settings.bodyTimeoutMs) },
    clientErrorHandler,
    logController: new LogController({ disableRequestLogging: !settings.logRequests, requestIdLogLabel: 'reqId' }),
    ajv: { customOptions: { allowUnionTypes: true, coerceTypes: false, removeAdditional: false, useDefaults: true, allErrors: false } },
  });
  registerJsonParser(app);

  const limits = new RateLimits({ keyMax: settings.rateLimitMax, anonMax: settings.rateLimitAnonMax, readMax: settings.rateLimitReadMax, windowMs: settings.rateLimitWindowMs });
  const state: GatewayState = {
    draining: false,
    inflight: opts.inflight,
    bodies: new BodyBudget(settings.maxInflightBodyBytes),
    recorder: new UsageRecorder(opts.producer, opts.codec, opts.topics.usage, opts.logger.child({ service: 'gateway', component: 'usage' })),
    outcomes: new OutcomeRecorder(opts.producer, opts.codec, opts.topics.outcomes, opts.logger.child({ service: 'gateway', component: 'outcomes' })),
  };
  app.decorate('gatewayState', state);
  reportGatewayLoad(() => ({
    items: Object.fromEntries(CAPABILITIES.map((c) => [c, state.inflight.inFlight(c)])),
    limits: Object.fromEntries(CAPABILITIES.map((c) => [c, state.inflight.limit(c)])),
    bodyBytes: state.bodies.inFlight,
  }));
  app.addHook('onClose', async () => { await Promise.all([state.recorder.close(), state.outcomes.close()]); });

  app.setErrorHandler((err: FastifyError, req, reply) => {
    // the code goes into the request's outcome event (services/gateway/delivery.ts)
    const send = (status: number, body: { error: string; status: number; code: string }) => { req.errorCode = body.code; return reply.code(status).send(body); };
    if (err instanceof ServiceError) {
      if (err.retryAfterS !== undefined) reply.header('retry-after', err.retryAfterS);
      return send(err.status, err.toJSON());
    }
    if (err.validation) return send(400, errorBody('INVALID_REQUEST', err.message));
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return send(413, errorBody('PAYLOAD_TOO_LARGE', `request body is too large (${err.message})`));
    if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return send(415, errorBody('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json'));
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      const msg = err.code?.startsWith('FST_ERR_CTP') ? `malformed JSON body: ${err.message}` : err.message;
      return send(err.statusCode, { error: msg, status: err.statusCode, code: codeForStatus(err.statusCode) });
    }
    req.log.error({ err }, 'request failed');
    return send(500, errorBody('INTERNAL', 'internal error'));
  });
  app.setNotFoundHandler((req, reply) => reply.code(404).send(errorBody('NOT_FOUND', `route ${req.method} ${req.url.split('?')[0]} not found`)));

  app.addHook('onRequest', async (req, reply) => {
    reply.header('x-request-id', req.id);
    const given = req.headers['x-request-id'];
    // a client's own id is echoed and logged as such, and used for nothing else
    if (typeof given === 'string' && CLIENT_REQUEST_ID.test(given)) {
      reply.header('x-client-request-id', given);
      req.log = req.log.child({ clientReqId: given });
    }
  });
  // while draining, every answer closes its connection, so that the listener can close
  app.addHook('onSend', async (_req, reply) => {
    if (state.draining) reply.header('connection', 'close');
  });
  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url ?? 'unmatched';
    httpRequests.inc({ route, method: req.method, status: String(reply.statusCode) });
    httpLatency.observe({ route, method: req.method }, reply.elapsedTime / 1000);
  });

  // cheap refusals first (onRequest): auth and rate limits, shutting down, a capability
  // already full, then the body's declared size and budget; after the schema (preHandler):
  // the rest of the units, model availability, load; then the request's context
  registerAuth(app, opts.keys, limits);
  app.addHook('onRequest', async (req) => {
    if (state.draining && req.routeOptions.config?.admission) throw new ServiceError('SHUTTING_DOWN', 'this gateway is shutting down; retry on another', { retryAfterS: 1 });
  });
  registerAdmission(app, { limits, dispatcher: opts.dispatcher, inflight: state.inflight });
  registerBodyBudget(app, state.bodies);
  registerDelivery(app, { requestTimeoutMs: settings.requestTimeoutMs, recorder: state.recorder, outcomes: settings.outcomeEvents ? state.outcomes : undefined });

  // the error body once, as a component every error response refers to
  app.addSchema({ $id: ERROR_BODY_ID, ...ERROR_BODY });
  await app.register(swagger, {
    // components named by their $id (the default is def-0, def-1, ...)
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'lmstream', version: opts.version,
        description: 'Multilingual language-model service: typed decisions, extraction, language identification, diacritic restoration and question generation. Send `Authorization: Bearer <API_KEY>` on every route that needs a key (`npm run keys -- create <name>` makes one). Every error answers `{error, status, code}` (docs/api.md).',
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      },
      // relative: the gateway that serves the document (any host, any PORT)
      servers: [{ url: '/', description: 'the gateway serving this document' }],
      tags: [
        { name: 'decide', description: 'Typed decisions with calibrated probabilities' },
        { name: 'extract', description: 'Documents turned into JSON following a template' },
        { name: 'language-id', description: 'Language identification (608 languages)' },
        { name: 'diacritize', description: 'Diacritics, tone marks and Arabic vowel marks restored' },
        { name: 'questions', description: 'Search-style questions generated from a passage' },
        { name: 'legacy', description: 'Older routes kept unchanged for existing clients' },
        { name: 'info', description: 'Models, languages, health and readiness: no key needed' },
        { name: 'account', description: "Warm-up, and the key's own usage and analytics" },
      ],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'an API key' } } },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  // Prometheus metrics: only with METRICS_TOKEN as a bearer token (docs/security.md)
  const metricsToken = settings.metricsToken ? Buffer.from(`Bearer ${settings.metricsToken}`) : null;
  app.get('/metrics', { schema: { hide: true } }, async (req, reply) => {
    if (!metricsToken) throw new ServiceError('FORBIDDEN', '/metrics is off: set METRICS_TOKEN and send it as Authorization: Bearer <METRICS_TOKEN>');
    const given = Buffer.from(req.headers.authorization ?? '');
    if (given.length !== metricsToken.length || !timingSafeEqual(given, metricsToken)) throw new ServiceError('UNAUTHORIZED', '/metrics needs Authorization: Bearer <METRICS_TOKEN>');
    reply.header('content-type', metricsRegistry.contentType);
    return metricsRegistry.metrics();
  });

  const deps = { ...opts, state };
  // each capability module's routes (current and legacy) with the module's kit, then the routes of the service as a whole
  for (const m of CAPABILITY_MODULES) {
    const kit = capabilityKit(m.name, deps);
    for (const routes of await m.routes()) await app.register(routes, kit);
  }
  for (const routes of [infoRoutes, accountRoutes, analyticsRoutes, dashboardRoutes]) await app.register(routes, deps);
  return app;
}
