/**
 * The billing consumer on the embedded log: usage messages go to the ledger once each,
 * and the usage of every partition that arrives while a ledger transaction is in flight
 * goes into the next one (group commit), so billing keeps up with a burst instead of
 * taking one message per partition per interval.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { BillingConsumer } from '../../services/billing/consumer.ts';
import { Ledger } from '../../services/billing/ledger.ts';
import type { UsageEvent } from '../../services/events/contract.ts';
import { AvroCodec } from '../../services/events/codec.ts';
import { topicsFor } from '../../services/events/topics.ts';
import { MemoryTransport } from '../../services/transport/memory.ts';
import { until } from '../helpers/service.ts';

const ev = (requestId: string, itemIndex: number): UsageEvent => ({
  eventId: `${requestId}:${itemIndex}`, requestId, itemIndex, keyId: 'k1', capability: 'language_id', model: 'lid-lite-608', unit: 'texts', quantity: 1, timestampMs: 1000,
});

/** A ledger whose transactions are counted, each taking at least `delayMs` (a slow database). */
async function slowLedger(delayMs: number): Promise<{ ledger: Ledger; transactions: () => number }> {
  const ledger = await Ledger.open(join(mkdtempSync(join(tmpdir(), 'billing-')), 'ledger.db'));
  let transactions = 0;
  const record = ledger.record.bind(ledger);
  ledger.record = async (events) => { transactions++; await new Promise((r) => setTimeout(r, delayMs)); return record(events); };
  return { ledger, transactions: () => transactions };
}

describe('BillingConsumer', () => {
  it('stores every usage event of every message once', async () => {
    const transport = new MemoryTransport({ defaultPartitions: 1 });
    const codec = new AvroCodec();
    const { ledger } = await slowLedger(0);
    const billing = new BillingConsumer(transport, codec, ledger, 'lmstream', pino({ level: 'silent' }), 1);
    await billing.start();
    const producer = transport.producer();
    // 10 usage messages of 2 events each (the second event of the last repeats the first's id)
    for (let i = 0; i < 10; i++) {
      const events = i === 9 ? [ev('r9', 0), ev('r0', 0)] : [ev(`r${i}`, 0), ev(`r${i}`, 1)];
      await producer.send(topicsFor('lmstream').usage, [{ key: 'k1', value: await codec.encode('common/usage', { events }) }]);
      await new Promise((r) => setTimeout(r, 10));
    }
    await until(async () => (await ledger.count()) === 19, 5000, 'ledger');
    await new Promise((r) => setTimeout(r, 100));
    expect(await ledger.count()).toBe(19);
    await billing.stop();
    await ledger.close();
  });

  it('writes the usage of every partition that arrives during a slow transaction in the next one (regression: billing fell behind a burst)', async () => {
    const transport = new MemoryTransport({ defaultPartitions: 4 });
    const codec = new AvroCodec();
    const { ledger, transactions } = await slowLedger(100);
    const billing = new BillingConsumer(transport, codec, ledger, 'lmstream', pino({ level: 'silent' }), 4);
    await billing.start();
    const producer = transport.producer();
    // 400 messages over 4 partitions, encoded first, then produced in 40 bursts 5 ms apart
    // while each transaction takes 100 ms
    const bursts = await Promise.all(Array.from({ length: 40 }, (_, burst) => Promise.all(Array.from({ length: 10 }, async (_, i) => ({
      partition: i % 4, value: await codec.encode('common/usage', { events: [ev(`b${burst}-${i}`, 0)] }),
    })))));
    const start = performance.now();
    for (const messages of bursts) {
      await producer.send(topicsFor('lmstream').usage, messages);
      await new Promise((r) => setTimeout(r, 5));
    }
    const producingMs = performance.now() - start;
    await until(async () => (await ledger.count()) === 400, 10_000, 'ledger');
    // a transaction per partition batch would be at least 40 (one per burst and partition
    // reached); grouped, one transaction starts per 100 ms of bursts, and a few more take
    // what arrived during the last (on an idle machine the bursts take about 250 ms: at most
    // 7). The bound follows how long producing took here, so a busy machine does not fail it.
    expect(transactions()).toBeLessThanOrEqual(Math.ceil(producingMs / 100) + 4);
    // the offsets are committed after the transaction that wrote them, so the lag reaches 0 just after the count
    await until(async () => (await transport.consumerLag('lmstream.billing', topicsFor('lmstream').usage)) === 0, 5_000, 'commit');
    await billing.stop();
    await ledger.close();
  });
});
