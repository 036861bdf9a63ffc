/**
 * Writes a request's items to the capability's request topic, with the routing headers,
 * and waits for their results through the correlator: a one-item request as one event
 * (`<capability>/request`), the items of a batch together, up to
 * {@link ITEMS_PER_EVENT} per event (`<capability>/requests`, header `items`), so that
 * a batch costs one encoding, one record and one correlation entry per event rather
 * than per item (issue 17); workers still run, fail and bill each item on its own. When the
 * client goes away first it stops waiting and tells the workers (a cancel event on
 * `<prefix>.cancellations`), so they skip the items not yet run. The items that
 * succeed are noted in the request's context, to be billed when its answer is delivered
 * (services/gateway/delivery.ts).
 */
import type { FastifyBaseLogger } from 'fastify';
import { requestSchemaOf, requestsSchemaOf, usageQuantity, type Capability } from '../capabilities/index.ts';
import type { EventCodec, RequestSchema } from '../events/codec.ts';
import { H, type Topics } from '../events/topics.ts';
import { ServiceError, codeOf, modelNotInstalled } from '../lib/errors.ts';
import type { Producer } from '../transport/types.ts';
import type { ItemResult, SchemaValues } from '../events/contract.ts';
import { failed } from '../events/results.ts';
import { unencodableEvents } from '../lib/metrics.ts';
import type { Correlator, ItemTiming } from './correlator.ts';
import { languageFields, statusOf } from '../events/outcomes.ts';
import type { RequestEnd } from './request-end.ts';
import type { LiveWorkers } from './live-workers.ts';

/**
 * Items of a batch in one request event at most: a micro-batch's worth (the language-ID
 * models' max_batch_size), so that a batch of 256 spreads over partitions and workers.
 */
export const ITEMS_PER_EVENT = 64;

/** A successful item of a request: what billing at delivery writes for it. */
export interface BillableItem {
  /** position of the item among the request's dispatched items (its correlation id is `<request-id>:<itemIndex>`) */
  itemIndex: number;
  capability: Capability;
  model: string;
  /** in the capability's billing unit (the capability module's usageQuantity) */
  quantity: number;
}

/** What became of an item: for outcome events (services/gateway/delivery.ts). */
export interface ItemOutcome {
  itemIndex: number;
  capability: Capability;
  model: string;
  /** the item's own status: 200, or its failure's */
  status: number;
  code: string | null;
  /** in the billing unit, for a success */
  quantity: number;
  queueMs: number | null;
  inferenceMs: number | null;
  label: string | null;
  confidenceBucket: number | null;
}

/** Who asked, until when, and what was answered. */
export interface DispatchContext {
  /** made by the gateway (a random UUID), never the client's: it keys correlation ids and usage event ids */
  requestId: string;
  keyId: string;
  /** ms since the epoch */
  deadline: number;
  log: FastifyBaseLogger;
  /** tells when the client goes away before its answer */
  end?: RequestEnd;
  /** items answered successfully so far */
  usage: BillableItem[];
  /** what became of every dispatched item so far; absent when outcome events are off (OUTCOME_EVENTS), so nothing is gathered */
  outcomes?: ItemOutcome[];
  /** index of the request's next item (a request may dispatch more than once) */
  nextItem: number;
}

/** See the module comment. */
export class Dispatcher {
  constructor(
    private readonly producer: Producer,
    private readonly codec: EventCodec,
    private readonly correlator: Correlator,
    private readonly liveWorkers: LiveWorkers,
    private readonly topics: Topics,
  ) {}

  /**
   * Checks that a live worker serves the model.
   * @throws ServiceError NO_WORKER or MODEL_NOT_INSTALLED (503)
   */
  assertServed(capability: Capability, model: string): void {
    if (!this.liveWorkers.hasWorker(capability)) throw new ServiceError('NO_WORKER', `no worker serves ${capability}; model ${model} is unavailable`);
    if (!this.liveWorkers.canServe(capability, model)) throw modelNotInstalled(model);
  }

