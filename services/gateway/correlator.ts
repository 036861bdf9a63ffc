/**
 * The correlator (after Spring Kafka's ReplyingKafkaTemplate): a pending map from
 * correlation id to the waiting HTTP request, fed by this gateway's own reply topic.
 * A reply with no pending entry (late, or a duplicate after a redelivery) is dropped
 * and counted. A request event of several items (schema `<capability>/requests`) is one
 * pending entry with a slot per item; its results may come in several result events
 * (`<capability>/results`, one per micro-batch that ran some of its items), and it
 * resolves once every slot is filled, or at the deadline with what came.
 * Each gateway instance has its own reply topic and its own consumer
 * group on it, so no other member joins and no rebalance moves its replies.
 */
import type { Logger } from 'pino';
import { resultSchemaOf, resultsSchemaOf, type Capability } from '../capabilities/index.ts';
import type { EventCodec } from '../events/codec.ts';
import { H } from '../events/topics.ts';
import { ServiceError } from '../lib/errors.ts';
import { lateReplies, pendingReplies } from '../lib/metrics.ts';
import type { Batch, Consumer, Transport } from '../transport/types.ts';
import type { ItemResult } from '../events/contract.ts';
import { failed, itemResult } from '../events/results.ts';

/** A result's times in the worker, from its headers: ms queued there and ms its micro-batch ran. */
export interface ItemTiming { queueMs: number; inferenceMs: number; }

/**
 * The queue wait of an event from its result's headers, ms: `queue-ms` (in the worker's
 * micro-batch queue) plus the part of its micro-batch's run spent on the items batched
 * with it (`inference-ms` × (1 − 1 / `batch-items`)); a header that is not a number counts
 * as 0 (and `batch-items` below 2 as a run of its own), and the result is at least 0.
 */
export function queueWaitOf(timing: ItemTiming, batchItems: string | undefined): number {
  const batch = Number(batchItems ?? 1);
  const others = Number.isFinite(timing.inferenceMs) && batch > 1 ? timing.inferenceMs * (1 - 1 / batch) : 0;
  const queued = Number.isFinite(timing.queueMs) ? timing.queueMs : 0;
  return Math.max(0, queued + others);
}

/** A request event waiting for its items' results: a slot per item. */
interface Pending {
  slots: Array<ItemResult | undefined>;
  /** where the worker's times of each item go, when the caller asked for them */
  timings: Array<ItemTiming | undefined> | undefined;
  /** slots not filled yet */
  remaining: number;
  /** whether its first reply's queue wait goes to the wait sink (then cleared) */
  sampleWait: boolean;
  resolve(r: ItemResult[]): void;
  reject(e: Error): void;
  timer: NodeJS.Timeout;
}


/** Where the queue waits the correlator measures go (services/gateway/load-shedding.ts). */
export interface QueueWaitSink {
  /** the queue wait of a request's first event, ms */
  observeWait(capability: Capability, waitMs: number): void;
}

/** See the module comment. */
export class Correlator {
  private readonly pending = new Map<string, Pending>();
  private consumer?: Consumer;
  /**
   * The partition of the reply topic this gateway reads and names in `reply-partition`
   * (the topic has one partition; on brokers that auto-create topics with more, the
   * consumer is assigned only this one, so it fetches from one broker).
   */
  readonly replyPartition = 0;
  /** replies dropped because nobody waited for them */
  late = 0;

  constructor(
    private readonly transport: Transport,
    private readonly codec: EventCodec,
    /** this instance's reply topic (one partition) */
    readonly replyTopic: string,
    private readonly groupId: string,
    private readonly log: Logger,
    /** gets the queue wait of the events registered with `sampleWait` */
    private readonly waits?: QueueWaitSink,
  ) {}

  /** Starts the reply consumer; resolves once it owns the reply partition. */
  async start(): Promise<void> {
    await this.transport.ensureTopics([{ name: this.replyTopic, partitions: 1, retentionMs: 600_000 }]);
    // replies are worth nothing to a restarted gateway (its waiting requests are gone): no commits
    this.consumer = this.transport.consumer({ groupId: this.groupId, topics: [this.replyTopic], fromBeginning: false, partitions: [this.replyPartition], commitOffsets: false });
    await this.consumer.run((b) => this.onReplies(b));
    await this.consumer.ready();
  }

  /**
   * Registers a one-item request event before it is produced.
   * @param deadline ms since the epoch
   * @returns the item's result; rejects with DEADLINE_EXCEEDED (504) at the deadline
   */
  async expect(correlationId: string, deadline: number): Promise<ItemResult> {
    return (await this.expectItems(correlationId, 1, deadline))[0]!;
  }

