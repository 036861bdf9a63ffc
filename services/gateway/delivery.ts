/**
 * The life of an admitted model request after admission (a `preHandler` hook that runs
 * after services/gateway/admission.ts): its dispatch context (server-made request id,
 * key, deadline counted from arrival, and its RequestEnd, which tells the dispatcher when
 * the client goes away so that it stops waiting and cancels the items), and, when the
 * response closes (an `onResponse` hook):
 * - billing at delivery: when the response has been written out in full with status 200,
 *   the items the request answered successfully go to the usage recorder, folded into one
 *   usage event per capability and model of the request (foldUsage). Nothing else is
 *   billed: not a 504, not an answer the client left before, not a refused request;
 * - outcome events (issue 16) of every model route's answer: one per dispatched item with
 *   its own status, the worker's queue and inference times and the total time; one with
 *   `items` 0 for a request refused before dispatch; status 499 for a client that went away.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isCapability, modelsOf, usageFieldsOf } from '../capabilities/index.ts';
import type { CapabilityAdmission } from '../route-kit/types.ts';
import type { OutcomeEvent, UsageEvent } from '../events/contract.ts';
import type { BillableItem } from './dispatcher.ts';
import { endOf } from './request-end.ts';
import type { OutcomeRecorder } from './outcome-recorder.ts';
import type { UsageRecorder } from './usage-recorder.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** the error code of an error response (set by the app's error handler), for outcome events */
    errorCode?: string;
  }
}

/** Adds the hooks of the module comment to `app`. */
export function registerDelivery(app: FastifyInstance, o: { requestTimeoutMs: number; recorder: UsageRecorder; outcomes?: OutcomeRecorder }): void {
  app.addHook('preHandler', async (req, reply) => {
    if (!req.routeOptions.config?.admission) return;
    req.dispatchContext = {
      requestId: req.id, keyId: req.apiKey!.id, log: req.log, end: endOf(req, reply), usage: [], outcomes: o.outcomes ? [] : undefined, nextItem: 0,
      deadline: Math.round(Date.now() - reply.elapsedTime) + o.requestTimeoutMs,
    };
  });
  // onResponse runs on the response's finish (and on a write error, when `finished` is false)
  app.addHook('onResponse', async (req, reply) => {
    const ctx = req.dispatchContext;
    if (o.outcomes && req.routeOptions.config?.admission) o.outcomes.record(outcomesOf(req, reply));
    if (!ctx || ctx.usage.length === 0 || reply.statusCode !== 200 || !ctx.end?.finished) return;
    o.recorder.record(foldUsage(ctx.requestId, ctx.keyId, ctx.usage, Date.now()));
  });
}

/**
 * The usage events of a delivered request: its billable items folded into one event per
 * capability and model, with the sum of their quantities (a batch of 64 texts is one
 * ledger row of 64 texts, not 64 rows). The event id is `<request-id>:<index of the
 * group's first item>`: made by the server, the same on a replay, so the ledger stores
 * it once. The ledger's report counts requests and rounds characters per request, so
 * its figures are those of the unfolded events.
 */
export function foldUsage(requestId: string, keyId: string, usage: BillableItem[], timestampMs: number): UsageEvent[] {
  const groups = new Map<string, UsageEvent>();
  for (const u of usage) {
    const k = `${u.capability}\u0000${u.model}`;
    const g = groups.get(k);
    if (g) { g.quantity += u.quantity; continue; }
    groups.set(k, {
      eventId: `${requestId}:${u.itemIndex}`, requestId, itemIndex: u.itemIndex, keyId,
      ...usageFieldsOf(u.capability), model: u.model, quantity: u.quantity, timestampMs,
    });
  }
  return [...groups.values()];
}

/**
 * The model of a request refused before admission (by its schema, a rule, auth or load),
 * taken from its raw body only when it is one of the capability's model names, else null:
 * an event holds validated values only (issue 33, A: a number in `model` made an outcome
 * event no schema could encode, and the write of every event was retried forever).
 */
function knownModel(body: unknown, admission: CapabilityAdmission): string | null {
  if (typeof body !== 'object' || body === null || !isCapability(admission.capability)) return null;
  let model: unknown;
  try { model = admission.model(body); } catch { return null; }
  return typeof model === 'string' && modelsOf(admission.capability).includes(model) ? model : null;
}

/** The outcome events of a model route's answer (see the module comment). */
function outcomesOf(req: FastifyRequest, reply: FastifyReply): OutcomeEvent[] {
  const ctx = req.dispatchContext;
  const admission = req.routeOptions.config!.admission!;
  const now = Date.now();
  const totalMs = Math.round(reply.elapsedTime);
  const keyId = req.apiKey?.id ?? 'anonymous';
  const requestId = ctx?.requestId ?? req.id;
  const gone = ctx?.end ? ctx.end.cancelled : false;
  const delivered = reply.statusCode === 200 && !gone;
  const answerStatus = gone ? 499 : reply.statusCode;
  const answerCode = gone ? 'CANCELLED' : reply.statusCode === 200 ? null : req.errorCode ?? null;
  if (!ctx?.outcomes || ctx.outcomes.length === 0) {
    const model = req.admittedModel ?? knownModel(req.body, admission);
    return [{
      requestId, itemIndex: 0, keyId, source: 'gateway', capability: admission.capability, model,
      status: answerStatus, code: answerCode, items: 0, billable: 0, queueMs: null, inferenceMs: null, totalMs, label: null, confidenceBucket: null, timestampMs: now,
    }];
  }
  return ctx.outcomes.map((oc) => {
    // an item that failed keeps its own status; a success is what the answer was
    const ok = oc.status === 200;
    return {
      requestId, itemIndex: oc.itemIndex, keyId, source: 'gateway' as const, capability: oc.capability, model: oc.model,
      status: ok ? (delivered ? 200 : answerStatus) : oc.status, code: ok ? (delivered ? null : answerCode) : oc.code,
      items: 1, billable: ok && delivered ? oc.quantity : 0, queueMs: oc.queueMs, inferenceMs: oc.inferenceMs, totalMs,
      label: oc.label, confidenceBucket: oc.confidenceBucket, timestampMs: now,
    };
  });
}
