/**
 * What a worker writes for a micro-batch: each item's result to the reply topic its
 * request named (with the item's queue and inference times in headers; the items of one
 * several-item request event together in one `<capability>/results` event), and, for the
 * items nobody bills at delivery (bulk producers; header `billing`), usage events and
 * outcome events (schemas/common/outcome.avsc), all in one produce call. An event that its
 * schema cannot encode never fails the others (issue 33 A: the produce failed, so the
 * consumed batch was delivered again, for ever): a usage event is set aside in the
 * capability's dead-letter topic (as JSON, header `error`), an outcome event is dropped;
 * each is counted (`lmstream_unencodable_events_total`) and logged once with its request
 * id. Results need no such step: the inference thread checks them against their schema
 * and answers one that does not match INFERENCE_FAILED alone (./result-wire.ts), and the
 * failures the worker makes itself match it.
 */
import { resultSchemaOf, resultsSchemaOf, usageFieldsOf, usageQuantity, type Capability } from '../capabilities/index.ts';
import type { EventCodec, RequestSchema, ResultSchema, ResultsSchema } from '../events/codec.ts';
import type { ItemResult, OutcomeEvent, SchemaValues, UsageEvent } from '../events/contract.ts';
import { languageFields, outcomeMessage, statusOf } from '../events/outcomes.ts';
import { failed } from '../events/results.ts';
import { H } from '../events/topics.ts';
import type { ErrorCode } from '../lib/errors.ts';
import type { ConsumedMessage, OutgoingMessage, Producer } from '../transport/types.ts';
import type { Logger } from 'pino';
import { encodeEvents } from '../events/encodable.ts';

/**
 * An item a worker took from its request topic: the event, its decoded value, its
 * position in the event when the event holds several items (`<capability>/requests`;
 * undefined for a one-item event), and when the worker took it (ms since the epoch).
 */
export interface Item { msg: ConsumedMessage; input: SchemaValues[RequestSchema]; index?: number; takenAt?: number; }

/**
 * Whether a request event's usage is published for the whole event once it is answered
 * ({@link ResultPublisher.publishEventUsage}) rather than with each item's result: a
 * several-item event (header `items`) that the worker bills (no `billing: at-delivery`).
 */
export function foldsUsage(msg: ConsumedMessage): boolean {
  return msg.headers[H.items] !== undefined && msg.headers[H.billing] !== 'at-delivery';
}

/** When an item's micro-batch started (ms since the epoch) and how long it ran (ms). */
export interface RunTiming { startedAt: number; inferenceMs: number; }

/** A result's times in the worker: ms queued there, ms its micro-batch ran, and that micro-batch's items. */
interface ResultTimes { queueMs: number; inferenceMs: number; batchItems: number; }

/** Messages for several topics. */
export type TopicMessages = Array<{ topic: string; m: OutgoingMessage }>;

/**
 * Request id and item index of a request event: its `request-id` and `item-index`
 * headers, else parsed from a correlation id `<request-id>:<item-index>` (what the
 * gateway sends), else the event's position `<topic>:<partition>:<offset>` and 0.
 * They make the usage event id `<request-id>:<item-index>` (docs/events.md).
 */
export function requestOf(msg: ConsumedMessage): { requestId: string; itemIndex: number } {
  const h = msg.headers;
  const cid = h[H.correlationId] ?? '';
  const colon = cid.lastIndexOf(':');
  const parsed = colon > 0 && /^\d+$/.test(cid.slice(colon + 1)) ? { requestId: cid.slice(0, colon), itemIndex: Number(cid.slice(colon + 1)) } : undefined;
  return {
    requestId: h[H.requestId] ?? parsed?.requestId ?? `${msg.topic}:${msg.partition}:${msg.offset}`,
    itemIndex: h[H.itemIndex] !== undefined ? Number(h[H.itemIndex]) : parsed?.itemIndex ?? 0,
  };
}

/**
 * Request id and item index of an item: those of its event ({@link requestOf}), the
 * index moved by the item's position in a several-item event (whose correlation id
 * names its first item).
 */
export function itemIdOf(item: Item): { requestId: string; itemIndex: number } {
  const r = requestOf(item.msg);
  return item.index === undefined ? r : { requestId: r.requestId, itemIndex: r.itemIndex + item.index };
}

/** Messages grouped by topic, for one `sendBatch`. */
export function groupByTopic(entries: TopicMessages): Array<{ topic: string; messages: OutgoingMessage[] }> {
  const by = new Map<string, OutgoingMessage[]>();
  for (const { topic, m } of entries) {
    const list = by.get(topic);
    if (list) list.push(m); else by.set(topic, [m]);
  }
  return [...by].map(([topic, messages]) => ({ topic, messages }));
}

/** See the module comment. */
export class ResultPublisher {
  private readonly resultSchema: ResultSchema;
  private readonly resultsSchema: ResultsSchema;

