/**
 * The embedded transport: an in-memory partitioned log with consumer groups, for one
 * process. Same semantics as Kafka where the pipeline relies on them: per-partition
 * order, a partition owned by one member of a group at a time, offsets committed only
 * after the handler resolves, redelivery from the committed offset when a member
 * leaves or its handler fails, time- and size-based retention. Unlike Kafka, a data topic
 * drops what every live consumer group has committed (nobody in the one process reads it
 * again; see MemoryTransport.committedOn).
 */
import { EventEmitter } from 'node:events';
import {
  type Batch, type BatchHandler, type ConsumedMessage, type Consumer, type ConsumerOptions,
  type OutgoingMessage, type Producer, type TopicSpec, type Transport, partitionForKey,
} from './types.ts';

/** Options of the in-memory log. */
export interface MemoryTransportOptions {
  /** partitions of a topic created on first produce (default 4) */
  defaultPartitions?: number;
  /** default retention, ms (default 1 hour) */
  retentionMs?: number;
  /** most messages kept per partition (default 200,000; trimmed a tenth at a time, see trim) */
  maxMessagesPerPartition?: number;
  /**
   * most bytes (values, keys and headers) kept per partition once every live consumer
   * group has committed them (default 32 MiB; Kafka's `retention.bytes`, but never
   * dropping what a group still has to read), so that a burst does not stay in memory
   * for the time retention. A data topic that live groups read keeps none of what they
   * all committed (see MemoryTransport.committedOn).
   */
  maxBytesPerPartition?: number;
  /** how often every partition is trimmed, also those nobody appends to, ms (default 10 s; 0: only on append) */
  trimIntervalMs?: number;
}

interface Partition { base: number; messages: ConsumedMessage[]; bytes: number; }
/**
 * `ownRetention`: created with a retention of its own (the control-plane topics: heartbeats,
 * warm-ups, cancellations), kept for it whoever has read them; the others are data topics
 * (see {@link MemoryTransport.committedOn}).
 */
interface Topic { name: string; partitions: Partition[]; retentionMs: number; ownRetention: boolean; }

class Group {
  readonly members: MemoryConsumer[] = [];
  readonly committed = new Map<string, number>();
  generation = 0;
  constructor(readonly id: string) {}
}

/** In-memory transport; see the module comment. */
export class MemoryTransport implements Transport {
  private readonly topics = new Map<string, Topic>();
  private readonly groups = new Map<string, Group>();
  /** emits `append:<topic>` and `rebalance:<group>` */
  readonly events = new EventEmitter();
  private roundRobin = 0;
  readonly options: Required<MemoryTransportOptions>;

  constructor(options: MemoryTransportOptions = {}) {
    this.options = { defaultPartitions: 4, retentionMs: 3_600_000, maxMessagesPerPartition: 200_000, maxBytesPerPartition: 32 * 1024 * 1024, trimIntervalMs: 10_000, ...options };
    this.events.setMaxListeners(0);
    if (this.options.trimIntervalMs > 0) {
      this.trimTimer = setInterval(() => this.trimAll(), this.options.trimIntervalMs);
      this.trimTimer.unref();
    }
  }

  private trimTimer?: NodeJS.Timeout;

  /** Applies retention to every partition (a burst's messages go even when nothing more is appended). */
  trimAll(): void {
    const now = Date.now();
    for (const t of this.topics.values()) for (const part of t.partitions) this.trim(t, part, now);
  }

  async ensureTopics(specs: TopicSpec[]): Promise<void> {
    for (const s of specs) this.topic(s.name, s.partitions, s.retentionMs);
  }

  async partitionCount(topic: string): Promise<number> {
    return this.topics.get(topic)?.partitions.length ?? 0;
  }

  /** @internal the topic, created when missing */
  topic(name: string, partitions = this.options.defaultPartitions, retentionMs?: number): Topic {
    let t = this.topics.get(name);
    if (!t) {
      t = { name, retentionMs: retentionMs ?? this.options.retentionMs, ownRetention: retentionMs !== undefined, partitions: Array.from({ length: partitions }, () => ({ base: 0, messages: [], bytes: 0 })) };
      this.topics.set(name, t);
      for (const g of this.groups.values()) if (g.members.some((m) => m.options.topics.includes(name))) this.rebalance(g);
    }
    return t;
  }

  /** @internal appends to the log */
  append(topicName: string, messages: OutgoingMessage[]): void {
    const t = this.topic(topicName);
    const now = Date.now();
    for (const m of messages) {
      const p = m.partition ?? (m.key != null ? partitionForKey(m.key, t.partitions.length) : this.roundRobin++ % t.partitions.length);
      const part = t.partitions[p];
      if (!part) throw new RangeError(`partition ${p} of topic ${topicName} does not exist`);
      const stored: ConsumedMessage = {
        topic: topicName, partition: p, offset: part.base + part.messages.length, key: m.key ?? null,
        value: m.value, headers: { ...(m.headers ?? {}) }, timestamp: now,
      };
      part.messages.push(stored);
      part.bytes += sizeOf(stored);
      this.trim(t, part, now);
    }
    this.events.emit(`append:${topicName}`);
  }

