/**
 * Fields of outcome events (schemas/common/outcome.avsc, issue 16) that the gateway and
 * the workers fill alike: the language-ID answer's label and confidence bucket (never the
 * text), and the HTTP status and code of an item's result; and the message form of a list
 * of events (events of one request share a record, see the schema's `requests`).
 */
import type { Capability } from '../capabilities/index.ts';
import type { ItemResult, OutcomeEvent, OutcomeEvents, OutcomeRequest } from './contract.ts';

/** The confidence in tenths, 0 to 9 (1.0 falls in 9). */
export const confidenceBucket = (confidence: number): number => Math.max(0, Math.min(9, Math.floor(confidence * 10)));

/** The label and confidence bucket of a language-ID result; nulls for other capabilities and failures. */
export function languageFields(capability: Capability, result: ItemResult): { label: string | null; confidenceBucket: number | null } {
  const out = result.output as { label?: unknown; confidence?: unknown } | null;
  if (capability !== 'language-id' || !out || typeof out.label !== 'string' || typeof out.confidence !== 'number') return { label: null, confidenceBucket: null };
  return { label: out.label, confidenceBucket: confidenceBucket(out.confidence) };
}

/** The HTTP status and error code of an item's result (200 and null for a success). */
export const statusOf = (result: ItemResult): { status: number; code: string | null } =>
  (result.failure ? { status: result.failure.status, code: result.failure.code || null } : { status: 200, code: null });

/**
 * The message of a list of outcome events: runs of events with the same request id, key,
 * source, capability, model and timestamp (a request's items, as the gateway and the
 * workers write them) become one OutcomeRequest with their items. A batch of 64 then writes
 * those fields once: the events' Avro encoding and decoding were about a third of the
 * pipeline's cost of outcome events on the batch route.
 */
export function outcomeMessage(events: readonly OutcomeEvent[]): OutcomeEvents {
  const requests: OutcomeRequest[] = [];
  let last: OutcomeRequest | undefined;
  for (const e of events) {
    const model = e.model ?? null;
    if (!last || last.requestId !== e.requestId || last.keyId !== e.keyId || last.source !== e.source || last.capability !== e.capability
      || last.model !== model || last.timestampMs !== e.timestampMs) {
      last = { requestId: e.requestId, keyId: e.keyId, source: e.source, capability: e.capability, model, timestampMs: e.timestampMs, items: [] };
      requests.push(last);
    }
    last.items.push({
      itemIndex: e.itemIndex, status: e.status, code: e.code ?? null, items: e.items, billable: e.billable, queueMs: e.queueMs ?? null,
      inferenceMs: e.inferenceMs ?? null, totalMs: e.totalMs, label: e.label ?? null, confidenceBucket: e.confidenceBucket ?? null,
    });
  }
  return { events: [], requests };
}

/** The outcome events of a message, in either form (`events`, or `requests` with their items). */
export function outcomeEventsOf(message: OutcomeEvents): OutcomeEvent[] {
  const out: OutcomeEvent[] = message.events ? [...message.events] : [];
  for (const r of message.requests ?? []) {
    for (const i of r.items) {
      out.push({
        requestId: r.requestId, itemIndex: i.itemIndex, keyId: r.keyId, source: r.source, capability: r.capability, model: r.model ?? null,
        status: i.status, code: i.code ?? null, items: i.items, billable: i.billable, queueMs: i.queueMs ?? null, inferenceMs: i.inferenceMs ?? null,
        totalMs: i.totalMs, label: i.label ?? null, confidenceBucket: i.confidenceBucket ?? null, timestampMs: r.timestampMs,
      });
    }
  }
  return out;
}
