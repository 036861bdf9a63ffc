/**
 * Shared pieces of route schemas (OpenAPI components) and route options, for the
 * capability modules' routes and the gateway's own.
 */
import { ERROR_STATUS } from '../lib/errors.ts';

/** Error body of every non-2xx response (services/lib/errors.ts). */
export const ERROR_BODY = {
  type: 'object',
  properties: {
    error: { type: 'string', description: 'what went wrong, naming the field and the rule' },
    status: { type: 'integer', description: 'the HTTP status' },
    code: { type: 'string', enum: Object.keys(ERROR_STATUS), description: 'stable error code; the same code always has the same status' },
  },
  required: ['error', 'status', 'code'],
} as const;

/** Error responses of an authenticated model route. */
export const ERRORS = {
  400: ERROR_BODY, 401: ERROR_BODY, 408: ERROR_BODY, 413: ERROR_BODY, 415: ERROR_BODY, 429: ERROR_BODY, 503: ERROR_BODY, 504: ERROR_BODY,
} as const;

/** OpenAPI security requirement of routes that need a key. */
export const SECURITY = [{ bearer: [] }];

/** Route options of authenticated routes that do no model work but start some (warm-up): a key, and 1 unit of its budget. */
export const AUTHED = {
  config: { auth: true },
} as const;

/**
 * Route options of a key reading its own account (usage, analytics): a key, but none of its
 * billable budget (a key that has spent it can still read what it spent); such reads are
 * counted in a read budget per key instead (RATE_LIMIT_READ_MAX).
 */
export const ACCOUNT_READ = {
  config: { auth: true, accountRead: true },
} as const;
