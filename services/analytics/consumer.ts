/**
 * The analytics consumer (issue 16): reads `<prefix>.outcomes` in its own consumer group
 * `<prefix>.analytics` and folds each consumed batch's outcome events into the analytics
 * store (./store.ts) before its offsets are committed; a replay after a crash is counted
 * once (the store keeps each partition's next offset in the same transaction). Undecodable messages are skipped and
 * logged. Retention runs at start and every {@link RETENTION_EVERY_MS}.
 */
import { setImmediate } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { EventCodec } from '../events/codec.ts';
import type { OutcomeEvent } from '../events/contract.ts';
import { outcomeEventsOf } from '../events/outcomes.ts';
import { topicsFor } from '../events/topics.ts';
import type { Consumer, Transport } from '../transport/types.ts';
import { RETENTION, type AnalyticsStore } from './store.ts';

/** The consumer group of analytics under a topic prefix. */
export const analyticsGroup = (prefix: string): string => `${prefix}.analytics`;
/** How often retention runs, ms. */
export const RETENTION_EVERY_MS = 3_600_000;

/** See the module comment. */
export class AnalyticsConsumer {
  private consumer?: Consumer;
  private timer?: NodeJS.Timeout;

  /** @param partitions partitions of the outcomes topic when analytics creates it (TOPIC_PARTITIONS) */
  constructor(private readonly transport: Transport, private readonly codec: EventCodec, readonly store: AnalyticsStore,
    private readonly prefix: string, private readonly log: Logger, private readonly partitions = 4,
    private readonly retention: { minutesMs: number; hoursMs: number } = RETENTION) {}

  async start(): Promise<void> {
    const topic = topicsFor(this.prefix).outcomes;
    await this.transport.ensureTopics([{ name: topic, partitions: this.partitions }]);
    const retain = () => this.store.applyRetention(Date.now(), this.retention)
      .then((r) => { if (r.rolledUp + r.hoursDeleted > 0) this.log.info(r, 'analytics retention applied'); })
      .catch((err: unknown) => this.log.warn({ err }, 'analytics retention failed; it runs again in an hour'));
    await retain();
    this.timer = setInterval(() => void retain(), RETENTION_EVERY_MS);
    this.timer.unref();
    this.consumer = this.transport.consumer({ groupId: analyticsGroup(this.prefix), topics: [topic], fromBeginning: true, background: true, maxInFlightBatches: 1 });
    await this.consumer.run(async (batch) => {
      const messages: Array<{ offset: number; events: OutcomeEvent[] }> = [];
      for (const m of batch.messages) {
        // the event loop runs between messages (each up to 500 events to decode)
        if (messages.length > 0) await setImmediate();
        try { messages.push({ offset: m.offset, events: outcomeEventsOf(await this.codec.decode('common/outcome', m.value)) }); } catch (err) {
          this.log.error({ err, partition: m.partition, offset: m.offset }, 'undecodable outcome message skipped');
          messages.push({ offset: m.offset, events: [] });
        }
      }
      await this.store.recordBatch(batch.topic, batch.partition, messages);
    });
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.consumer?.stop();
  }
}
