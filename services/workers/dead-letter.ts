/**
 * Dead letters of a worker: request events that do not decode, or whose micro-batch
 * crashed DLQ_MAX_ATTEMPTS times, go to `<prefix>.<capability>.dlq` with why, how often
 * and from where in headers (docs/events.md).
 */
import { H } from '../events/topics.ts';
import type { ConsumedMessage, OutgoingMessage } from '../transport/types.ts';

/** A dead-letter copy of a request event, with the error (at most 2,000 characters) and attempts in headers. */
export function deadLetter(msg: ConsumedMessage, error: string, attempts: number): OutgoingMessage {
  return {
    key: msg.key, value: msg.value,
    headers: { ...msg.headers, [H.error]: error.slice(0, 2000), [H.attempts]: String(attempts), [H.source]: `${msg.topic}:${msg.partition}:${msg.offset}` },
  };
}

/** Failed attempts per request event (by position), forgetting everything past {@link MAX_TRACKED}. */
export class AttemptCounter {
  private readonly attempts = new Map<string, number>();

  /** Counts a failed attempt of a request event. @returns attempts so far */
  count(msg: ConsumedMessage): number {
    const k = `${msg.topic}:${msg.partition}:${msg.offset}`;
    const n = (this.attempts.get(k) ?? 0) + 1;
    if (this.attempts.size > MAX_TRACKED) this.attempts.clear();
    this.attempts.set(k, n);
    return n;
  }
}

/** Request events whose attempts are counted at most. */
export const MAX_TRACKED = 100_000;
