/**
 * Dynamic micro-batcher for one model (after NVIDIA Triton's dynamic batcher): items
 * queue up to `maxQueueSize`; a micro-batch runs when `maxBatchSize` items wait or the
 * oldest has waited `maxQueueDelayMs`, cut to the largest preferred batch size that fits
 * when the model names some; up to `concurrency` micro-batches run at once (the model's
 * instance_count), and `queuedAhead` more (each once a quarter of a usual micro-batch
 * waits) may be handed over to wait in the backend's queue; under a backlog, several micro-batches go in one hand-over
 * (`backlogMicroBatches`); an item whose deadline passed while queued, or that was
 * cancelled, is not run.
 */
import { ServiceError } from '../lib/errors.ts';

/** Batching policy of a model (from its config.json). Sizes in items, delays in ms. */
export interface BatchPolicy {
  maxBatchSize: number;
  maxQueueDelayMs: number;
  maxQueueSize: number;
  /** micro-batches run at once (default 1) */
  concurrency?: number;
  /**
   * more micro-batches that may be handed over while `concurrency` run, to wait in the
   * inference thread's queue, each only when at least a quarter of a usual micro-batch
   * (the largest preferred batch size, else maxBatchSize) waits (default 0)
   */
  queuedAhead?: number;
  /** batch sizes the model runs best at (Triton's preferred_batch_size) */
  preferredBatchSizes?: number[];
  /**
   * backlog dispatch: while at least this many full micro-batches wait, this many are
   * handed over in one run call (the inference thread runs them one after another, and
   * their results are published together), so per-call costs (a message each way, a
   * produce request) are paid once per this many micro-batches. Default 1 (off).
   */
  backlogMicroBatches?: number;
}

/**
 * Where the results of queued items go: `index` is the position the caller gave the item
 * (enqueueMany's `first` + its place in the list). A sink per caller, not a promise per
 * item: a batch of 64 made five promises and closures per item before (issue 17).
 */
export interface ResultSink<R> {
  /** the item's result */
  resolve(index: number, result: R): void;
  /** its micro-batch's run failed (the error `run` threw) */
  reject(index: number, err: unknown): void;
}

interface Queued<I, R> { item: I; deadline: number; enqueued: number; sink: ResultSink<R>; index: number; }

/** See the module comment. */
export class MicroBatcher<I, R> {
  private queue: Array<Queued<I, R>> = [];
  private running = 0;
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;

  /**
   * @param run runs one micro-batch; returns one result per item, in order
   * @param onDropped result for an item not run: its deadline passed in the queue, or it was cancelled
   * @param isCancelled whether nobody waits for an item any more (checked when its micro-batch forms)
   */
  constructor(
    private readonly policy: BatchPolicy,
    private readonly run: (items: I[]) => Promise<R[]>,
    private readonly onDropped: (item: I, reason: 'expired' | 'cancelled') => R,
    private readonly isCancelled: (item: I) => boolean = () => false,
  ) {
    const fits = (policy.preferredBatchSizes ?? []).filter((p) => p <= policy.maxBatchSize);
    this.unit = fits.length > 0 ? Math.max(...fits) : policy.maxBatchSize;
  }

  /** The usual micro-batch: the largest preferred batch size, else maxBatchSize. */
  private readonly unit: number;

  /** Items waiting (not counting the micro-batch running). */
  get depth(): number { return this.queue.length; }

  private spaceWaiters: Array<() => void> = [];

  /**
   * Queues items once the queue has room for each (waiting as long as it takes: a consumed
   * batch larger than the queue waits rather than being refused); their results go to
   * `sink`, item `items[k]` as index `first + k`.
   * @param deadline ms since the epoch, for all of them
   * @returns once every item is queued
   */
  async enqueueMany(items: readonly I[], deadline: number, sink: ResultSink<R>, first = 0): Promise<void> {
    for (let k = 0; k < items.length; k++) {
      while (this.queue.length >= this.policy.maxQueueSize) await new Promise<void>((r) => this.spaceWaiters.push(r));
      // no await between the check and the push: the room cannot be taken by another caller
      this.push(items[k]!, deadline, sink, first + k);
    }
  }

