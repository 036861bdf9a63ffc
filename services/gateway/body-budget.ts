/**
 * How many bytes of request bodies a gateway reads and holds at once. A body's
 * reservation is its declared `Content-Length` (the route's body limit when it sends
 * none: chunked encoding), taken in `onRequest` before a byte of it is read and given
 * back when the response ends or the connection closes. Beyond the budget a request is
 * answered 503 with `Retry-After` at once, so memory stays bounded however many large
 * bodies arrive together (12 concurrent 225 MB extraction batches once took a process to
 * 4.3 GB: a body is held as text, then as parsed JSON, then as decoded images).
 */
import type { FastifyInstance } from 'fastify';
import { ServiceError } from '../lib/errors.ts';
import { shedRequests } from '../lib/metrics.ts';
import { endOf } from './request-end.ts';

/** See the module comment. */
export class BodyBudget {
  private used = 0;

  /** @param maxBytes bytes of bodies held at once (MAX_INFLIGHT_BODY_BYTES) */
  constructor(readonly maxBytes: number) {}

  /** Bytes reserved now. */
  get inFlight(): number { return this.used; }

  /**
   * Reserves `bytes`. A body is admitted when the budget has room, or when nothing else
   * is held (a body larger than the whole budget is refused by its route's limit first).
   * @returns the function that gives the bytes back (idempotent)
   * @throws ServiceError OVERLOADED (503, Retry-After 1 s) when the budget is full
   */
  reserve(bytes: number): () => void {
    if (this.used > 0 && this.used + bytes > this.maxBytes) {
      shedRequests.inc({ reason: 'body-bytes' });
      throw new ServiceError('OVERLOADED', `too many large request bodies in flight (${this.maxBytes} bytes at most); retry shortly`, { retryAfterS: 1 });
    }
    this.used += bytes;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.used -= bytes;
    };
  }
}

/**
 * Adds the `onRequest` hook that checks the declared length against the route's body
 * limit (413) and reserves it. Register it after authentication, so an anonymous client
 * cannot take the budget.
 */
export function registerBodyBudget(app: FastifyInstance, budget: BodyBudget): void {
  app.addHook('onRequest', async (req, reply) => {
    if (req.method === 'GET' || req.method === 'HEAD') return;
    const limit = req.routeOptions.bodyLimit ?? app.initialConfig.bodyLimit ?? 1024 * 1024;
    const declared = req.headers['content-length'] !== undefined ? Number(req.headers['content-length']) : undefined;
    if (declared !== undefined && declared > limit) {
      reply.header('connection', 'close');
      throw new ServiceError('PAYLOAD_TOO_LARGE', `request body is ${declared} bytes, over this route's limit of ${limit} bytes`);
    }
    endOf(req, reply).onClose(budget.reserve(declared ?? limit));
  });
}
