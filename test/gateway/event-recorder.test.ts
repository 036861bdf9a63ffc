/**
 * The gateway's event recorders (services/gateway/event-recorder.ts): an event that its
 * schema cannot encode is dropped, counted and logged with its request id, and the rest of
 * its batch is written; it is never tried again (issue 33, A: one such event held back
 * every outcome event of the gateway, retried every second forever).
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { AvroCodec } from '../../services/events/codec.ts';
import type { OutcomeEvent } from '../../services/events/contract.ts';
import { outcomeEventsOf } from '../../services/events/outcomes.ts';
import { OutcomeRecorder } from '../../services/gateway/outcome-recorder.ts';
import { outcomeEvents } from '../../services/lib/metrics.ts';
import { MemoryTransport } from '../../services/transport/memory.ts';
import { until } from '../helpers/service.ts';

const event = (requestId: string, keyId: string, model: unknown): OutcomeEvent => ({
  requestId, itemIndex: 0, keyId, source: 'gateway', capability: 'language-id', model: model as string, status: 200, code: null,
  items: 1, billable: 1, queueMs: 1, inferenceMs: 1, totalMs: 2, label: null, confidenceBucket: null, timestampMs: Date.now(),
});
const count = async (outcome: string) => (await outcomeEvents.get()).values.filter((v) => v.labels.outcome === outcome).reduce((n, v) => n + v.value, 0);

describe('EventRecorder', () => {
  it('writes the events of a batch that encode, and drops, counts and logs the one that does not, once', async () => {
    const transport = new MemoryTransport({ defaultPartitions: 1 });
    const codec = new AvroCodec();
    const lines: Array<Record<string, unknown>> = [];
    const log = pino({ level: 'info' }, new Writable({ write(chunk, _enc, cb) { for (const l of String(chunk).split('\n')) if (l) lines.push(JSON.parse(l)); cb(); } }));
    const recorder = new OutcomeRecorder(transport.producer(), codec, 'outcomes', log, 10);
    const [written, invalid] = [await count('written'), await count('invalid')];
    // one key's batch holds the bad event among good ones; another key's batch is all good
    recorder.record([event('a1', 'k1', 'lid-lite-608'), event('bad', 'k1', 123), event('a2', 'k1', null), event('b1', 'k2', 'lid-neural-608')]);
    const read = () => transport.read('outcomes', 0, 0, 100);
    await until(async () => (await count('written')) - written === 3, undefined, 'the 3 good events written');
    const stored = (await Promise.all(read().map(async (m) => outcomeEventsOf(await codec.decode('common/outcome', m.value))))).flat();
    expect(stored.map((e) => e.requestId).sort()).toEqual(['a1', 'a2', 'b1']);
    expect((await count('invalid')) - invalid).toBe(1);
    expect(lines.filter((l) => l.requestId === 'bad').map((l) => l.msg)).toEqual(['an event (outcome events) that its schema cannot encode was dropped']);
    // nothing is tried again: later events are written on their own
    recorder.record([event('c1', 'k1', 'lid-lite-608')]);
    await until(async () => (await count('written')) - written === 4, undefined, 'the later event written');
    expect(recorder.pending).toBe(0);
    expect((await count('invalid')) - invalid).toBe(1);
    await recorder.close();
    await transport.close();
  });
});
