/**
 * The Kafka transport's consumer: a kafkajs consumer running a {@link BatchHandler},
 * offsets committed in order once batches are handled.
 */
import { Kafka, type Consumer as KConsumer } from 'kafkajs';
import type { BatchHandler, ConsumedMessage, Consumer, ConsumerOptions } from '../types.ts';
import { fixedPartitions } from './assigner.ts';
import { OffsetTracker, type InFlight } from './offsets.ts';
import type { ResolvedKafkaOptions } from './options.ts';

/** Kafka header values as strings. */
function headersOf(h: Record<string, unknown> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h ?? {})) if (v !== undefined && v !== null) out[k] = Buffer.isBuffer(v) ? v.toString('utf8') : String(v);
  return out;
}


/**
 * A kafkajs consumer running a {@link BatchHandler}.
 *
 * With `maxInFlightBatches` > 1 the batch loop does not wait for a handler: it resolves
 * the batch's offsets (so kafkajs fetches on from there) and tracks the batch per
 * partition; offsets are committed in offset order, each only once its batch and every
 * earlier one have been handled. A failed batch makes the partition seek back to its
 * first offset, so it and everything after it are delivered again (the bookkeeping is
 * services/transport/kafka/offsets.ts).
 */
export class KafkaConsumer implements Consumer {
  private consumer?: KConsumer;
  private stopped = false;
  private crashes: number[] = [];
  private readyResolve!: () => void;
  private readonly readyPromise = new Promise<void>((r) => (this.readyResolve = r));
  private readonly offsets = new OffsetTracker();

  constructor(private readonly kafka: Kafka, private readonly options: ConsumerOptions, private readonly o: ResolvedKafkaOptions) {}

  ready(): Promise<void> { return this.readyPromise; }

