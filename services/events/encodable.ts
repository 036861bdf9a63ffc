/**
 * Encoding a message of a list of events so that one event its schema cannot encode does
 * not hold back the others (issue 33 A): the list is encoded whole; when that fails, each
 * event is tried alone, the ones that fail are handed to the caller (to count, log once
 * with their request id, and set aside or drop), and the rest are encoded together. Used
 * by every producer of event lists: the gateway's usage and outcome recorders and the
 * workers' usage and outcome events.
 */
import type { EventCodec, SchemaName, SchemaValues } from './codec.ts';
import { unencodableEvents } from '../lib/metrics.ts';

/** What {@link encodeEvents} wrote: the message's value and the events in it. */
export interface EncodedEvents<E> { value: Buffer; events: E[] }

/**
 * Encodes `messageOf(events)` under `schema`, leaving out the events that do not encode
 * alone (each counted in `lmstream_unencodable_events_total{schema}` and passed to
 * `onInvalid` with the codec's error).
 * @returns the value and the events in it; null when no event encodes
 * @throws Error only when the events that encode alone do not encode together (a
 *   message-level limit of the schema, not a property of one event)
 */
export async function encodeEvents<S extends SchemaName, E>(
  codec: EventCodec, schema: S, events: E[], messageOf: (list: E[]) => SchemaValues[S], onInvalid: (event: E, err: unknown) => void,
): Promise<EncodedEvents<E> | null> {
  try {
    return { value: await codec.encode(schema, messageOf(events)), events };
  } catch {
    const good: E[] = [];
    for (const e of events) {
      try {
        await codec.encode(schema, messageOf([e]));
        good.push(e);
      } catch (err) {
        unencodableEvents.inc({ schema });
        onInvalid(e, err);
      }
    }
    if (good.length === 0) return null;
    return { value: await codec.encode(schema, messageOf(good)), events: good };
  }
}
