/**
 * Backpressure of a worker: fetching pauses while the micro-batch queues hold 3/4 of
 * their capacity and resumes below 1/4, so a burst waits in the log instead of being
 * refused with 503 QUEUE_FULL.
 */
import type { Logger } from 'pino';
import type { Consumer } from '../transport/types.ts';

/** Share of the queues' capacity at which fetching pauses. */
export const PAUSE_AT = 0.75;
/** Share at which it resumes. */
export const RESUME_AT = 0.25;

/** See the module comment. */
export class Backpressure {
  private paused = false;

  constructor(private readonly log: Logger) {}

  /**
   * Pauses or resumes `consumer` for the queues' depth and capacity (items).
   * @param capacity 0 when no queue exists yet (nothing to do)
   */
  apply(consumer: Consumer | undefined, depth: number, capacity: number): void {
    if (capacity === 0 || !consumer) return;
    if (!this.paused && depth >= capacity * PAUSE_AT) { this.paused = true; consumer.pause(); this.log.info({ depth, capacity }, 'paused fetching: queues nearly full'); }
    else if (this.paused && depth <= capacity * RESUME_AT) { this.paused = false; consumer.resume(); this.log.info({ depth, capacity }, 'resumed fetching'); }
  }
}
