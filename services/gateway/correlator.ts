/**
 * The correlator (after Spring Kafka's ReplyingKafkaTemplate): a pending map from
 * correlation id to the waiting HTTP request, fed by this gateway's own reply topic.
 * A reply with no pending entry (late, or a duplicate after a redelivery) is dropped
 * and counted. Each gateway instance has its own reply topic and its own consumer
 * group on it, so no other member joins and no rebalance moves its replies.
 */
import type { Logger } from 'pino';
import { resultSchemaOf, type Capability } from '../capabilities/index.ts';
import type { EventCodec } from '../events/codec.ts';
import { H } from '../events/topics.ts';
import { ServiceError } from '../lib/errors.ts';
import { lateReplies, pendingReplies } from '../lib/metrics.ts';
import type { Batch, Consumer, Transport } from '../transport/types.ts';
import type { ItemResult } from '../events/contract.ts';
import { failed, itemResult } from '../events/results.ts';

/** A result's times in the worker, from its headers: ms queued there and ms its micro-batch ran. */
export interface ItemTiming { queueMs: number; inferenceMs: number; }
const TIMINGS = new WeakMap<ItemResult, ItemTiming>();

/** The worker's times of a result the correlator delivered (undefined when the worker sent none). */
export const timingOf = (result: ItemResult): ItemTiming | undefined => TIMINGS.get(result);

interface Pending { resolve(r: ItemResult): void; reject(e: Error): void; timer: NodeJS.Timeout; }

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
  ) {}

  /** Starts the reply consumer; resolves once it owns the reply partition. */
  async start(): Promise<void> {
    await this.transport.ensureTopics([{ name: this.replyTopic, partitions: 1, retentionMs: 600_000 }]);
    this.consumer = this.transport.consumer({ groupId: this.groupId, topics: [this.replyTopic], fromBeginning: false, partitions: [this.replyPartition] });
    await this.consumer.run((b) => this.onReplies(b));
    await this.consumer.ready();
  }

  /**
   * Registers a correlation id before its request is produced.
   * @param deadline ms since the epoch
   * @returns the item's result; rejects with DEADLINE_EXCEEDED (504) at the deadline
   */
  expect(correlationId: string, deadline: number): Promise<ItemResult> {
    return new Promise<ItemResult>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(correlationId);
        pendingReplies.dec();
        reject(new ServiceError('DEADLINE_EXCEEDED', `no result before the request's deadline (${new Date(deadline).toISOString()})`));
      }, Math.max(0, deadline - Date.now()));
      this.pending.set(correlationId, { resolve, reject, timer });
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

  /** Items waiting for a reply. */
  get size(): number { return this.pending.size; }

  private async onReplies(batch: Batch): Promise<void> {
    for (const msg of batch.messages) {
      const id = msg.headers[H.correlationId];
      const p = id ? this.pending.get(id) : undefined;
      if (!p || !id) { this.late++; lateReplies.inc(); continue; }
      const capability = msg.headers[H.capability] as Capability;
      let result: ItemResult;
      try {
        result = itemResult<unknown>(await this.codec.decode(resultSchemaOf(capability), msg.value));
      } catch (err) {
        this.log.error({ err, correlationId: id }, 'undecodable reply');
        result = failed('INTERNAL', 'the worker sent a result that does not decode');
      }
      const queueMs = msg.headers[H.queueMs], inferenceMs = msg.headers[H.inferenceMs];
      if (queueMs !== undefined && inferenceMs !== undefined) TIMINGS.set(result, { queueMs: Number(queueMs), inferenceMs: Number(inferenceMs) });
      clearTimeout(p.timer);
      this.pending.delete(id);
      pendingReplies.dec();
      p.resolve(result);
    }
  }

  /** Stops the reply consumer; waiting requests fail at their deadlines. */
  async stop(): Promise<void> {
    await this.consumer?.stop();
  }
}
