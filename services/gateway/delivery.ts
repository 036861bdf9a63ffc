/**
 * The life of an admitted model request after admission (a `preHandler` hook that runs
 * after services/gateway/admission.ts): its dispatch context (server-made request id,
 * key, deadline counted from arrival), an abort signal that fires when the client goes
 * away before its answer (the dispatcher then stops waiting and cancels the items), and
 * billing at delivery: when the response has been written out in full with status 200,
 * the items the request answered successfully go to the usage recorder. Nothing else is
 * billed: not a 504, not an answer the client left before, not a refused request.
 */
import type { FastifyInstance } from 'fastify';
import { AVRO_CAPABILITY, BILLING_UNIT } from '../capabilities.ts';
import type { Config } from '../config.ts';
import type { DispatchContext } from './dispatcher.ts';
import type { UsageRecorder } from './usage-recorder.ts';

/** Adds the hook of the module comment to `app`. */
export function registerDelivery(app: FastifyInstance, o: { config: Config; recorder: UsageRecorder }): void {
  app.addHook('preHandler', async (req, reply) => {
    if (!req.routeOptions.config?.admission) return;
    const controller = new AbortController();
    const ctx: DispatchContext = {
      requestId: req.id, keyId: req.apiKey!.id, log: req.log, signal: controller.signal, usage: [], nextItem: 0,
      deadline: Math.round(Date.now() - reply.elapsedTime) + o.config.REQUEST_TIMEOUT_MS,
    };
    req.dispatchContext = ctx;
    let finished = false;
    reply.raw.once('finish', () => {
      finished = true;
      if (reply.statusCode !== 200 || ctx.usage.length === 0) return;
      const now = Date.now();
      o.recorder.record(ctx.usage.map((u) => ({
        eventId: `${ctx.requestId}:${u.itemIndex}`, requestId: ctx.requestId, itemIndex: u.itemIndex, keyId: ctx.keyId,
        capability: AVRO_CAPABILITY[u.capability], model: u.model, unit: BILLING_UNIT[u.capability], quantity: u.quantity, timestampMs: now,
      })));
    });
    reply.raw.once('close', () => { if (!finished) controller.abort(); });
  });
}
