/**
 * Errors of the service: each has a stable code from a closed list, an HTTP status
 * and an optional cause. The JSON body of every error response is
 * `{"error": "<message>", "status": <HTTP status>, "code": "<code>"}` (the fields of a
 * batch failure entry, plus the code). Codes travel with failures across the event log
 * (schemas/common/failure.avsc), so a 503 says MODEL_NOT_INSTALLED or QUEUE_FULL as it
 * was raised.
 */

/** Closed list of error codes and their HTTP statuses. */
export const ERROR_STATUS = {
  INVALID_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  BODY_TIMEOUT: 408,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  HEADERS_TOO_LARGE: 431,
  CANCELLED: 499,
  CONTEXT_TOO_LONG: 413,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  INFERENCE_FAILED: 500,
  MODEL_NOT_INSTALLED: 503,
  NO_WORKER: 503,
  QUEUE_FULL: 503,
  OVERLOADED: 503,
  SHUTTING_DOWN: 503,
  DEADLINE_EXCEEDED: 504,
} as const;

/** One of the codes of {@link ERROR_STATUS}. */
export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * An error with a code, an HTTP status and an optional cause. `retryAfterS` (seconds),
 * when set, becomes the response's `Retry-After` header (429 and 503 refusals).
 */
export class ServiceError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly retryAfterS?: number;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown; retryAfterS?: number }) {
    super(message, options);
    this.name = 'ServiceError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    if (options?.retryAfterS !== undefined) this.retryAfterS = Math.max(1, Math.ceil(options.retryAfterS));
  }
  /** The JSON body of an error response. */
  toJSON(): ErrorBody {
    return { error: this.message, status: this.status, code: this.code };
  }
}

/** The JSON body of every error response. */
export interface ErrorBody { error: string; status: number; code: ErrorCode; }

/** The JSON body of an error with `code` and `message`. */
export const errorBody = (code: ErrorCode, message: string): ErrorBody => ({ error: message, status: ERROR_STATUS[code], code });

/** Whether a string is one of the codes of {@link ERROR_STATUS}. */
export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.prototype.hasOwnProperty.call(ERROR_STATUS, code);
}

/**
 * The code of a failure that crossed the event log: its own when it names one (and its
 * status matches), else the first code of its status (from producers older than the field).
 */
export function codeOf(failure: { status: number; code?: string }): ErrorCode {
  return isErrorCode(failure.code) && ERROR_STATUS[failure.code] === failure.status ? failure.code : codeForStatus(failure.status);
}

/** 400: the request breaks a rule; `message` names the field and the rule. */
export const invalid = (message: string): ServiceError => new ServiceError('INVALID_REQUEST', message);

/** 503: the model is not in the model repository of any live worker. */
export const modelNotInstalled = (model: string): ServiceError =>
  new ServiceError('MODEL_NOT_INSTALLED', `model ${model} is not installed`);

/** Maps a status to the code used when only the status is known (e.g. from a worker). */
export function codeForStatus(status: number): ErrorCode {
  const found = (Object.entries(ERROR_STATUS) as Array<[ErrorCode, number]>).find(([, s]) => s === status);
  return found ? found[0] : 'INTERNAL';
}
