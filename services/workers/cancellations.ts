/**
 * What a worker knows of cancelled requests (`<prefix>.cancellations`, written by a
 * gateway whose client went away): request ids until their deadlines, so that the items
 * of those requests not yet run are skipped, and listeners stop those already running.
 */
import type { EventCodec } from '../events/codec.ts';
import type { Batch, ConsumedMessage } from '../transport/types.ts';
import { requestOf } from './publisher.ts';

/** Cancelled requests remembered at most (the oldest are forgotten first). */
export const MAX_CANCELLED = 100_000;

/** See the module comment. */
export class Cancellations {
  /** request id → its deadline (ms since the epoch) */
  private readonly cancelled = new Map<string, number>();
  private readonly listeners: Array<(requestId: string) => void> = [];

  constructor(private readonly codec: EventCodec) {}

  /** Takes the cancel events of a consumed batch (undecodable ones are skipped). */
  async take(batch: Batch): Promise<void> {
    for (const msg of batch.messages) {
      let until: number;
      let requestId: string;
      try { ({ untilMs: until, requestId } = await this.codec.decode('control/cancel', msg.value)); } catch { continue; }
      if (until <= Date.now()) continue;
      if (this.cancelled.size >= MAX_CANCELLED) {
        const now = Date.now();
        for (const [id, t] of this.cancelled) if (t <= now) this.cancelled.delete(id);
        while (this.cancelled.size >= MAX_CANCELLED) this.cancelled.delete(this.cancelled.keys().next().value!);
      }
      this.cancelled.set(requestId, until);
      for (const l of this.listeners) l(requestId);
    }
  }

  /** Calls `fn` with each request id cancelled from now on (to stop items already running). */
  onCancel(fn: (requestId: string) => void): void { this.listeners.push(fn); }

  /** Whether nobody waits for an item any more because its request was cancelled. */
  has(msg: ConsumedMessage): boolean {
    if (this.cancelled.size === 0) return false;
    const { requestId } = requestOf(msg);
    const until = this.cancelled.get(requestId);
    if (until === undefined) return false;
    if (until <= Date.now()) { this.cancelled.delete(requestId); return false; }
    return true;
  }
}
