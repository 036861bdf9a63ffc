/**
 * The Kafka transport's producer: send() calls gathered into one acks=all sendBatch.
 */
import { CompressionTypes, type Producer as KProducer } from 'kafkajs';
import { type OutgoingMessage, type Producer, TransportError } from '../types.ts';
import type { ResolvedKafkaOptions } from './options.ts';
import type { StickyPartitioner } from './partitioner.ts';

/** A send() call waiting for its flush. */
interface Pending { topic: string; messages: OutgoingMessage[]; resolve(): void; reject(e: Error): void; }

/**
 * Gathers send() calls into one acks=all sendBatch. An idle producer (no produce request
 * awaiting its acknowledgement) sends what the current event-loop turn gathered at once;
 * while a request is in flight, messages gather until it is acknowledged or `lingerMs`
 * passed, whichever comes first (or `maxBatchMessages` are waiting). So a lone request
 * pays no linger, and under load batches grow with the broker's round trip (as Nagle's
 * algorithm does for TCP).
 */
export class LingerProducer implements Producer {
  private pending: Pending[] = [];
  private count = 0;
  private timer?: NodeJS.Timeout;
  private immediate?: NodeJS.Immediate;
  /** produce requests sent and not yet acknowledged */
  private inFlight = 0;
  private connected?: Promise<void>;

  constructor(private readonly producer: KProducer, private readonly o: ResolvedKafkaOptions, private readonly sticky: StickyPartitioner) {}

  private connect(): Promise<void> {
    this.connected ??= this.producer.connect();
    return this.connected;
  }

  send(topic: string, messages: OutgoingMessage[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ topic, messages, resolve, reject });
      this.count += messages.length;
      if (this.count >= this.o.maxBatchMessages) this.flush();
      else if (this.inFlight === 0) this.immediate ??= setImmediate(() => this.flush());
      else this.timer ??= setTimeout(() => this.flush(), this.o.lingerMs);
    });
  }

  async sendBatch(topicMessages: Array<{ topic: string; messages: OutgoingMessage[] }>): Promise<void> {
    await Promise.all(topicMessages.map((t) => this.send(t.topic, t.messages)));
  }

  private flush(): void {
    if (this.timer) { clearTimeout(this.timer); this.timer = undefined; }
    if (this.immediate) { clearImmediate(this.immediate); this.immediate = undefined; }
    const batch = this.pending;
    this.pending = [];
    this.count = 0;
    if (batch.length === 0) return;
    this.sticky.epoch++;
    const byTopic = new Map<string, OutgoingMessage[]>();
    for (const p of batch) {
      const list = byTopic.get(p.topic);
      if (list) list.push(...p.messages); else byTopic.set(p.topic, [...p.messages]);
    }
    this.inFlight++;
    const started = performance.now();
    this.connect()
      .then(() => this.producer.sendBatch({
        acks: -1,
        compression: this.o.compression === 'gzip' ? CompressionTypes.GZIP : CompressionTypes.None,
        topicMessages: [...byTopic].map(([topic, messages]) => ({
          topic,
          messages: messages.map((m) => ({
            key: m.key ?? null, value: m.value, headers: m.headers, partition: m.partition,
          })),
        })),
      }))
      .then(() => {
        this.o.logger?.debug({ messages: batch.reduce((n, p) => n + p.messages.length, 0), ms: Math.round(performance.now() - started) }, 'produced');
        for (const p of batch) p.resolve();
      })
      .catch((err: Error) => { const e = new TransportError(`produce failed: ${err.message}`, { cause: err }); for (const p of batch) p.reject(e); })
      .finally(() => {
        this.inFlight--;
        // what gathered meanwhile goes now rather than at its linger timer
        if (this.inFlight === 0 && this.pending.length > 0) this.flush();
      });
  }

  async close(): Promise<void> {
    this.flush();
    if (this.connected) await this.producer.disconnect();
  }
}