  async run(handler: BatchHandler): Promise<void> {
    const c = this.kafka.consumer({
      groupId: this.options.groupId,
      maxWaitTimeInMs: this.options.background ? this.o.backgroundFetchMaxWaitMs : this.o.fetchMaxWaitMs,
      sessionTimeout: this.o.sessionTimeoutMs,
      heartbeatInterval: this.o.heartbeatIntervalMs,
      allowAutoTopicCreation: true,
      retry: { retries: 10 },
      ...(this.options.partitions ? { partitionAssigners: [fixedPartitions(this.options.partitions)] } : {}),
    });
    this.consumer = c;
    c.on(c.events.CRASH, (e) => {
      this.o.logger?.error({ group: this.options.groupId, err: e.payload.error, restart: e.payload.restart }, 'consumer crashed');
      if (e.payload.restart || this.stopped) return;
      const now = Date.now();
      this.crashes = [...this.crashes.filter((t) => now - t < 60_000), now];
      if (this.crashes.length >= 5) { this.o.onFatal?.(e.payload.error); return; }
      // kafkajs gives up on non-retriable errors (e.g. a broker answering SyncGroup with
      // an error during a rebalance): start a new member of the group
      setTimeout(() => {
        if (this.stopped) return;
        this.o.logger?.warn({ group: this.options.groupId }, 'starting a new consumer after a crash');
        void this.run(handler).catch((err: Error) => this.o.onFatal?.(err));
      }, 1000).unref();
    });
    c.on(c.events.GROUP_JOIN, (e) => {
      this.o.logger?.info({ group: this.options.groupId, assignment: e.payload.memberAssignment }, 'partitions assigned');
      // fetching restarts from the committed offsets: batches still in flight are delivered again
      this.offsets.clear();
      if (Object.keys(e.payload.memberAssignment).length > 0) this.readyResolve();
    });
    await c.connect();
    for (const topic of this.options.topics) await c.subscribe({ topic, fromBeginning: this.options.fromBeginning ?? false });
    const maxBatch = this.options.maxBatchSize ?? 500;
    const maxInFlight = Math.max(1, this.options.maxInFlightBatches ?? 1);
    await c.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: this.o.partitionsConsumedConcurrently,
      eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
        // paused: hold this batch (so its partition fetches nothing more) and keep heartbeating
        while (this.paused && isRunning()) {
          await new Promise<void>((r) => { this.waiters.push(r); setTimeout(r, this.o.heartbeatIntervalMs); });
          await heartbeat().catch(() => undefined);
        }
        const key = `${batch.topic}|${batch.partition}`;
        for (let start = 0; start < batch.messages.length && isRunning() && !isStale() && !this.paused; start += maxBatch) {
          const slice = batch.messages.slice(start, start + maxBatch);
          const first = Number(slice[0]!.offset);
          // fetched before the seek to a failed batch took effect: delivered again after it
          const admitted = this.offsets.admit(key, first);
          if (admitted.skip) return;
          if (admitted.waitMs > 0) await new Promise((r) => setTimeout(r, admitted.waitMs));
          const messages: ConsumedMessage[] = slice.map((m) => ({
            topic: batch.topic, partition: batch.partition, offset: Number(m.offset), key: m.key ? m.key.toString('utf8') : null,
            value: m.value ?? Buffer.alloc(0), headers: headersOf(m.headers), timestamp: Number(m.timestamp),
          }));
          const last = messages[messages.length - 1]!.offset;
          this.o.logger?.debug({ topic: batch.topic, partition: batch.partition, first, last, group: this.options.groupId, lagMs: Date.now() - messages[0]!.timestamp }, 'batch received');
          const { entry, list: tracked } = this.offsets.track(key, first, last);
          entry.settled = handler({ topic: batch.topic, partition: batch.partition, messages }).then(
            () => { entry.state = 'done'; },
            (err: unknown) => {
              entry.state = 'failed';
              this.o.logger?.warn({ err, group: this.options.groupId, topic: batch.topic, partition: batch.partition, offset: first }, 'batch failed; it will be delivered again');
            },
          ).then(() => this.advance(c, key, batch.topic, batch.partition, tracked));
          // kafkajs fetches on from here; the commit waits for the handler (advance)
          resolveOffset(String(last));
          // at most maxInFlight batches per partition: wait for the oldest, heartbeating
          // (not past the consumer's stop: kafkajs' disconnect waits for this batch call)
          while (tracked.length >= maxInFlight && this.offsets.current(key, tracked) && isRunning()) {
            await Promise.race([tracked[0]!.settled, new Promise((r) => setTimeout(r, this.o.heartbeatIntervalMs))]);
            await heartbeat().catch(() => undefined);
          }
        }
      },
    });
  }

  /** Commits the handled prefix of a partition's batches, and seeks back to a failed one. */
  private advance(c: KConsumer, key: string, topic: string, partition: number, list: InFlight[]): void {
    const { commit, seekTo } = this.offsets.settle(key, list);
    try {
      if (commit !== undefined && this.options.commitOffsets !== false) {
        this.toCommit.set(key, { topic, partition, offset: String(commit) });
        this.flushCommits(c);
      }
      if (seekTo !== undefined && !this.stopped) c.seek({ topic, partition, offset: String(seekTo) });
    } catch (err) {
      // e.g. a seek after the consumer stopped: the uncommitted batches are delivered again
      this.o.logger?.warn({ err, group: this.options.groupId, topic, partition }, 'could not commit or seek; uncommitted batches will be delivered again');
    }
  }

  /** Offsets to commit, per `<topic>|<partition>`, gathered while a commit is in flight. */
  private readonly toCommit = new Map<string, { topic: string; partition: number; offset: string }>();
  /** the OffsetCommit request in flight */
  private committing?: Promise<void>;

  /**
   * Sends the gathered offsets in one OffsetCommit request, at most one in flight per
   * consumer: offsets settled meanwhile wait for it, and a later offset of a partition
   * replaces an earlier one (issue 17: a worker under load sent one commit per consumed
   * batch, a fifth of its requests to the broker). Commits stay in offset order, and
   * each still follows its batch's handling, so a crash redelivers and never skips.
   */
  private flushCommits(c: KConsumer): void {
    if (this.committing || this.toCommit.size === 0) return;
    const offsets = [...this.toCommit.values()];
    this.toCommit.clear();
    this.committing = c.commitOffsets(offsets)
      .catch((err: Error) => this.o.logger?.warn({ err: err.message, group: this.options.groupId, offsets }, 'offset commit failed; the batches may be delivered again'))
      .finally(() => { this.committing = undefined; this.flushCommits(c); });
  }

  /** Resolves once no offset waits to be committed and no commit is in flight. */
  private async drainCommits(): Promise<void> {
    while (this.committing) await this.committing;
  }

  private paused = false;
  private waiters: Array<() => void> = [];

  /**
   * Stops consuming (backpressure): the next batch of every partition is held in the
   * batch loop, which keeps heartbeating, so nothing more is fetched. kafkajs' own
   * pause()/resume() is not used: a partition paused before its first commit is never
   * resumed (kafkajs issue #1599), which stalled partitions here.
   */
  pause(): void { this.paused = true; }
  /** Resumes after {@link pause}. */
  resume(): void { this.paused = false; for (const w of this.waiters.splice(0)) w(); }

  /** Leaves the group at once: nothing more is committed, batches in flight are delivered again. */
  abort(): void {
    this.stopped = true;
    this.paused = true;
    const c = this.consumer;
    this.consumer = undefined;
    void c?.disconnect().catch(() => undefined);
  }

  /** Holds new batches, waits for those in flight and their commits, then leaves the group. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.paused = true;
    await Promise.all(this.offsets.all().map((e) => e.settled));
    await this.drainCommits();
    await this.consumer?.disconnect();
    this.consumer = undefined;
  }
}

