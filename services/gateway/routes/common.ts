/**
 * Shared pieces of route schemas (OpenAPI components) and responses.
 */

/** Error body of every non-2xx response. */
export const ERROR_BODY = {
  type: 'object',
  properties: { error: { type: 'string' }, status: { type: 'integer' } },
  required: ['error', 'status'],
} as const;

/** Error responses of an authenticated model route. */
export const ERRORS = {
  400: ERROR_BODY, 401: ERROR_BODY, 429: ERROR_BODY, 503: ERROR_BODY, 504: ERROR_BODY,
} as const;

/** OpenAPI security requirement of routes that need a key. */
export const SECURITY = [{ bearer: [] }];

/** Route options of authenticated routes: auth and the per-key rate limit. */
export const AUTHED = {
  config: { auth: true, rateLimit: {} },
} as const;
