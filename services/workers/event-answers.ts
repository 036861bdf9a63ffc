/**
 * The answers of one request event's items, gathered from the micro-batchers into one
 * promise per event: the batcher hands each item's outcome to this sink instead of
 * settling a promise per item (a batch of 64 made five promises and closures per item,
 * and the batch route's largest profile entry was garbage collection: issue 17).
 */
import type { ItemResult } from '../events/contract.ts';
import { failed } from '../events/results.ts';
import { ServiceError } from '../lib/errors.ts';
import type { ResultSink } from './batcher.ts';
import type { Item } from './publisher.ts';

/**
 * What the micro-batcher hands back for an item: its result, and the publication of its
 * micro-batch's results and usage, which goes on after the batcher has moved to the next
 * micro-batch (so inference never waits for the broker's acknowledgement).
 */
export interface Outcome { result: ItemResult; published: Promise<void>; }

/** See the module comment. */
export class EventAnswers implements ResultSink<Outcome> {
  /** each item's result, in the event's order (complete once {@link done} resolves) */
  private readonly results: ItemResult[];
  private left: number;
  /** the publications the results wait for: one per micro-batch the items fell into, one per failed item */
  private readonly published: Array<Promise<unknown>> = [];
  private settle!: (results: ItemResult[]) => void;
  private fail!: (err: unknown) => void;
  /**
   * Resolves with every item's result once all of them are published; rejects with the
   * first error that is not a ServiceError (an inference thread that crashed with the item
   * alone and has attempts left: the consumed batch is then delivered again) or the first
   * failed publication.
   */
  readonly done: Promise<ItemResult[]>;

  /**
   * @param items the event's items, in order (the sink's indices are positions in it)
   * @param publishFailure publishes the failure result of an item whose micro-batch failed
   *   with a ServiceError (the item is answered with its code)
   */
  constructor(private readonly items: readonly Item[], private readonly publishFailure: (item: Item, result: ItemResult) => Promise<void>) {
    this.results = new Array<ItemResult>(items.length);
    this.left = items.length;
    this.done = new Promise<ItemResult[]>((resolve, reject) => { this.settle = resolve; this.fail = reject; });
    // nobody may await it before the last item is queued (which can wait for room): a
    // rejection meanwhile must not count as unhandled
    this.done.catch(() => undefined);
    if (this.left === 0) this.settle(this.results);
  }

  /** An item's outcome from its micro-batch (or its drop: deadline passed, cancelled). */
  resolve(index: number, outcome: Outcome): void {
    this.results[index] = outcome.result;
    // the items of one micro-batch come one after another with the same publication
    if (this.published[this.published.length - 1] !== outcome.published) this.published.push(outcome.published);
    this.answered();
  }

  /** An item whose micro-batch's run threw. */
  reject(index: number, err: unknown): void {
    if (!(err instanceof ServiceError)) { this.fail(err); return; }
    const r = failed(err.code, err.message);
    this.results[index] = r;
    this.published.push(this.publishFailure(this.items[index]!, r));
    this.answered();
  }

  private answered(): void {
    if (--this.left > 0) return;
    Promise.all(this.published).then(() => this.settle(this.results), this.fail);
  }
}
