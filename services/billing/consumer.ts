/**
 * The billing consumer: reads `<prefix>.usage` in consumer group `<prefix>.billing`
 * (each message holds usage events of one API key: a gateway's delivered answers, or a
 * worker's micro-batch of bulk items) and writes each consumed batch's events to the
 * ledger before its offsets are committed. A crash after the write and before the commit
 * redelivers the batch; the ledger ignores the replayed event ids, so nothing is counted
 * twice and nothing is lost.
 *
 * Ledger writes are group commits: the batches of every partition that arrive while a
 * transaction is in flight go together into the next one (as a database's group commit),
 * and up to {@link IN_FLIGHT_BATCHES} batches per partition are fetched before the
 * first is committed. So billing never waits for a timer: under a light load each
 * batch is written at once, under a heavy one each transaction holds more events (it
 * once took one message per partition every 200 ms and fell minutes behind a burst;
 * services/lib/group-commit.ts).
 */
import type { Logger } from 'pino';
import type { EventCodec } from '../events/codec.ts';
import { topicsFor } from '../events/topics.ts';
import { ledgerWrites } from '../lib/metrics.ts';
import type { Consumer, Transport } from '../transport/types.ts';
import type { UsageEvent } from '../events/contract.ts';
import type { Ledger } from './ledger.ts';
import { GroupCommit } from '../lib/group-commit.ts';

/** Consumed batches per usage partition that may wait for their ledger write at once. */
export const IN_FLIGHT_BATCHES = 16;

/** The consumer group of billing under a topic prefix. */
export const billingGroup = (prefix: string): string => `${prefix}.billing`;

/** See the module comment. */
export class BillingConsumer {
  private consumer?: Consumer;
  private readonly commit: GroupCommit<UsageEvent[]>;

  /** @param partitions partitions of the usage topic when billing creates it (TOPIC_PARTITIONS) */
  constructor(private readonly transport: Transport, private readonly codec: EventCodec, ledger: Ledger,
    private readonly prefix: string, private readonly log: Logger, private readonly partitions = 4) {
    // idle, a batch is written in the next event-loop turn; busy, what gathers meanwhile goes in the next transaction
    this.commit = new GroupCommit<UsageEvent[]>(async (groups) => {
      const { inserted, duplicates } = await ledger.record(groups.flat());
      ledgerWrites.inc({ outcome: 'inserted' }, inserted);
      if (duplicates > 0) { ledgerWrites.inc({ outcome: 'duplicate' }, duplicates); log.info({ duplicates }, 'replayed usage events ignored'); }
    });
  }

  /** Ledger transactions written so far. */
  get transactions(): number { return this.commit.transactions; }

  async start(): Promise<void> {
    const topic = topicsFor(this.prefix).usage;
    await this.transport.ensureTopics([{ name: topic, partitions: this.partitions }]);
    this.consumer = this.transport.consumer({ groupId: billingGroup(this.prefix), topics: [topic], fromBeginning: true, background: true, maxInFlightBatches: IN_FLIGHT_BATCHES });
    await this.consumer.run(async (batch) => {
      const events: UsageEvent[] = [];
      for (const m of batch.messages) {
        try { events.push(...(await this.codec.decode('common/usage', m.value)).events); } catch (err) {
          this.log.error({ err, partition: m.partition, offset: m.offset }, 'undecodable usage message skipped');
        }
      }
      if (events.length > 0) await this.commit.write(events);
    });
  }

  async stop(): Promise<void> { await this.consumer?.stop(); }
}