  /**
   * Sends the items and waits for their results.
   * @param inputs request records (schema `<capability>/request`), one per item
   * @returns one result per item, in order; an item with no result by the deadline
   *   gets a 504 failure
   * @throws ServiceError 503 when no worker serves the model; Error when the log refuses the write
   */
  async dispatch<O>(capability: Capability, model: string, inputs: Array<SchemaValues[RequestSchema]>, ctx: DispatchContext): Promise<Array<ItemResult<O>>> {
    this.assertServed(capability, model);
    if (ctx.end?.cancelled) throw cancelled();
    const base = ctx.nextItem;
    ctx.nextItem += inputs.length;
    // the request events: [first item, item count, correlation id, value]
    const events: Array<{ first: number; count: number; correlationId: string; value: Buffer }> = [];
    for (let first = 0; first < inputs.length; first += ITEMS_PER_EVENT) {
      const items = inputs.slice(first, first + ITEMS_PER_EVENT);
      const value = await this.encodeRequest(capability, items, ctx);
      events.push({ first, count: items.length, correlationId: `${ctx.requestId}:${base + first}`, value });
    }
    // the worker's times per item, for the outcome events
    const timings = ctx.outcomes ? events.map((e) => new Array<ItemTiming | undefined>(e.count)) : undefined;
    // the queue wait of the first event only: it runs first, and the later events of a
    // batch also wait behind their siblings, which is not overload
    const waits = events.map((e, k) => this.correlator.expectItems(e.correlationId, e.count, ctx.deadline, timings?.[k], k === 0));
    const messages = events.map((e) => ({
      // keyless: request events need no order, and the Kafka producer then puts a whole
      // linger window into one partition (sticky partitioning, KIP-480)
      key: null,
      value: e.value,
      // only what is not in the value, the topic or the correlation id: each header is
      // encoded and decoded per record (docs/events.md); request-id and item-index are
      // parsed from the correlation id, model is in the value, capability is the topic's
      headers: {
        [H.correlationId]: e.correlationId, [H.replyTopic]: this.correlator.replyTopic, [H.replyPartition]: String(this.correlator.replyPartition),
        [H.keyId]: ctx.keyId, [H.deadline]: String(ctx.deadline), [H.billing]: 'at-delivery',
        ...(e.count > 1 ? { [H.items]: String(e.count) } : {}),
      },
    }));
    const t0 = performance.now();
    try {
      await this.producer.send(this.topics.requests(capability), messages);
    } catch (err) {
      for (const e of events) this.correlator.cancel(e.correlationId, err as Error);
      throw err;
    }
    const written = performance.now();
    ctx.log.debug({ capability, model, items: inputs.length, events: events.length, ms: Math.round(written - t0) }, 'request events written');
    // an unnamed callback: tsx (esbuild keepNames) would name a `const` closure per request
    const off = ctx.end?.onCancel(() => {
      for (const e of events) this.correlator.cancel(e.correlationId, cancelled());
      this.publishCancel(ctx);
    });
    let settled: Array<PromiseSettledResult<ItemResult[]>>;
    try { settled = await Promise.allSettled(waits); } finally { off?.(); }
    ctx.log.debug({ ms: Math.round(performance.now() - written) }, 'results received');
    if (ctx.end?.cancelled) {
      inputs.forEach((_, i) => ctx.outcomes?.push({ itemIndex: base + i, capability, model, status: 499, code: 'CANCELLED', quantity: 0, queueMs: null, inferenceMs: null, label: null, confidenceBucket: null }));
      throw cancelled();
    }
    // a gateway shutting down fails the whole request, with its Retry-After
    const shutdown = settled.find((s) => s.status === 'rejected' && s.reason instanceof ServiceError && s.reason.code === 'SHUTTING_DOWN');
    if (shutdown) throw (shutdown as PromiseRejectedResult).reason;
    const out: Array<ItemResult<O>> = new Array(inputs.length);
    settled.forEach((s, k) => {
      const e = events[k]!;
      for (let j = 0; j < e.count; j++) {
        const i = e.first + j;
        let r: ItemResult<O>;
        let timing: ItemTiming | undefined;
        if (s.status === 'rejected') {
          const err = s.reason instanceof ServiceError ? s.reason : new ServiceError('INTERNAL', (s.reason as Error).message);
          r = failed(err.code, err.message) as ItemResult<O>;
        } else {
          r = s.value[j] as ItemResult<O>;
          timing = timings?.[k]![j];
        }
        out[i] = r;
        const quantity = r.output ? usageQuantity(capability, r.output as Record<string, unknown>) : 0;
        if (r.output) ctx.usage.push({ itemIndex: base + i, capability, model, quantity });
        if (!ctx.outcomes) continue;
        ctx.outcomes.push({
          itemIndex: base + i, capability, model, ...statusOf(r), quantity,
          queueMs: timing?.queueMs ?? null, inferenceMs: timing?.inferenceMs ?? null, ...languageFields(capability, r),
        });
      }
    });
    return out;
  }

  /**
   * The value of a request event: `<capability>/request` for one item, `/requests` for several.
   * @throws ServiceError INTERNAL (500) when the schema cannot encode it (validated input
   *   that the schema does not admit: a bug), counted and logged with the request id; only
   *   this request fails
   */
  private async encodeRequest(capability: Capability, items: Array<SchemaValues[RequestSchema]>, ctx: DispatchContext): Promise<Buffer> {
    const schema = items.length === 1 ? requestSchemaOf(capability) : requestsSchemaOf(capability);
    try {
      return items.length === 1
        ? await this.codec.encode(requestSchemaOf(capability), items[0]!)
        : await this.codec.encode(requestsSchemaOf(capability), { items } as SchemaValues[ReturnType<typeof requestsSchemaOf>]);
    } catch (err) {
      unencodableEvents.inc({ schema });
      ctx.log.error({ err, requestId: ctx.requestId }, 'a request event that its schema cannot encode was not written');
      throw new ServiceError('INTERNAL', 'the request could not be written as an event', { cause: err });
    }
  }

  /** Tells the workers that nobody waits for the request's items any more (best effort). */
  private publishCancel(ctx: DispatchContext): void {
    void this.codec.encode('control/cancel', { requestId: ctx.requestId, untilMs: ctx.deadline })
      .then((value) => this.producer.send(this.topics.cancellations, [{ key: null, value }]))
      .catch((err: unknown) => { ctx.log.warn({ err }, 'cancel event not written; workers run the items anyway'); });
  }
}

/** The error of a request whose client went away (never sent: nobody reads it). */
const cancelled = () => new ServiceError('CANCELLED', 'the client closed the connection before the answer');