  /**
   * @param outcomesTopic where outcome events of bulk items go (none: not written)
   * @param setAside where usage events that do not encode go (the capability's dead-letter topic), and the log
   */
  constructor(
    private readonly capability: Capability, private readonly codec: EventCodec, private readonly producer: Producer, private readonly usageTopic: string,
    private readonly outcomesTopic?: string, private readonly setAside?: { deadLetterTopic: string; log: Logger },
  ) {
    this.resultSchema = resultSchemaOf(capability);
    this.resultsSchema = resultsSchemaOf(capability);
  }

  /** Notes an event its schema could not encode (counted by encodeEvents), logged here once. */
  private unencodable(what: string, requestId: string | undefined, err: unknown): void {
    this.setAside?.log.error({ err, requestId, capability: this.capability }, `${what} that its schema cannot encode was left out`);
  }

  /** The dead-letter copy of a usage event that does not encode: its JSON, and why. */
  private usageDeadLetter(event: UsageEvent, err: unknown): TopicMessages {
    this.unencodable('a usage event', event.requestId, err);
    if (!this.setAside) return [];
    return [{
      topic: this.setAside.deadLetterTopic,
      m: { key: event.keyId, value: Buffer.from(JSON.stringify(event)), headers: { [H.error]: `usage event does not encode: ${(err as Error).message}`.slice(0, 2000), [H.source]: this.usageTopic, [H.capability]: this.capability } },
    }];
  }

  /** The result event of an item, for the reply topic its request named. */
  async resultMessage(msg: ConsumedMessage, result: ItemResult, timing?: ResultTimes): Promise<OutgoingMessage> {
    return this.reply(msg, await this.codec.encode(this.resultSchema, result as SchemaValues[ResultSchema]), timing);
  }

  /**
   * The result event of some items of a several-item request event (`<capability>/results`,
   * header `items` as the request's), for the reply topic it named.
   * @param entries each item's position in the request event and its result
   */
  async resultsMessage(msg: ConsumedMessage, entries: Array<{ index: number; result: ItemResult }>, timing?: ResultTimes): Promise<OutgoingMessage> {
    const value = await this.codec.encode(this.resultsSchema, { items: entries } as SchemaValues[ResultsSchema]);
    const m = this.reply(msg, value, timing);
    m.headers![H.items] = msg.headers[H.items] ?? String(entries.length);
    return m;
  }

  private reply(msg: ConsumedMessage, value: Buffer, timing?: ResultTimes): OutgoingMessage {
    const h = msg.headers;
    return {
      partition: h[H.replyPartition] !== undefined ? Number(h[H.replyPartition]) : undefined,
      // keyless: on a reply topic without a named partition, a micro-batch's results
      // then stay together in one record batch (sticky partitioning)
      key: null,
      value,
      // the correlation id and capability; request-id and item-index only when the request
      // named them (bulk producers match results by them)
      headers: {
        [H.correlationId]: h[H.correlationId] ?? '', [H.capability]: this.capability,
        ...(h[H.requestId] !== undefined ? { [H.requestId]: h[H.requestId]! } : {}),
        ...(h[H.itemIndex] !== undefined ? { [H.itemIndex]: h[H.itemIndex]! } : {}),
        ...(timing ? { [H.queueMs]: String(timing.queueMs), [H.inferenceMs]: String(timing.inferenceMs), [H.batchItems]: String(timing.batchItems) } : {}),
      },
    };
  }

  /**
   * A failure result for every item of an event (one that does not decode), for its
   * reply topic; none when it names no reply topic.
   * @param items items the event claims to hold (its `items` header, capped by the caller); undefined for a one-item event
   */
  async failureMessage(msg: ConsumedMessage, code: ErrorCode, error: string, items?: number): Promise<TopicMessages> {
    const topic = msg.headers[H.replyTopic];
    if (!topic) return [];
    const r = failed(code, error);
    return [{ topic, m: items === undefined ? await this.resultMessage(msg, r) : await this.resultsMessage(msg, Array.from({ length: items }, (_, index) => ({ index, result: r }))) }];
  }