  /**
   * Drops messages beyond the size limit or older than retention, a tenth of the
   * partition at a time rather than one per append (as Kafka deletes whole segments):
   * dropping the head of an array moves the rest, so trimming one message per append
   * made every append O(partition size) once a partition was full (the embedded batch
   * row of `npm run bench`, run after 2 s of warm-up when the gateway's one reply
   * partition had passed 200,000 messages: 9,024 texts/s before, 19,923 after). A partition holds at most a tenth more than
   * `maxMessagesPerPartition`, and a message may outlive retention until a tenth of the
   * partition has.
   */
  private trim(t: Topic, part: Partition, now: number): void {
    const msgs = part.messages;
    if (msgs.length === 0) return;
    const max = this.options.maxMessagesPerPartition;
    let drop = msgs.length - max >= Math.max(1, Math.floor(max / 10)) ? msgs.length - max : 0;
    const chunk = Math.max(1, Math.floor(msgs.length / 10));
    // no closure here: this runs per append, and tsx (keepNames) names each closure made
    const oldest = now - t.retentionMs;
    if (chunk <= msgs.length && msgs[chunk - 1]!.timestamp < oldest) {
      // messages are in time order: at least `chunk` have expired
      drop = Math.max(drop, chunk);
      while (drop < msgs.length && msgs[drop]!.timestamp < oldest) drop++;
    }
    // bytes: the oldest messages go until a tenth under the limit, once it is passed, but
    // only those every live consumer group has committed (a crash in one process loses
    // the whole log anyway, so size retention here only frees what was consumed)
    const maxBytes = this.options.maxBytesPerPartition;
    if (part.bytes > maxBytes) {
      const consumed = this.committedFloor(t.name, msgs[0]!.partition) - part.base;
      let bytes = part.bytes;
      for (let i = 0; i < drop; i++) bytes -= sizeOf(msgs[i]!);
      while (drop < Math.min(msgs.length - 1, consumed) && bytes > maxBytes * 0.9) bytes -= sizeOf(msgs[drop++]!);
    }
    if (drop > 0) {
      for (const m of msgs.splice(0, drop)) part.bytes -= sizeOf(m);
      part.base += drop;
    }
  }

  /** The lowest offset committed on a partition by a consumer group with live members (end offset when none). */
  private committedFloor(topic: string, partition: number): number {
    const part = this.topics.get(topic)!.partitions[partition]!;
    return this.liveFloor(topic, partition) ?? part.base + part.messages.length;
  }

  /**
   * The lowest offset committed on a partition by the consumer groups with live members
   * subscribing to its topic that have committed there (a group is given its start
   * offset when a member is assigned the partition); undefined when there is none.
   */
  private liveFloor(topic: string, partition: number): number | undefined {
    const key = `${topic}:${partition}`;
    let floor: number | undefined;
    for (const g of this.groups.values()) {
      if (g.members.length === 0 || !g.members.some((m) => m.options.topics.includes(topic))) continue;
      const c = g.committed.get(key);
      if (c !== undefined && (floor === undefined || c < floor)) floor = c;
    }
    return floor;
  }

  /**
   * @internal a consumer group committed on a partition. A data topic (created without a
   * retention of its own: requests, replies, usage, outcomes) then drops what every live
   * consumer group subscribing to it has committed, once that is a tenth of the partition
   * (amortised as {@link trim}): in one process nobody reads those messages again (a
   * restart loses the whole log), and kept for the time or size retention they filled the
   * old generation of the heap. On the embedded single route that was about 3 MB of
   * objects a second surviving a full collection (a sampling heap profile); dropping
   * them gave the single route 6–12 % more requests/s for 7–11 % less CPU per request in
   * two A/B series, and the batch route no measurable change (issue 17; docs/benchmarks.md).
   * A topic with no live consumer group (the dead-letter topic) keeps time and size retention.
   */
  committedOn(topic: string, partition: number): void {
    const t = this.topics.get(topic);
    const part = t?.partitions[partition];
    if (!t || t.ownRetention || !part || part.messages.length === 0) return;
    const floor = this.liveFloor(topic, partition);
    if (floor === undefined) return;
    const drop = Math.min(part.messages.length, floor - part.base);
    if (drop < Math.max(1, Math.floor(part.messages.length / 10))) return;
    for (const m of part.messages.splice(0, drop)) part.bytes -= sizeOf(m);
    part.base += drop;
  }

