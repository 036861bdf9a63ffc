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

/** The id under which the gateway registers {@link ERROR_BODY} (app.addSchema): one `ErrorBody` component of the OpenAPI document. */
export const ERROR_BODY_ID = 'ErrorBody';
const err = (description: string) => ({ description, $ref: `${ERROR_BODY_ID}#` }) as const;
const E400 = err('INVALID_REQUEST: a field breaks its rule, or the body is not valid JSON');
const E401 = err('UNAUTHORIZED: no API key, or an unknown or revoked one');
const E403 = err('FORBIDDEN: the key may not read this');
const E408 = err('BODY_TIMEOUT: the body was not received within BODY_TIMEOUT_MS');
const E413 = err('PAYLOAD_TOO_LARGE or CONTEXT_TOO_LONG: the body or a field is over its limit');
const E415 = err('UNSUPPORTED_MEDIA_TYPE: the body is not application/json');
const E429 = err("RATE_LIMITED: the key's or address's budget is spent; Retry-After says when to retry");
const E500 = err('INTERNAL or INFERENCE_FAILED');
const E503 = err('MODEL_NOT_INSTALLED, NO_WORKER, QUEUE_FULL, OVERLOADED or SHUTTING_DOWN; Retry-After when a retry may succeed');
const E504 = err('DEADLINE_EXCEEDED: no answer within REQUEST_TIMEOUT_MS');

/** Error responses of an authenticated model route. */
export const ERRORS = { 400: E400, 401: E401, 408: E408, 413: E413, 415: E415, 429: E429, 500: E500, 503: E503, 504: E504 } as const;

/** Error responses of a public GET route counted against the caller's address (auth.ts): its rate limit, and a failure. */
export const PUBLIC_ERRORS = { 429: E429, 500: E500 } as const;

/** Error responses of a key's read of its own account (usage, analytics). */
export const ACCOUNT_ERRORS = { 400: E400, 401: E401, 403: E403, 429: E429, 500: E500, 503: E503 } as const;

/** OpenAPI security requirement of routes that need a key. */
export const SECURITY = [{ bearer: [] }];

/** OpenAPI security requirement of routes that need no key (an empty list: none). */
export const PUBLIC: never[] = [];

/**
 * A JSON-Schema object whose every listed property is required: the response schemas say
 * which fields an answer always has (what generated clients type as present).
 */
export function answerSchema<P extends Record<string, unknown>>(properties: P, optional: ReadonlyArray<keyof P & string> = []): { type: 'object'; properties: P; required: string[] } {
  return { type: 'object', properties, required: Object.keys(properties).filter((k) => !optional.includes(k)) };
}

/** The usage block of a billable answer: one integer per unit (spec: "Every billable response carries a usage object"). */
export function usageSchema(...units: string[]) {
  return answerSchema(Object.fromEntries(units.map((u) => [u, { type: 'integer', minimum: 0 }])));
}

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
