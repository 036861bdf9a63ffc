/**
 * What a worker writes for a micro-batch: each item's result to the reply topic its
 * request named, and usage events for the items nobody bills at delivery (bulk
 * producers; header `billing`), all in one produce call.
 */
import { resultSchemaOf, usageFieldsOf, usageQuantity, type Capability } from '../capabilities/index.ts';
import type { EventCodec, RequestSchema, ResultSchema } from '../events/codec.ts';
import type { ItemResult, SchemaValues, UsageEvent } from '../events/contract.ts';
import { failed } from '../events/results.ts';
import { H } from '../events/topics.ts';
import type { ErrorCode } from '../lib/errors.ts';
import type { ConsumedMessage, OutgoingMessage, Producer } from '../transport/types.ts';

/** An item a worker took from its request topic: the event and its decoded value. */
export interface Item { msg: ConsumedMessage; input: SchemaValues[RequestSchema]; }

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

  constructor(private readonly capability: Capability, private readonly codec: EventCodec, private readonly producer: Producer, private readonly usageTopic: string) {
    this.resultSchema = resultSchemaOf(capability);
  }

  /** The result event of an item, for the reply topic its request named. */
  async resultMessage(msg: ConsumedMessage, result: ItemResult): Promise<OutgoingMessage> {
    const h = msg.headers;
    return {
      partition: h[H.replyPartition] !== undefined ? Number(h[H.replyPartition]) : undefined,
      // keyless: on a reply topic without a named partition, a micro-batch's results
      // then stay together in one record batch (sticky partitioning)
      key: null,
      value: await this.codec.encode(this.resultSchema, result as SchemaValues[ResultSchema]),
      // the correlation id and capability; request-id and item-index only when the request
      // named them (bulk producers match results by them)
      headers: {
        [H.correlationId]: h[H.correlationId] ?? '', [H.capability]: this.capability,
        ...(h[H.requestId] !== undefined ? { [H.requestId]: h[H.requestId]! } : {}),
        ...(h[H.itemIndex] !== undefined ? { [H.itemIndex]: h[H.itemIndex]! } : {}),
      },
    };
  }

  /** A failure result for an event's reply topic; null when it names none. */
  async failureMessage(msg: ConsumedMessage, code: ErrorCode, error: string): Promise<TopicMessages> {
    const topic = msg.headers[H.replyTopic];
    return topic ? [{ topic, m: await this.resultMessage(msg, failed(code, error)) }] : [];
  }

  /**
   * Publishes results (to each item's reply topic) and usage in one call: one usage
   * message per API key of the micro-batch, holding a usage event per billable item.
   */
  async publish(items: Item[], results: ItemResult[]): Promise<void> {
    const entries: TopicMessages = [];
    const usage = new Map<string, UsageEvent[]>();
    const now = Date.now();
    for (const [i, item] of items.entries()) {
      const r = results[i]!;
      const h = item.msg.headers;
      if (h[H.replyTopic]) entries.push({ topic: h[H.replyTopic]!, m: await this.resultMessage(item.msg, r) });
      // the gateway bills what it delivers; bulk items are billed here, as they are published
      if (r.output && h[H.billing] !== 'at-delivery') {
        const { requestId, itemIndex } = requestOf(item.msg);
        const keyId = h[H.keyId] ?? 'anonymous';
        let events = usage.get(keyId);
        if (!events) usage.set(keyId, events = []);
        events.push({
          eventId: `${requestId}:${itemIndex}`, requestId, itemIndex, keyId,
          ...usageFieldsOf(this.capability), model: item.input.model,
          quantity: usageQuantity(this.capability, r.output as Record<string, unknown>), timestampMs: now,
        });
      }
    }
    for (const [keyId, events] of usage) {
      entries.push({ topic: this.usageTopic, m: { key: keyId, value: await this.codec.encode('common/usage', { events }) } });
    }
    if (entries.length > 0) await this.producer.sendBatch(groupByTopic(entries));
  }
}