  /** @internal messages of a partition from `offset`, at most `max` */
  read(topic: string, partition: number, offset: number, max: number): ConsumedMessage[] {
    const part = this.topics.get(topic)?.partitions[partition];
    if (!part) return [];
    const from = Math.max(0, offset - part.base);
    return part.messages.slice(from, from + max);
  }

  /** @internal log end offset of a partition */
  endOffset(topic: string, partition: number): number {
    const part = this.topic(topic).partitions[partition]!;
    return part.base + part.messages.length;
  }

  /** @internal log start offset */
  startOffset(topic: string, partition: number): number {
    return this.topic(topic).partitions[partition]!.base;
  }

  async consumerLag(groupId: string, topic: string): Promise<number> {
    const t = this.topics.get(topic);
    if (!t) return 0;
    const g = this.groups.get(groupId);
    let lag = 0;
    t.partitions.forEach((part, p) => {
      const end = part.base + part.messages.length;
      lag += end - Math.max(g?.committed.get(`${topic}:${p}`) ?? part.base, part.base);
    });
    return lag;
  }

  async close(): Promise<void> {
    if (this.trimTimer) clearInterval(this.trimTimer);
    this.events.removeAllListeners();
  }

  producer(): Producer {
    return {
      send: async (topic, messages) => { this.append(topic, messages); },
      sendBatch: async (items) => { for (const { topic, messages } of items) this.append(topic, messages); },
    };
  }

  consumer(options: ConsumerOptions): Consumer {
    return new MemoryConsumer(this, options);
  }

  /** @internal */
  join(c: MemoryConsumer): Group {
    let g = this.groups.get(c.options.groupId);
    if (!g) { g = new Group(c.options.groupId); this.groups.set(g.id, g); }
    g.members.push(c);
    for (const topic of c.options.topics) {
      const t = this.topic(topic);
      t.partitions.forEach((_, p) => {
        const k = `${topic}:${p}`;
        if (!g!.committed.has(k)) g!.committed.set(k, c.options.fromBeginning ? this.startOffset(topic, p) : this.endOffset(topic, p));
      });
    }
    this.rebalance(g);
    return g;
  }

  /** @internal */
  leave(c: MemoryConsumer): void {
    const g = this.groups.get(c.options.groupId);
    if (!g) return;
    const i = g.members.indexOf(c);
    if (i >= 0) g.members.splice(i, 1);
    this.rebalance(g);
  }

  /**
   * Round-robin assignment of every partition of the group's topics (Kafka's
   * RoundRobinAssignor), or, when the members name `partitions`, only those (manual
   * assignment, as the Kafka transport's fixed-partition assigner).
   */
  private rebalance(g: Group): void {
    g.generation++;
    const all: Array<[string, number]> = [];
    const topics = [...new Set(g.members.flatMap((m) => m.options.topics))].sort();
    const chosen = g.members[0]?.options.partitions;
    for (const name of topics) {
      const t = this.topic(name);
      t.partitions.forEach((_, p) => {
        if (chosen && !chosen.includes(p)) return;
        all.push([name, p]);
        const k = `${name}:${p}`;
        if (!g.committed.has(k)) g.committed.set(k, this.startOffset(name, p));
      });
    }
    g.members.forEach((m) => m.assign([], g.generation));
    if (g.members.length > 0) {
      const per: Array<Array<[string, number]>> = g.members.map(() => []);
      all.forEach((tp, i) => per[chosen ? 0 : i % g.members.length]!.push(tp));
      g.members.forEach((m, i) => m.assign(per[i]!, g.generation));
    }
  }
}

/** Bytes a stored message counts for size retention: value, key and headers (UTF-16 lengths as bytes). */
function sizeOf(m: ConsumedMessage): number {
  let n = m.value.length + (m.key?.length ?? 0) + 64;
  for (const k in m.headers) n += k.length + m.headers[k]!.length;
  return n;
}

/** A partition's batches handed out and not yet committed, in offset order. */
interface PartitionFlight {
  /** next offset to hand out */
  next: number;
  batches: Array<{ end: number; state: 'running' | 'done' | 'failed'; promise: Promise<void> }>;
  /** a batch failed: nothing more is handed out until the partition's batches settle, then it starts again from the commit */
  failed: boolean;
  /** group generation it was handed out in: after a rebalance the partition starts again from the commit */
  generation: number;
}

class MemoryConsumer implements Consumer {
  private group?: Group;
  private assignment: Array<[string, number]> = [];
  private generation = -1;
  private readonly inFlight = new Map<string, PartitionFlight>();
  private handler?: BatchHandler;
  private running = false;
  private wake?: () => void;
  private readyResolve!: () => void;
  private readonly readyPromise = new Promise<void>((r) => (this.readyResolve = r));
  private loop?: Promise<void>;
  private readonly onAppend = () => this.wake?.();

  constructor(private readonly log: MemoryTransport, readonly options: ConsumerOptions) {}

