/**
 * Authentication and the rate limits that come before a body is read (an `onRequest`
 * hook, the first of every request):
 * - a route with `config.auth` needs exactly one `Authorization: Bearer <key>` header with
 *   a known, unrevoked key (400 for two such headers, 401 otherwise); the key then pays
 *   1 unit of its budget, except on a read of its own account (`config.accountRead`:
 *   usage, analytics), counted in a read budget of its own (RATE_LIMIT_READ_MAX), so a key
 *   that has spent its billable units can still read what it spent;
 * - a request without a valid key (failed authentication, or a public GET route other
 *   than `/health`, `/ready` and `/metrics`) is counted against its client address;
 * - a refusal by either budget is 429 with `Retry-After`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError, invalid } from '../lib/errors.ts';
import type { KeyStore } from '../keys/store.ts';
import type { RateLimits } from './rate-limit.ts';

/** Paths never counted against an address: probes and the metrics scraper. */
const UNCOUNTED = new Set(['/health', '/ready', '/metrics']);

/**
 * How many `Authorization` headers a request has (Node keeps only the first in
 * `headers`; `rawHeaders` has them all).
 */
export function authorizationHeaders(req: FastifyRequest): string[] {
  const raw = req.raw.rawHeaders;
  const found: string[] = [];
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === 'authorization') found.push(raw[i + 1]!);
  return found;
}

/** Adds the hook of the module comment to `app`. */
export function registerAuth(app: FastifyInstance, keys: KeyStore, limits: RateLimits): void {
  const refuse = async (req: FastifyRequest, reply: FastifyReply, err: ServiceError): Promise<never> => {
    // what fails authentication is counted against its address (429 once that budget is spent)
    await limits.chargeAddress(reply, req.ip);
    throw err;
  };
  app.addHook('onRequest', async (req, reply) => {
    if (!req.routeOptions.config?.auth) {
      if (!UNCOUNTED.has(req.routeOptions.url ?? '')) await limits.chargeAddress(reply, req.ip);
      return;
    }
    const headers = authorizationHeaders(req);
    if (headers.length > 1) return refuse(req, reply, invalid('send one Authorization header, not several'));
    const m = headers[0] ? /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(headers[0]) : null;
    if (!m) return refuse(req, reply, new ServiceError('UNAUTHORIZED', 'missing API key: send Authorization: Bearer <API_KEY>'));
    const identity = await keys.verify(m[1]!);
    if (!identity) return refuse(req, reply, new ServiceError('UNAUTHORIZED', 'unknown or revoked API key'));
    req.apiKey = identity;
    if (req.routeOptions.config.accountRead) await limits.chargeRead(reply, identity.id);
    else await limits.chargeKey(reply, identity.id, 1);
  });
}
