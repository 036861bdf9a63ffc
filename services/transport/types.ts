/**
 * The event transport: a Kafka-shaped interface (topics split into partitions,
 * messages with a key and headers, consumer groups, offsets committed after
 * processing). The embedded in-memory log (memory.ts) and the Kafka client implement
 * it; nothing outside services/transport depends on which one runs.
 */

/** A message to produce. `value` is an Avro-encoded event (see services/events/codec.ts). */
export interface OutgoingMessage {
  /** partitioning key: messages with the same key go to the same partition */
  key?: string | null;
  value: Buffer;
  headers?: Record<string, string>;
  /** explicit partition; overrides the key */
  partition?: number;
}

/** A consumed message with its position in the log. */
export interface ConsumedMessage {
  topic: string;
  partition: number;
  /** offset within the partition (0-based, monotonic) */
  offset: number;
  key: string | null;
  value: Buffer;
  headers: Record<string, string>;
  /** append time, ms since the epoch */
  timestamp: number;
}

/** Messages of one partition handed to a consumer at once, in offset order. */
export interface Batch {
  topic: string;
  partition: number;
  messages: ConsumedMessage[];
}

/**
 * Processes one batch. When the promise resolves, the offsets of every message in the
 * batch are committed (with `maxInFlightBatches` > 1, once every earlier batch of the
 * partition has resolved too); when it rejects, nothing from it on is committed and the
 * batch is delivered again.
 */
export type BatchHandler = (batch: Batch) => Promise<void>;

/** Consumer settings. */
export interface ConsumerOptions {
  /** consumer group: the partitions of the topics are shared among its members */
  groupId: string;
  topics: string[];
  /** where a group with no committed offset starts: the earliest message (true) or the next one appended (false, default) */
  fromBeginning?: boolean;
  /** most messages per batch (default 500) */
  maxBatchSize?: number;
  /**
   * Batches of one partition handed to the handler before the first of them has
   * finished (default 1: one at a time). Offsets are still committed in order, each
   * once its batch and all earlier ones are handled, so a crash redelivers and never
   * skips; a failed batch is delivered again with everything after it. For handlers
   * that need no order among messages (model workers). The embedded log hands out
   * one batch at a time whatever this says.
   */
  maxInFlightBatches?: number;
  /**
   * Manual assignment: only these partitions of the topics are consumed, all by one
   * member (for a group with a single member, such as a gateway's reply consumer).
   * Default: the group shares every partition.
   */
  partitions?: number[];
  /**
   * Off the request path (billing, heartbeats, control): the transport may favour fewer
   * fetches over latency.
   */
  background?: boolean;
  /**
   * false: the Kafka transport commits no offsets for this consumer, and a new member
   * starts where `fromBeginning` says. For messages worth nothing after a restart: a
   * gateway's replies, whose waiting requests ended with the process (issue 17: those
   * commits were a fifth of a gateway's requests to the broker). The embedded log still
   * records them, since there they let retention free the consumed messages. Default true.
   */
  commitOffsets?: boolean;
}

/** A producer. */
export interface Producer {
  /**
   * Appends messages to a topic; resolves once they are stored (acks=all on Kafka).
   * @throws TransportError when the log refuses the write
   */
  send(topic: string, messages: OutgoingMessage[]): Promise<void>;
  /** Appends messages to several topics in one call. */
  sendBatch(topicMessages: Array<{ topic: string; messages: OutgoingMessage[] }>): Promise<void>;
}

/** A member of a consumer group. */
export interface Consumer {
  /** Starts consuming; `handler` gets one batch per partition at a time (or `maxInFlightBatches`). */
  run(handler: BatchHandler): Promise<void>;
  /** Stops after in-flight batches finish (they are committed), then leaves the group. */
  stop(): Promise<void>;
  /**
   * Leaves at once without committing, as a crashed process would: batches in flight are
   * delivered again to the member that gets their partitions.
   */
  abort(): void;
  /** Resolves when the consumer has its first partition assignment. */
  ready(): Promise<void>;
  /** Stops fetching new batches (backpressure); batches in flight go on. */
  pause(): void;
  /** Fetches again after {@link pause}. */
  resume(): void;
}

/** Topic settings applied at start-up. */
export interface TopicSpec {
  name: string;
  partitions: number;
  /** ms a message is kept; default is the transport's */
  retentionMs?: number;
}

/** A transport. */
export interface Transport {
  /** Creates topics that do not exist yet (existing ones are left as they are). */
  ensureTopics(specs: TopicSpec[]): Promise<void>;
  producer(): Producer;
  consumer(options: ConsumerOptions): Consumer;
  /** Number of partitions of a topic (0 when it does not exist). */
  partitionCount(topic: string): Promise<number>;
  /**
   * Consumer lag: messages of `topic` after the offsets consumer group `groupId` has
   * committed (a group with no commit counts from the log start), over all partitions.
   * @throws TransportError when the log cannot be asked
   */
  consumerLag(groupId: string, topic: string): Promise<number>;
  close(): Promise<void>;
}

/** Error raised by a transport. */
export class TransportError extends Error {
  readonly code = 'TRANSPORT_ERROR';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TransportError';
  }
}

/**
 * Kafka's murmur2 hash (Apache Kafka `org.apache.kafka.common.utils.Utils.murmur2`,
 * seed 0x9747b28c), as a signed 32-bit integer.
 */
export function murmur2(data: Buffer): number {
  const m = 0x5bd1e995;
  let h = (0x9747b28c ^ data.length) | 0;
  const len4 = data.length & ~3;
  for (let i = 0; i < len4; i += 4) {
    let k = data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24);
    k = Math.imul(k, m); k ^= k >>> 24; k = Math.imul(k, m);
    h = Math.imul(h, m); h ^= k;
  }
  const rest = data.length & 3;
  if (rest === 3) h ^= data[len4 + 2]! << 16;
  if (rest >= 2) h ^= data[len4 + 1]! << 8;
  if (rest >= 1) { h ^= data[len4]!; h = Math.imul(h, m); }
  h ^= h >>> 13; h = Math.imul(h, m); h ^= h >>> 15;
  return h | 0;
}

/** Partition of a key as Kafka's default partitioner: `toPositive(murmur2(key)) % partitions`. */
export function partitionForKey(key: string, partitions: number): number {
  return (murmur2(Buffer.from(key, 'utf8')) & 0x7fffffff) % partitions;
}
