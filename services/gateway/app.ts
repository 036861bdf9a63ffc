/**
 * The gateway's app factory: a Fastify instance with JSON-Schema validation, auth,
 * rate limits, metrics, the OpenAPI document and every route of the spec. Starting a
 * server is left to the caller (services/main.ts), so tests use `app.inject()`.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyError, type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import rateLimit from '@fastify/rate-limit';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { ServiceError } from '../lib/errors.ts';
import { httpLatency, httpRequests, registry as metricsRegistry } from '../lib/metrics.ts';
import type { KeyStore } from '../keys/store.ts';
import type { RouteDeps } from './deps.ts';
import { decideRoutes } from './routes/decide.ts';
import { extractRoutes } from './routes/extract.ts';
import { languageIdRoutes } from './routes/language-id.ts';
import { diacritizeRoutes } from './routes/diacritize.ts';
import { questionsRoutes } from './routes/questions.ts';
import { legacyRoutes } from './routes/legacy.ts';
import { infoRoutes } from './routes/info.ts';
import { accountRoutes } from './routes/account.ts';

/** Options of {@link build}. */
export interface BuildOptions extends RouteDeps {
  keys: KeyStore;
  logger: Logger;
}

/**
 * Builds the gateway app (not listening).
 * @throws Error when a plugin fails to register
 */
export async function build(opts: BuildOptions): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: opts.logger.child({ service: 'gateway' }) as FastifyBaseLogger,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[A-Za-z0-9._-]{1,64}$/.test(given) ? given : randomUUID();
    },
    bodyLimit: 8 * 1024 * 1024,
    logController: new LogController({ disableRequestLogging: !opts.config.LOG_REQUESTS, requestIdLogLabel: 'reqId' }),
    ajv: { customOptions: { allowUnionTypes: true, coerceTypes: false, removeAdditional: false, useDefaults: true, allErrors: false } },
  });

  // an empty JSON body reads as null (POST /v1/warmup "with no body"); routes that need a
  // body reject null through their schema. Fastify's own parser (secure-json-parse) does the rest.
  const jsonParser = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (body === '' || (typeof body === 'string' && body.trim() === '')) return done(null, null);
    jsonParser(req, String(body), done);
  });

  app.setErrorHandler((err: FastifyError, req, reply) => {
    if (err instanceof ServiceError) return reply.code(err.status).send(err.toJSON());
    if (err.validation) return reply.code(400).send({ error: err.message, status: 400 });
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return reply.code(413).send({ error: `request body is too large (${err.message})`, status: 413 });
    if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return reply.code(415).send({ error: 'Content-Type must be application/json', status: 415 });
    if (err.statusCode === 429) return reply.code(429).send({ error: err.message, status: 429 });
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      const msg = err.code?.startsWith('FST_ERR_CTP') ? `malformed JSON body: ${err.message}` : err.message;
      return reply.code(err.statusCode).send({ error: msg, status: err.statusCode });
    }
    req.log.error({ err }, 'request failed');
    return reply.code(500).send({ error: 'internal error', status: 500 });
  });
  app.setNotFoundHandler((req, reply) => reply.code(404).send({ error: `route ${req.method} ${req.url.split('?')[0]} not found`, status: 404 }));

  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url ?? 'unmatched';
    httpRequests.inc({ route, method: req.method, status: String(reply.statusCode) });
    httpLatency.observe({ route, method: req.method }, reply.elapsedTime / 1000);
  });

  // auth: every route with config.auth needs a known key (onRequest, before the body is parsed)
  app.addHook('onRequest', async (req) => {
    if (!req.routeOptions.config?.auth) return;
    const header = req.headers.authorization;
    const m = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!m) throw new ServiceError('UNAUTHORIZED', 'missing API key: send Authorization: Bearer <API_KEY>');
    const identity = await opts.keys.verify(m[1]!);
    if (!identity) throw new ServiceError('UNAUTHORIZED', 'unknown or revoked API key');
    req.apiKey = identity;
  });

  await app.register(rateLimit, {
    global: false,
    hook: 'preHandler',
    max: opts.config.RATE_LIMIT_MAX,
    timeWindow: opts.config.RATE_LIMIT_WINDOW_MS,
    keyGenerator: (req) => req.apiKey?.id ?? req.ip,
    errorResponseBuilder: (_req, ctx) => Object.assign(
      new ServiceError('RATE_LIMITED', `rate limit exceeded: at most ${ctx.max} requests per ${opts.config.RATE_LIMIT_WINDOW_MS} ms for this API key; retry in ${ctx.after}`),
      { statusCode: 429 },
    ),
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'lmstream', version: opts.version, description: 'Multilingual language-model service (../shared/spec/api-spec.md)' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  app.get('/metrics', { schema: { hide: true } }, async (_req, reply) => {
    reply.header('content-type', metricsRegistry.contentType);
    return metricsRegistry.metrics();
  });

  for (const routes of [decideRoutes, extractRoutes, languageIdRoutes, diacritizeRoutes, questionsRoutes, legacyRoutes, infoRoutes, accountRoutes]) {
    await app.register(routes, opts);
  }
  return app;
}
