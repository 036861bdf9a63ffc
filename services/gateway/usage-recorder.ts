/**
 * Billing at delivery: the usage events of answers this gateway delivered, written to
 * the usage topic. An answer is delivered when its response was written out in full
 * (the response's `finish`); a request answered 4xx/5xx, timed out (504) or whose client
 * went away first writes no usage, so the ledger holds exactly what callers received
 * (docs/security.md). Events gather for up to {@link LINGER_MS} (or {@link MAX_BATCH_EVENTS})
 * and while a write is in flight, then go in one produce call, one message per API key,
 * without a message key so that the producer spreads them over the usage topic's
 * partitions (billing reads them in parallel). Written at once, each answer's usage was a
 * message of its own, and billing's share of the CPU in `npm run bench:kafka` went from
 * 0.03 to 0.14 of a core. A gateway that crashes loses at most that linger's usage
 * (under-billing, never over-billing). A failed write is tried again every second,
 * holding at most {@link MAX_BUFFERED_EVENTS}.
 */
import type { Logger } from 'pino';
import type { UsageEvent } from '../events/contract.ts';
import type { EventCodec } from '../events/codec.ts';
import { deliveredUsage } from '../lib/metrics.ts';
import type { OutgoingMessage, Producer } from '../transport/types.ts';

/** Events held while the usage topic cannot be written, at most; older ones beyond are dropped and counted. */
export const MAX_BUFFERED_EVENTS = 200_000;
/** Longest wait before buffered usage is written, ms. */
export const LINGER_MS = 50;
/** Buffered events that are written at once. */
export const MAX_BATCH_EVENTS = 5000;

/** See the module comment. */
export class UsageRecorder {
  private buffer: UsageEvent[] = [];
  private writing?: Promise<void>;
  private retry?: NodeJS.Timeout;
  private scheduled?: NodeJS.Timeout;

  constructor(private readonly producer: Producer, private readonly codec: EventCodec, private readonly topic: string, private readonly log: Logger) {}

  /** Events not yet written (part of the billing lag that `GET /v1/usage` reports). */
  get pending(): number { return this.buffer.length; }

  /** Queues the usage events of a delivered answer. */
  record(events: UsageEvent[]): void {
    if (events.length === 0) return;
    this.buffer.push(...events);
    if (this.buffer.length > MAX_BUFFERED_EVENTS) {
      const dropped = this.buffer.splice(0, this.buffer.length - MAX_BUFFERED_EVENTS);
      deliveredUsage.inc({ outcome: 'dropped' }, dropped.length);
      this.log.error({ dropped: dropped.length }, 'usage buffer full: the oldest usage events of delivered answers were dropped unbilled');
    }
    this.schedule();
  }

  private schedule(): void {
    if (this.writing || this.retry) return;
    if (this.buffer.length >= MAX_BATCH_EVENTS) { this.unschedule(); void this.write(); return; }
    if (this.scheduled) return;
    this.scheduled = setTimeout(() => { this.scheduled = undefined; void this.write(); }, LINGER_MS);
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
        const byKey = new Map<string, UsageEvent[]>();
        for (const e of events) {
          const list = byKey.get(e.keyId);
          if (list) list.push(e); else byKey.set(e.keyId, [e]);
        }
        const messages: OutgoingMessage[] = [];
        for (const list of byKey.values()) messages.push({ key: null, value: await this.codec.encode('common/usage', { events: list }) });
        await this.producer.send(this.topic, messages);
        deliveredUsage.inc({ outcome: 'written' }, events.length);
      } catch (err) {
        this.log.warn({ err, events: events.length }, 'usage of delivered answers not written; trying again in 1 s');
        this.buffer = events.concat(this.buffer);
        this.retry = setTimeout(() => { this.retry = undefined; void this.write(); }, 1000);
        this.retry.unref();
      } finally {
        this.writing = undefined;
        if (this.buffer.length > 0 && !this.retry) this.schedule();
      }
    })();
    return this.writing;
  }

  /** Writes everything buffered (one more try for a failed write); for shutdown. */
  async close(): Promise<void> {
    this.unschedule();
    if (this.retry) { clearTimeout(this.retry); this.retry = undefined; }
    await this.writing;
    await this.write();
    if (this.buffer.length > 0) this.log.error({ events: this.buffer.length }, 'usage of delivered answers could not be written before shutdown');
  }
}
