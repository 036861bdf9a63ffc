/**
 * The life of an admitted model request after admission (a `preHandler` hook that runs
 * after services/gateway/admission.ts): its dispatch context (server-made request id,
 * key, deadline counted from arrival, and its RequestEnd, which tells the dispatcher when
 * the client goes away so that it stops waiting and cancels the items), and billing at
 * delivery (an `onResponse` hook): when the response has been written out in full with
 * status 200, the items the request answered successfully go to the usage recorder.
 * Nothing else is billed: not a 504, not an answer the client left before, not a
 * refused request.
 */
import type { FastifyInstance } from 'fastify';
import { usageFieldsOf } from '../capabilities/index.ts';
import { endOf } from './request-end.ts';
import type { UsageRecorder } from './usage-recorder.ts';

/** Adds the hook of the module comment to `app`. */
export function registerDelivery(app: FastifyInstance, o: { requestTimeoutMs: number; recorder: UsageRecorder }): void {
  app.addHook('preHandler', async (req, reply) => {
    if (!req.routeOptions.config?.admission) return;
    req.dispatchContext = {
      requestId: req.id, keyId: req.apiKey!.id, log: req.log, end: endOf(req, reply), usage: [], nextItem: 0,
      deadline: Math.round(Date.now() - reply.elapsedTime) + o.requestTimeoutMs,
    };
  });
  // onResponse runs on the response's finish (and on a write error, when `finished` is false)
  app.addHook('onResponse', async (req, reply) => {
    const ctx = req.dispatchContext;
    if (!ctx || ctx.usage.length === 0 || reply.statusCode !== 200 || !ctx.end?.finished) return;
    const now = Date.now();
    o.recorder.record(ctx.usage.map((u) => ({
      eventId: `${ctx.requestId}:${u.itemIndex}`, requestId: ctx.requestId, itemIndex: u.itemIndex, keyId: ctx.keyId,
      ...usageFieldsOf(u.capability), model: u.model, quantity: u.quantity, timestampMs: now,
    })));
  });
}