  /**
   * Registers a request event of `items` items before it is produced.
   * @param deadline ms since the epoch
   * @param timings filled, per item, with the worker's times from its result event's
   *   headers (left undefined when it sent none): kept beside the slots, not per result
   *   object (filling a slot with a WeakMap set per item was 2.6 % of the main thread's
   *   samples on the embedded batch route)
   * @param sampleWait at the first reply that carries the worker's times, the event's
   *   queue wait in ms goes to the wait sink: its `queue-ms` (in the worker's micro-batch
   *   queue) plus the part of its micro-batch's run that was not its own (`inference-ms` ×
   *   (1 − 1 / `batch-items`)) (services/gateway/load-shedding.ts)
   * @returns a result per item, in order, once all came; at the deadline, the items
   *   without a result get a DEADLINE_EXCEEDED (504) failure, and when none came it
   *   rejects with DEADLINE_EXCEEDED
   */
  expectItems(correlationId: string, items: number, deadline: number, timings?: Array<ItemTiming | undefined>, sampleWait = false): Promise<ItemResult[]> {
    return new Promise<ItemResult[]>((resolve, reject) => {
      const timer = setTimeout(() => {
        const p = this.pending.get(correlationId);
        this.pending.delete(correlationId);
        pendingReplies.dec();
        const error = `no result before the request's deadline (${new Date(deadline).toISOString()})`;
        if (!p || p.remaining === p.slots.length) { reject(new ServiceError('DEADLINE_EXCEEDED', error)); return; }
        resolve(Array.from(p.slots, (r) => r ?? failed('DEADLINE_EXCEEDED', error)));
      }, Math.max(0, deadline - Date.now()));
      this.pending.set(correlationId, { slots: Array.from<ItemResult | undefined>({ length: items }), remaining: items, timings, sampleWait, resolve, reject, timer });
      pendingReplies.inc();
    });
  }

  /** Forgets a correlation id whose request could not be produced. */
  cancel(correlationId: string, err: Error): void {
    const p = this.pending.get(correlationId);
    if (!p) return;
    clearTimeout(p.timer);
    this.pending.delete(correlationId);
    pendingReplies.dec();
    p.reject(err);
  }

  /** Fails every waiting item with `err` (shutdown: their requests are answered at once). */
  failAll(err: Error): void {
    for (const id of [...this.pending.keys()]) this.cancel(id, err);
  }

  /** Request events waiting for results. */
  get size(): number { return this.pending.size; }

  /**
   * Puts item `index`'s result into its slot; an index outside the request or a slot
   * already filled is a late (or forged) reply, counted and dropped. A method rather than
   * a closure per reply: tsx (esbuild keepNames) names every closure it makes.
   */
  private fill(p: Pending, index: number, result: ItemResult, timing: ItemTiming | undefined): void {
    if (!(index >= 0 && index < p.slots.length) || p.slots[index] !== undefined) { this.late++; lateReplies.inc(); return; }
    if (timing && p.timings) p.timings[index] = timing;
    p.slots[index] = result;
    p.remaining--;
  }

  private async onReplies(batch: Batch): Promise<void> {
    for (const msg of batch.messages) {
      const id = msg.headers[H.correlationId];
      const p = id ? this.pending.get(id) : undefined;
      if (!p || !id) { this.late++; lateReplies.inc(); continue; }
      const capability = msg.headers[H.capability] as Capability;
      const queueMs = msg.headers[H.queueMs], inferenceMs = msg.headers[H.inferenceMs];
      const timing = queueMs !== undefined && inferenceMs !== undefined ? { queueMs: Number(queueMs), inferenceMs: Number(inferenceMs) } : undefined;
      if (p.sampleWait && timing) {
        p.sampleWait = false;
        this.waits?.observeWait(capability, queueWaitOf(timing, msg.headers[H.batchItems]));
      }
      try {
        if (msg.headers[H.items] !== undefined) {
          for (const e of (await this.codec.decode(resultsSchemaOf(capability), msg.value)).items) this.fill(p, e.index, itemResult<unknown>(e.result), timing);
        } else {
          this.fill(p, 0, itemResult<unknown>(await this.codec.decode(resultSchemaOf(capability), msg.value)), timing);
        }
      } catch (err) {
        // which items it answered is unknown: those still waiting get the failure
        this.log.error({ err, correlationId: id }, 'undecodable reply');
        for (let i = 0; i < p.slots.length; i++) if (p.slots[i] === undefined) this.fill(p, i, failed('INTERNAL', 'the worker sent a result that does not decode'), timing);
      }
      if (p.remaining > 0) continue;
      clearTimeout(p.timer);
      this.pending.delete(id);
      pendingReplies.dec();
      p.resolve(p.slots as ItemResult[]);
    }
  }

  /** Stops the reply consumer; waiting requests fail at their deadlines. */
  async stop(): Promise<void> {
    await this.consumer?.stop();
  }
}
