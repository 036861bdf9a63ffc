/**
 * Group commit (as a database's): the writes that arrive while a transaction is in flight
 * (or, with an interval, until the next one is due) go together into the next one. The
 * billing consumer gathers consumed usage batches of every partition into one ledger
 * transaction with it, the analytics consumer outcome batches into one store transaction
 * at most every second (issue 17).
 */

interface Waiting<T> { item: T; resolve(): void; reject(e: unknown): void; }

/** See the module comment. */
export class GroupCommit<T> {
  private waiting: Array<Waiting<T>> = [];
  private running = false;
  /** performance.now() when the last transaction started */
  private lastStart = -Infinity;
  /** transactions written so far */
  transactions = 0;

  /**
   * @param commit writes a group of items in one transaction; a rejection fails every
   *   item of the group
   * @param intervalMs least time between the starts of two transactions, ms: what gathers
   *   while one is in flight goes in the next once the interval has passed (0: as soon as
   *   the one in flight has committed)
   * @param startIdle how a write to an idle group commit starts the transaction: by
   *   default in the next event-loop turn, with what that turn gathered
   */
  constructor(private readonly commit: (items: T[]) => Promise<void>, private readonly intervalMs = 0,
    private readonly startIdle: (drain: () => void) => void = setImmediate) {}

  /** Writes `item` in a group; resolves once the transaction holding it committed. @throws what `commit` throws */
  write(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      if (!this.running) { this.running = true; this.startIdle(() => void this.drain()); }
    });
  }

  private async drain(): Promise<void> {
    while (this.waiting.length > 0) {
      const wait = this.lastStart + this.intervalMs - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const group = this.waiting;
      this.waiting = [];
      this.lastStart = performance.now();
      try {
        await this.commit(group.map((w) => w.item));
        this.transactions++;
        for (const w of group) w.resolve();
      } catch (err) {
        for (const w of group) w.reject(err);
      }
    }
    this.running = false;
  }
}
