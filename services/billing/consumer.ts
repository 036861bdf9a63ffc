/**
 * The billing consumer: reads `<prefix>.usage` in consumer group `<prefix>.billing`
 * (each message holds the usage events of one micro-batch and API key) and writes each
 * consumed batch's events to the ledger before its offsets are committed. A crash after
 * the write and before the commit redelivers the batch; the ledger ignores the replayed
 * event ids, so nothing is counted twice and nothing is lost.
 */
import type { Logger } from 'pino';
import type { EventCodec } from '../events/codec.ts';
import { topicsFor } from '../events/topics.ts';
import { ledgerWrites } from '../lib/metrics.ts';
import type { Consumer, Transport } from '../transport/types.ts';
import type { Ledger, UsageEvent, UsageEvents } from './ledger.ts';

/** See the module comment. */
export class BillingConsumer {
  private consumer?: Consumer;
  /**
   * @param batchIntervalMs least time between two consumed batches of a partition (ms):
   *   fewer fetches and ledger transactions, each with more events, for usage that lags
   *   by up to this long (BILLING_BATCH_INTERVAL_MS)
   */
  constructor(private readonly transport: Transport, private readonly codec: EventCodec, private readonly ledger: Ledger,
    private readonly prefix: string, private readonly log: Logger, private readonly batchIntervalMs = 0) {}

  async start(): Promise<void> {
    const topic = topicsFor(this.prefix).usage;
    await this.transport.ensureTopics([{ name: topic, partitions: 4 }]);
    this.consumer = this.transport.consumer({ groupId: `${this.prefix}.billing`, topics: [topic], fromBeginning: true, background: true });
    await this.consumer.run(async (batch) => {
      const t0 = Date.now();
      const events: UsageEvent[] = [];
      for (const m of batch.messages) {
        try { events.push(...(await this.codec.decode<UsageEvents>('common/usage', m.value)).events); } catch (err) {
          this.log.error({ err, partition: m.partition, offset: m.offset }, 'undecodable usage message skipped');
        }
      }
      const { inserted, duplicates } = await this.ledger.record(events);
      ledgerWrites.inc({ outcome: 'inserted' }, inserted);
      if (duplicates > 0) { ledgerWrites.inc({ outcome: 'duplicate' }, duplicates); this.log.info({ duplicates }, 'replayed usage events ignored'); }
      // hold the partition until the interval is over: usage gathers in the log meanwhile,
      // so the next batch (one fetch, one transaction) holds more of it
      const rest = this.batchIntervalMs - (Date.now() - t0);
      if (rest > 0) await new Promise((r) => setTimeout(r, rest));
    });
  }

  async stop(): Promise<void> { await this.consumer?.stop(); }
}
