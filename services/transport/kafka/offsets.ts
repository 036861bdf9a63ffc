/**
 * Offset bookkeeping of the Kafka transport's consumer (services/transport/kafka/consumer.ts):
 * per partition, the batches handed out and not yet committed, in offset order; which
 * prefix of them may be committed; and where a failed batch sends the partition back.
 * It talks to no broker: the consumer commits and seeks what it answers.
 *
 * A batch that starts at or before the end of the tracked ones means the fetch position
 * went back (a seek, or a rebalance that restarted from the committed offset): the older
 * tracking is dropped, and those batches count only through their new delivery. A failed
 * batch is delivered again after 100 ms, doubling up to 5 s while it keeps failing, so a
 * failing batch does not spin.
 */

/** One handed-out batch of a partition; `first`/`last` are offsets. */
export interface InFlight { first: number; last: number; state: 'running' | 'done' | 'failed'; settled: Promise<void>; }

/** Where a partition goes back to after a failed batch. */
interface Rewind { offset: number; pending: boolean; notBefore: number; attempts: number; }

/** What the consumer does after a batch settled: commit up to (and excluding) `commit`, seek to `seekTo`. */
export interface Settlement { commit?: number; seekTo?: number; }

/** Longest wait before a failing batch is delivered again, ms. */
export const MAX_REDELIVERY_DELAY_MS = 5000;

/** See the module comment. Keys are `<topic>|<partition>`. */
export class OffsetTracker {
  private readonly inFlight = new Map<string, InFlight[]>();
  private readonly rewinds = new Map<string, Rewind>();

  /** Forgets everything (a new assignment: fetching restarts from the committed offsets). */
  clear(): void { this.inFlight.clear(); this.rewinds.clear(); }

  /**
   * Whether a batch starting at `first` is delivered: `skip` when it was fetched before the
   * seek back to a failed batch took effect; else how long to wait first (ms).
   */
  admit(key: string, first: number): { skip: boolean; waitMs: number } {
    const rewind = this.rewinds.get(key);
    if (!rewind?.pending) return { skip: false, waitMs: 0 };
    if (first > rewind.offset) return { skip: true, waitMs: 0 };
    rewind.pending = false;
    return { skip: false, waitMs: Math.max(0, rewind.notBefore - Date.now()) };
  }

  /** Starts tracking a handed-out batch. @returns its entry and the partition's list it is in */
  track(key: string, first: number, last: number): { entry: InFlight; list: InFlight[] } {
    let list = this.inFlight.get(key);
    if (!list || (list.length > 0 && first <= list[list.length - 1]!.last)) this.inFlight.set(key, list = []);
    const entry: InFlight = { first, last, state: 'running', settled: Promise.resolve() };
    list.push(entry);
    return { entry, list };
  }

  /** Whether `list` is still the partition's tracking (not dropped by a seek or a rebalance). */
  current(key: string, list: InFlight[]): boolean { return this.inFlight.get(key) === list; }

  /**
   * After a batch of `list` settled: the handled prefix leaves the list (its next offset is
   * the commit); a failed batch at the front drops the partition's tracking and becomes
   * the seek.
   */
  settle(key: string, list: InFlight[]): Settlement {
    if (!this.current(key, list)) return {};
    const out: Settlement = {};
    let committed: number | undefined;
    while (list.length > 0 && list[0]!.state === 'done') committed = list.shift()!.last;
    if (committed !== undefined) out.commit = committed + 1;
    if (list[0]?.state === 'failed') {
      const offset = list[0].first;
      this.inFlight.delete(key);
      const prev = this.rewinds.get(key);
      const attempts = prev?.offset === offset ? prev.attempts : 0;
      this.rewinds.set(key, { offset, pending: true, notBefore: Date.now() + Math.min(MAX_REDELIVERY_DELAY_MS, 100 * 2 ** attempts), attempts: attempts + 1 });
      out.seekTo = offset;
    }
    return out;
  }

  /** Every batch tracked now (shutdown waits for them). */
  all(): InFlight[] { return [...this.inFlight.values()].flat(); }
}
