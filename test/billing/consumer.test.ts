/**
 * The billing consumer on the embedded log: usage messages (the events of a micro-batch
 * and key each) go to the ledger, and with a batch interval the usage that trickles in
 * meanwhile is written in fewer, larger transactions.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { BillingConsumer } from '../../services/billing/consumer.ts';
import { Ledger, type UsageEvent } from '../../services/billing/ledger.ts';
import { AvroCodec } from '../../services/events/codec.ts';
import { topicsFor } from '../../services/events/topics.ts';
import { MemoryTransport } from '../../services/transport/memory.ts';
import { until } from '../helpers/service.ts';

const ev = (requestId: string, itemIndex: number): UsageEvent => ({
  eventId: `${requestId}:${itemIndex}`, requestId, itemIndex, keyId: 'k1', capability: 'language_id', model: 'lid-lite-608', unit: 'texts', quantity: 1, timestampMs: 1000,
});

async function run(batchIntervalMs: number): Promise<{ transactions: number; stored: number }> {
  const transport = new MemoryTransport({ defaultPartitions: 1 });
  const codec = new AvroCodec();
  const ledger = await Ledger.open(join(mkdtempSync(join(tmpdir(), 'billing-')), 'ledger.db'));
  let transactions = 0;
  const record = ledger.record.bind(ledger);
  ledger.record = async (events) => { transactions++; return record(events); };
  const billing = new BillingConsumer(transport, codec, ledger, 'lmstream', pino({ level: 'silent' }), batchIntervalMs);
  await billing.start();
  const producer = transport.producer();
  // 10 usage messages of 2 events each, 30 ms apart (the second event of the last repeats the first's id)
  for (let i = 0; i < 10; i++) {
    const events = i === 9 ? [ev('r9', 0), ev('r0', 0)] : [ev(`r${i}`, 0), ev(`r${i}`, 1)];
    await producer.send(topicsFor('lmstream').usage, [{ key: 'k1', value: await codec.encode('common/usage', { events }) }]);
    await new Promise((r) => setTimeout(r, 30));
  }
  await until(async () => (await ledger.count()) === 19, 5000, 'ledger');
  const stored = await ledger.count();
  await billing.stop();
  await ledger.close();
  return { transactions, stored };
}

describe('BillingConsumer', () => {
  it('stores every usage event of every message once', async () => {
    expect((await run(0)).stored).toBe(19);
  });
  it('with a batch interval writes the usage that arrives meanwhile in fewer transactions', async () => {
    const plain = await run(0);
    const gathered = await run(400);
    // 10 messages over about 300 ms: one transaction per message without an interval, the
    // first message then the rest with one
    expect(plain.transactions).toBeGreaterThanOrEqual(5);
    expect(gathered.transactions).toBeLessThanOrEqual(3);
    expect(gathered.stored).toBe(19);
  });
});
