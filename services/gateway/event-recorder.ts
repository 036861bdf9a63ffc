/**
 * Events a gateway writes in batches (usage of delivered answers, outcomes for analytics):
 * events gather for up to a linger ({@link LINGER_MS} by default, or {@link MAX_BATCH_EVENTS}) and while a
 * write is in flight, then go in one produce call, one message per API key, without a
 * message key so that the producer spreads them over the topic's partitions (the
 * consumers read them in parallel). Written at once, each answer's usage was a message of
 * its own, and billing's share of the CPU in `npm run bench:kafka` went from 0.03 to 0.14
 * of a core. A gateway that crashes loses at most that linger's events. A failed write is
 * tried again every second, holding at most {@link MAX_BUFFERED_EVENTS}. An event that its
 * schema cannot encode is never tried again: it is dropped, counted (`outcome="invalid"`)
 * and logged once with its request id, and the rest of its batch is written (one such event
 * used to hold back every event of the gateway, retried every second forever).
 */
import { setImmediate } from 'node:timers/promises';
import type client from 'prom-client';
import type { Logger } from 'pino';
import type { EventCodec, SchemaValues } from '../events/codec.ts';
import { encodeEvents } from '../events/encodable.ts';
import type { OutcomeEvent, UsageEvent } from '../events/contract.ts';
import type { OutgoingMessage, Producer } from '../transport/types.ts';

/** Events held while the usage topic cannot be written, at most; older ones beyond are dropped and counted. */
export const MAX_BUFFERED_EVENTS = 200_000;
/** Longest wait before buffered events are written, ms (usage; outcome events wait longer: ./outcome-recorder.ts). */
export const LINGER_MS = 50;
/** Most events in one message (a few hundred microseconds of encoding, and of decoding for its consumer). */
export const MAX_MESSAGE_EVENTS = 500;
/** Buffered events that are written at once. */
export const MAX_BATCH_EVENTS = 5000;

/** The event streams a gateway writes in batches. */
export type RecordedSchema = 'common/usage' | 'common/outcome';
/** The events of those streams. */
export interface RecordedEvents { 'common/usage': UsageEvent; 'common/outcome': OutcomeEvent; }
/** An event of such a stream. */
export type RecordedEvent<S extends RecordedSchema> = RecordedEvents[S];

/** See the module comment. */
export class EventRecorder<S extends RecordedSchema> {
  private buffer: Array<RecordedEvent<S>> = [];
  private writing?: Promise<void>;
  private retry?: NodeJS.Timeout;
  private scheduled?: NodeJS.Timeout;

  /**
   * @param schema the stream's schema: a message holds `{events}` of one API key
   * @param written counter of events by outcome of their write (written, dropped)
   * @param what the events, for log lines (e.g. "usage of delivered answers")
   * @param lingerMs longest wait before buffered events are written, ms
   * @param messageOf the message value of a list of events of one key
   */
  constructor(private readonly producer: Producer, private readonly codec: EventCodec, private readonly topic: string,
    private readonly schema: S, private readonly written: client.Counter<'outcome'>, private readonly what: string, private readonly log: Logger,
    private readonly lingerMs: number, private readonly messageOf: (events: Array<RecordedEvent<S>>) => SchemaValues[S]) {}

  /** Events not yet written. */
  get pending(): number { return this.buffer.length; }

  /** Queues events. */
  record(events: Array<RecordedEvent<S>>): void {
    if (events.length === 0) return;
    this.buffer.push(...events);
    if (this.buffer.length > MAX_BUFFERED_EVENTS) {
      const dropped = this.buffer.splice(0, this.buffer.length - MAX_BUFFERED_EVENTS);
      this.written.inc({ outcome: 'dropped' }, dropped.length);
      this.log.error({ dropped: dropped.length }, `buffer full: the oldest events (${this.what}) were dropped`);
    }
    this.schedule();
  }

  private schedule(): void {
    if (this.writing || this.retry) return;
    if (this.buffer.length >= MAX_BATCH_EVENTS) { this.unschedule(); void this.write(); return; }
    if (this.scheduled) return;
    this.scheduled = setTimeout(() => { this.scheduled = undefined; void this.write(); }, this.lingerMs);
    this.scheduled.unref();
  }

  private unschedule(): void {
    if (this.scheduled) { clearTimeout(this.scheduled); this.scheduled = undefined; }
  }

  /** Writes what is buffered; what gathers meanwhile goes in the next write. */
  private write(): Promise<void> {
    if (this.writing || this.buffer.length === 0) return this.writing ?? Promise.resolve();
    const events = this.buffer;
    this.buffer = [];
    this.writing = (async () => {
      try {
        const byKey = new Map<string, Array<RecordedEvent<S>>>();
        for (const e of events) {
          const list = byKey.get(e.keyId);
          if (list) list.push(e); else byKey.set(e.keyId, [e]);
        }
        const messages: OutgoingMessage[] = [];
        const kept: Array<RecordedEvent<S>> = [];
        for (const list of byKey.values()) {
          // at most MAX_MESSAGE_EVENTS a message, the event loop running between them, so a
          // second's outcome events do not hold up the requests being answered
          for (let i = 0; i < list.length; i += MAX_MESSAGE_EVENTS) {
            if (messages.length > 0) await setImmediate();
            const message = await this.encodable(list.slice(i, i + MAX_MESSAGE_EVENTS));
            if (!message) continue;
            messages.push(message.message);
            kept.push(...message.events);
          }
        }
        try {
          if (messages.length > 0) await this.producer.send(this.topic, messages);
        } catch (err) {
          // the log could not take them: the events that encode are tried again
          this.retryLater(kept, err);
          return;
        }
        this.written.inc({ outcome: 'written' }, kept.length);
      } catch (err) {
        this.retryLater(events, err);
      } finally {
        this.writing = undefined;
        if (this.buffer.length > 0 && !this.retry) this.schedule();
      }
    })();
    return this.writing;
  }

  /** Puts `events` back in front of the buffer and writes again in 1 s. */
  private retryLater(events: Array<RecordedEvent<S>>, err: unknown): void {
    this.log.warn({ err, events: events.length }, `${this.what} not written; trying again in 1 s`);
    this.buffer = events.concat(this.buffer);
    this.retry = setTimeout(() => { this.retry = undefined; void this.write(); }, 1000);
    this.retry.unref();
  }

  /**
   * The message of a list of one key's events, and the events in it: all of them, or, when
   * the list does not encode, those that encode alone (each event that does not is dropped,
   * counted and logged with its request id); null when none does.
   */
  private async encodable(list: Array<RecordedEvent<S>>): Promise<{ message: OutgoingMessage; events: Array<RecordedEvent<S>> } | null> {
    const encoded = await encodeEvents(this.codec, this.schema, list, (l) => this.messageOf(l), (e, err) => {
      this.written.inc({ outcome: 'invalid' });
      this.log.error({ err, requestId: e.requestId, keyId: e.keyId }, `an event (${this.what}) that its schema cannot encode was dropped`);
    });
    return encoded && { message: { key: null, value: encoded.value }, events: encoded.events };
  }

  /** Writes everything buffered (one more try for a failed write); for shutdown. */
  async close(): Promise<void> {
    this.unschedule();
    if (this.retry) { clearTimeout(this.retry); this.retry = undefined; }
    await this.writing;
    await this.write();
    if (this.buffer.length > 0) this.log.error({ events: this.buffer.length }, `${this.what} could not be written before shutdown`);
  }
}