  assign(partitions: Array<[string, number]>, generation: number): void {
    this.assignment = partitions;
    this.generation = generation;
    if (partitions.length > 0) this.readyResolve();
    this.wake?.();
  }

  ready(): Promise<void> { return this.readyPromise; }

  private paused = false;
  /** stopping: nothing more is handed out */
  private draining = false;
  pause(): void { this.paused = true; }
  resume(): void { this.paused = false; this.wake?.(); }

  async run(handler: BatchHandler): Promise<void> {
    this.handler = handler;
    this.running = true;
    for (const t of this.options.topics) this.log.events.on(`append:${t}`, this.onAppend);
    this.group = this.log.join(this);
    this.loop = this.poll();
  }

  /**
   * Hands out batches: per partition up to `maxInFlightBatches` at once (as the Kafka
   * transport), each from where the last one ended; a partition's offsets are committed
   * in order, each once its batch and every earlier one are done. A failed batch is
   * delivered again with everything after it, after a 100 ms back-off.
   */
  private async poll(): Promise<void> {
    const max = this.options.maxBatchSize ?? 500;
    const maxInFlight = Math.max(1, this.options.maxInFlightBatches ?? 1);
    while (this.running) {
      let started = false;
      for (const [topic, partition] of this.paused ? [] : this.assignment) {
        const k = `${topic}:${partition}`;
        let f = this.inFlight.get(k);
        if (f && f.generation !== this.generation) {
          if (f.batches.length > 0) continue;
          this.inFlight.delete(k);
          f = undefined;
        }
        if (this.draining || (f && (f.failed || f.batches.filter((b) => b.state === 'running').length >= maxInFlight))) continue;
        const committed = Math.max(this.group!.committed.get(k) ?? 0, this.log.startOffset(topic, partition));
        const from = f ? Math.max(f.next, this.log.startOffset(topic, partition)) : committed;
        const messages = this.log.read(topic, partition, from, max);
        if (messages.length === 0) continue;
        started = true;
        if (!f) { f = { next: from, batches: [], failed: false, generation: this.generation }; this.inFlight.set(k, f); }
        const flight = f;
        const generation = this.generation;
        const batch: Batch = { topic, partition, messages };
        const end = messages[messages.length - 1]!.offset + 1;
        flight.next = end;
        const entry = { end, state: 'running' as 'running' | 'done' | 'failed', promise: Promise.resolve() };
        flight.batches.push(entry);
        entry.promise = this.handler!(batch).then(
          () => { entry.state = 'done'; },
          (err: unknown) => {
            entry.state = 'failed';
            flight.failed = true;
            this.log.events.emit('handler-error', err, batch);
          },
        ).then(() => {
          // commit the done prefix (a member that lost the partition in a rebalance must not: Kafka's CommitFailedException)
          let committed = false;
          while (flight.batches[0]?.state === 'done') {
            const done = flight.batches.shift()!;
            if (this.running && generation === this.group!.generation) { this.group!.committed.set(k, done.end); committed = true; }
          }
          if (committed) this.log.committedOn(topic, partition);
          if (flight.batches.every((b) => b.state !== 'running') && (flight.failed || flight.batches.length === 0)) {
            const retry = flight.failed;
            // start again from the commit: a failed batch and the ones after it are delivered again
            if (this.inFlight.get(k) === flight) {
              if (retry) return new Promise<void>((r) => setTimeout(r, 100)).then(() => { if (this.inFlight.get(k) === flight) this.inFlight.delete(k); });
              this.inFlight.delete(k);
            }
          }
          return undefined;
        }).finally(() => this.wake?.());
      }
      if (!started) {
        await new Promise<void>((r) => {
          // woken by an append, a finished batch or an assignment; else looks again after 1 s.
          // It looks in the event loop's check phase (setImmediate), not at once: the
          // requests parsed in one poll phase are appended one by one, and this way they
          // go out as one batch rather than one batch each (issue 17)
          const timer = setTimeout(r, 1000);
          let woken = false;
          this.wake = () => { if (woken) return; woken = true; clearTimeout(timer); setImmediate(r); };
        });
      } else await new Promise<void>((r) => setImmediate(r));
      this.wake = undefined;
    }
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.draining = true;
    await Promise.all([...this.inFlight.values()].flatMap((f) => f.batches.map((b) => b.promise)));
    this.halt();
    await this.loop;
  }

  /**
   * Leaves the group at once, as a crashed process would: batches in flight are not
   * committed and are delivered again to the member that gets their partition.
   */
  abort(): void {
    this.halt();
  }

  private halt(): void {
    this.running = false;
    for (const t of this.options.topics) this.log.events.off(`append:${t}`, this.onAppend);
    this.log.leave(this);
    this.wake?.();
  }
}

export type { MemoryConsumer };