  /**
   * Publishes results (to each item's reply topic), usage and outcomes in one call: one
   * usage and one outcome message per API key of the micro-batch, holding an event per
   * billable (usage) or bulk (outcome) item.
   * @param timing when the micro-batch started and how long it ran (absent: results carry no times)
   */
  async publish(items: Item[], results: ItemResult[], timing?: RunTiming): Promise<void> {
    const entries: TopicMessages = [];
    const usage = new Map<string, UsageEvent[]>();
    const outcomes = new Map<string, OutcomeEvent[]>();
    // the results of a several-item request event's items, together (its items were taken at once: one queue time)
    const grouped = new Map<ConsumedMessage, { entries: Array<{ index: number; result: ItemResult }>; times?: ResultTimes }>();
    const now = Date.now();
    for (const [i, item] of items.entries()) {
      const r = results[i]!;
      const h = item.msg.headers;
      const times = timing ? { queueMs: Math.max(0, timing.startedAt - (item.takenAt ?? timing.startedAt)), inferenceMs: timing.inferenceMs, batchItems: items.length } : undefined;
      if (h[H.replyTopic]) {
        if (item.index === undefined) entries.push({ topic: h[H.replyTopic]!, m: await this.resultMessage(item.msg, r, times) });
        else {
          const g = grouped.get(item.msg);
          if (g) g.entries.push({ index: item.index, result: r });
          else grouped.set(item.msg, { entries: [{ index: item.index, result: r }], times });
        }
      }
      // the gateway bills and reports what it delivers; bulk items are billed and reported here, as they are published
      if (h[H.billing] === 'at-delivery') continue;
      const { requestId, itemIndex } = itemIdOf(item);
      const keyId = h[H.keyId] ?? 'anonymous';
      const quantity = r.output ? usageQuantity(this.capability, r.output as Record<string, unknown>) : 0;
      if (r.output && !foldsUsage(item.msg)) {
        let events = usage.get(keyId);
        if (!events) usage.set(keyId, events = []);
        events.push({
          eventId: `${requestId}:${itemIndex}`, requestId, itemIndex, keyId,
          ...usageFieldsOf(this.capability), model: item.input.model, quantity, timestampMs: now,
        });
      }
      if (this.outcomesTopic) {
        let events = outcomes.get(keyId);
        if (!events) outcomes.set(keyId, events = []);
        events.push({
          requestId, itemIndex, keyId, source: 'bulk', capability: this.capability, model: item.input.model,
          ...statusOf(r), items: 1, billable: quantity, queueMs: times?.queueMs ?? null, inferenceMs: times?.inferenceMs ?? null,
          totalMs: Math.max(0, now - item.msg.timestamp), ...languageFields(this.capability, r), timestampMs: now,
        });
      }
    }
    for (const [msg, g] of grouped) entries.push({ topic: msg.headers[H.replyTopic]!, m: await this.resultsMessage(msg, g.entries, g.times) });
    for (const [keyId, events] of usage) {
      const set: TopicMessages = [];
      const encoded = await encodeEvents(this.codec, 'common/usage', events, (l) => ({ events: l }), (e, err) => set.push(...this.usageDeadLetter(e, err)));
      if (encoded) entries.push({ topic: this.usageTopic, m: { key: keyId, value: encoded.value } });
      entries.push(...set);
    }
    for (const events of outcomes.values()) {
      const encoded = await encodeEvents(this.codec, 'common/outcome', events, outcomeMessage, (e, err) => this.unencodable('an outcome event', e.requestId, err));
      if (encoded) entries.push({ topic: this.outcomesTopic!, m: { key: null, value: encoded.value } });
    }
    if (entries.length > 0) await this.producer.sendBatch(groupByTopic(entries));
  }

  /**
   * Publishes the usage of a bulk producer's several-item request event once all its
   * items' results are published: one usage event per model of the event, its quantity
   * the sum over the items with an output, its id `<request-id>:<item-index>` of the
   * event's first item of that model. The id depends only on the event, so a redelivered
   * event (however its items fall into micro-batches) is billed once; a producer that
   * sends a line again must send it in the same event (connectors/lid-source.ts keeps its
   * grouping across restarts). Nothing is published when no item has an output.
   * @param inputs the event's items, in order
   * @param results each item's result, in the same order
   * @throws TransportError when the produce fails (the caller's batch is then delivered again)
   */
  async publishEventUsage(msg: ConsumedMessage, inputs: Array<{ model: string }>, results: ItemResult[]): Promise<void> {
    const events = foldEventUsage(this.capability, msg, inputs, results, Date.now());
    if (events.length === 0) return;
    const entries: TopicMessages = [];
    const encoded = await encodeEvents(this.codec, 'common/usage', events, (l) => ({ events: l }), (e, err) => entries.push(...this.usageDeadLetter(e, err)));
    if (encoded) entries.push({ topic: this.usageTopic, m: { key: events[0]!.keyId, value: encoded.value } });
    if (entries.length > 0) await this.producer.sendBatch(groupByTopic(entries));
  }
}

/**
 * The folded usage events of a several-item request event (see
 * {@link ResultPublisher.publishEventUsage}).
 * @param inputs the event's items, in order
 * @param results each item's result, in the same order
 * @param timestampMs the events' time (ms since the epoch)
 */
export function foldEventUsage(capability: Capability, msg: ConsumedMessage, inputs: Array<{ model: string }>, results: ItemResult[], timestampMs: number): UsageEvent[] {
  const { requestId, itemIndex } = requestOf(msg);
  const keyId = msg.headers[H.keyId] ?? 'anonymous';
  const byModel = new Map<string, { event: UsageEvent; billed: boolean }>();
  inputs.forEach(({ model }, i) => {
    let g = byModel.get(model);
    if (!g) {
      g = { event: { eventId: `${requestId}:${itemIndex + i}`, requestId, itemIndex: itemIndex + i, keyId, ...usageFieldsOf(capability), model, quantity: 0, timestampMs }, billed: false };
      byModel.set(model, g);
    }
    const output = results[i]?.output;
    if (output) { g.billed = true; g.event.quantity += usageQuantity(capability, output as Record<string, unknown>); }
  });
  return [...byModel.values()].filter((g) => g.billed).map((g) => g.event);
}