  /** Queues an item for which there is room, and hands over a micro-batch if one is due. */
  private push(item: I, deadline: number, sink: ResultSink<R>, index: number): void {
    this.queue.push({ item, deadline, enqueued: Date.now(), sink, index });
    this.schedule();
  }

  /**
   * Queues an item.
   * @param deadline ms since the epoch
   * @throws ServiceError QUEUE_FULL (503) when the queue holds maxQueueSize items
   */
  submit(item: I, deadline: number): Promise<R> {
    if (this.queue.length >= this.policy.maxQueueSize) {
      return Promise.reject(new ServiceError('QUEUE_FULL', `queue full (${this.policy.maxQueueSize} items)`));
    }
    return new Promise<R>((resolve, reject) => this.push(item, deadline, { resolve: (_, r) => resolve(r), reject: (_, e) => reject(e) }, 0));
  }

  /** No micro-batch may be handed over now: all slots taken, or only ahead slots free and fewer than a quarter of the usual micro-batch ({@link unit}) waiting. */
  private get busy(): boolean {
    const c = this.policy.concurrency ?? 1;
    if (this.running < c) return false;
    return this.running >= c + (this.policy.queuedAhead ?? 0) || this.queue.length < Math.ceil(this.unit / 4);
  }

  /**
   * Items handed over from `available` waiting: backlogMicroBatches full micro-batches
   * when that many wait, else one micro-batch of at most maxBatchSize, cut to the largest
   * preferred size that fits.
   */
  private batchSize(available: number): number {
    const backlog = (this.policy.backlogMicroBatches ?? 1) * this.policy.maxBatchSize;
    if (backlog > this.policy.maxBatchSize && available >= backlog) return backlog;
    const n = Math.min(available, this.policy.maxBatchSize);
    const fits = (this.policy.preferredBatchSizes ?? []).filter((p) => p <= n);
    return fits.length > 0 ? Math.max(...fits) : n;
  }

  private schedule(): void {
    if (this.busy || this.queue.length === 0) return;
    if (this.queue.length >= this.unit) { this.flush(); return; }
    if (this.timer || this.immediate) return;
    if (this.policy.maxQueueDelayMs <= 0) {
      // no delay: run what this event-loop turn queued (a timer of 0 ms would wait 1 ms)
      this.immediate = setImmediate(() => { this.immediate = undefined; this.flush(); });
      return;
    }
    const wait = Math.max(0, this.queue[0]!.enqueued + this.policy.maxQueueDelayMs - Date.now());
    this.timer = setTimeout(() => { this.timer = undefined; this.flush(); }, wait);
  }

  private flush(): void {
    if (this.timer) { clearTimeout(this.timer); this.timer = undefined; }
    if (this.immediate) { clearImmediate(this.immediate); this.immediate = undefined; }
    if (this.busy || this.queue.length === 0) return;
    const now = Date.now();
    const taken = this.queue.splice(0, this.batchSize(this.queue.length));
    for (const wake of this.spaceWaiters.splice(0, this.policy.maxQueueSize - this.queue.length)) wake();
    const live = taken.filter((q) => {
      const reason = q.deadline <= now ? 'expired' : this.isCancelled(q.item) ? 'cancelled' : undefined;
      if (!reason) return true;
      q.sink.resolve(q.index, this.onDropped(q.item, reason));
      return false;
    });
    if (live.length === 0) { this.schedule(); return; }
    this.running++;
    this.run(live.map((q) => q.item)).then(
      (results) => { for (let i = 0; i < live.length; i++) live[i]!.sink.resolve(live[i]!.index, results[i]!); },
      (err) => { for (const q of live) q.sink.reject(q.index, err); },
    ).finally(() => { this.running--; this.schedule(); });
    // another instance is free: form the next micro-batch from what still waits
    this.schedule();
  }
}
