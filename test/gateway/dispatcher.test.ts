/**
 * The dispatcher (issue 12, item 9), on the embedded log with a stand-in worker that
 * answers from the request topic: the request events and their headers (a batch's items
 * together, issue 17), results in order, usage noted for billing at delivery, and
 * cancellation when the client goes away.
 */
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { AvroCodec } from '../../services/events/codec.ts';
import { failed } from '../../services/events/results.ts';
import { H, topicsFor } from '../../services/events/topics.ts';
import { Correlator } from '../../services/gateway/correlator.ts';
import { Dispatcher, ITEMS_PER_EVENT, type DispatchContext } from '../../services/gateway/dispatcher.ts';
import { LiveWorkers } from '../../services/gateway/live-workers.ts';
import { RequestEnd } from '../../services/gateway/request-end.ts';
import { MemoryTransport } from '../../services/transport/memory.ts';
import type { Consumer, ConsumedMessage } from '../../services/transport/types.ts';
import { until } from '../helpers/service.ts';

const codec = new AvroCodec();
const topics = topicsFor('t');
const stops: Array<() => Promise<void>> = [];
afterEach(async () => { for (const s of stops.splice(0)) await s(); });

/** A dispatcher over an embedded log, a heartbeat saying lid-lite-608 is served, and a worker stand-in answering with `answer`. */
async function setup(answer: (m: ConsumedMessage, text: string) => Promise<Buffer | null>) {
  const transport = new MemoryTransport({ defaultPartitions: 1 });
  const log = pino({ level: 'silent' });
  const correlator = new Correlator(transport, codec, topics.replies('g1'), 'g1', log);
  const live = new LiveWorkers(transport, codec, topics.workers, 'live', 10_000);
  await Promise.all([correlator.start(), live.start()]);
  await transport.producer().send(topics.workers, [{ value: await codec.encode('control/worker-status', {
    instanceId: 'w', capability: 'language-id', timestampMs: Date.now(), stopping: false, models: [{ name: 'lid-lite-608', installed: true, loaded: true, queueDepth: 0 }],
  }) }]);
  await until(() => live.canServe('language-id', 'lid-lite-608'), 2000, 'heartbeat');
  const seen: ConsumedMessage[] = [];
  const worker: Consumer = transport.consumer({ groupId: 'stand-in', topics: [topics.requests('language-id')], fromBeginning: true });
  await worker.run(async (b) => {
    for (const m of b.messages) {
      seen.push(m);
      const headers = { [H.correlationId]: m.headers[H.correlationId]!, [H.capability]: 'language-id' };
      if (m.headers[H.items] === undefined) {
        const { text } = await codec.decode('language-id/request', m.value);
        const value = await answer(m, text);
        if (value) await transport.producer().send(m.headers[H.replyTopic]!, [{ partition: 0, value, headers }]);
        continue;
      }
      // a several-item event: each item answered in a result event of its own, last item first
      const { items } = await codec.decode('language-id/requests', m.value);
      for (let index = items.length - 1; index >= 0; index--) {
        const value = await answer(m, items[index]!.text);
        if (!value) continue;
        const result = await codec.decode('language-id/result', value);
        await transport.producer().send(m.headers[H.replyTopic]!, [{ partition: 0, value: await codec.encode('language-id/results', { items: [{ index, result }] }), headers: { ...headers, [H.items]: m.headers[H.items]! } }]);
      }
    }
  });
  stops.push(async () => { await worker.stop(); await correlator.stop(); await live.stop(); });
  return { transport, seen, dispatcher: new Dispatcher(transport.producer(), codec, correlator, live, topics), correlator };
}

const ctx = (end?: RequestEnd): DispatchContext => ({ requestId: 'req-1', keyId: 'key-1', deadline: Date.now() + 600_000, log: pino({ level: 'silent' }), end, usage: [], outcomes: [], nextItem: 0 });
const input = (text: string) => ({ text, model: 'lid-lite-608', mode: 'traffic' as const, topK: 1, candidates: null });
const output = (text: string) => ({ language: text, script: 'Latn', label: `${text}_Latn`, languageName: text, confidence: 1, top: [], warnings: [], text: null });

describe('Dispatcher', () => {
  it('writes a batch\'s items in one event with the routing headers, returns results in order and notes the successful ones for billing', async () => {
    const { dispatcher, seen } = await setup(async (_m, text) => codec.encode('language-id/result', text === 'bad' ? failed('INVALID_REQUEST', 'no') : { output: output(text), failure: null }));
    const c = ctx();
    const results = await dispatcher.dispatch<{ language: string }>('language-id', 'lid-lite-608', [input('eng'), input('bad'), input('fra')], c);
    expect(results.map((r) => r.output?.language ?? r.failure?.code)).toEqual(['eng', 'INVALID_REQUEST', 'fra']);
    expect(seen.map((m) => m.headers[H.correlationId])).toEqual(['req-1:0']);
    expect(seen[0]!.headers).toMatchObject({ [H.replyTopic]: topics.replies('g1'), [H.replyPartition]: '0', [H.keyId]: 'key-1', [H.billing]: 'at-delivery', [H.deadline]: String(c.deadline), [H.items]: '3' });
    expect(c.usage).toEqual([
      { itemIndex: 0, capability: 'language-id', model: 'lid-lite-608', quantity: 1 },
      { itemIndex: 2, capability: 'language-id', model: 'lid-lite-608', quantity: 1 },
    ]);
    // a second dispatch of the same request numbers its items on; one item is a one-item event
    await dispatcher.dispatch('language-id', 'lid-lite-608', [input('deu')], c);
    expect(seen[1]!.headers[H.correlationId]).toBe('req-1:3');
    expect(seen[1]!.headers[H.items]).toBeUndefined();
    // more than ITEMS_PER_EVENT items: 64 to an event
    const many = Array.from({ length: ITEMS_PER_EVENT + 6 }, (_, i) => input(`l${i}`));
    const rs = await dispatcher.dispatch<{ language: string }>('language-id', 'lid-lite-608', many, c);
    expect(rs.map((r) => r.output!.language)).toEqual(many.map((m) => m.text));
    expect(seen.slice(2).map((m) => [m.headers[H.correlationId], m.headers[H.items]])).toEqual([['req-1:4', '64'], ['req-1:68', '6']]);
    expect(c.usage.map((u) => u.itemIndex)).toEqual([0, 2, 3, ...many.map((_, i) => 4 + i)]);
  });

  it('answers the items with no result at the deadline with 504 and keeps those that came', async () => {
    const { dispatcher } = await setup(async (_m, text) => (text === 'slow' ? null : codec.encode('language-id/result', { output: output(text), failure: null })));
    // the other two answer at once; 3 s is far more than that takes on a busy machine
    const c = { ...ctx(), deadline: Date.now() + 3000 };
    const results = await dispatcher.dispatch<{ language: string }>('language-id', 'lid-lite-608', [input('eng'), input('slow'), input('fra')], c);
    expect(results.map((r) => r.output?.language ?? r.failure?.code)).toEqual(['eng', 'DEADLINE_EXCEEDED', 'fra']);
    expect(results[1]!.failure!.status).toBe(504);
    expect(c.usage.map((u) => u.itemIndex)).toEqual([0, 2]);
  });

  it('refuses a model no live worker serves before writing anything', async () => {
    const { dispatcher, seen } = await setup(async () => null);
    expect(() => dispatcher.assertServed('language-id', 'lid-neural-608')).toThrow(/model lid-neural-608 is not installed/);
    expect(() => dispatcher.assertServed('diacritize', 'diacnet-2.0')).toThrow(/no worker serves diacritize/);
    await expect(dispatcher.dispatch('diacritize', 'diacnet-2.0', [], ctx())).rejects.toMatchObject({ code: 'NO_WORKER' });
    expect(seen).toEqual([]);
  });

  it('stops waiting when the client goes away, and writes a cancel event for the workers', async () => {
    const { dispatcher, transport, correlator } = await setup(async () => null); // never answers
    const end = new RequestEnd();
    const c = ctx(end);
    const pending = dispatcher.dispatch('language-id', 'lid-lite-608', [input('eng'), input('fra')], c);
    await until(() => correlator.size === 1, 2000, 'request event waiting');
    end.close(); // the response closed before it was written out
    await expect(pending).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(correlator.size).toBe(0);
    await until(() => transport.read(topics.cancellations, 0, 0, 10).length === 1, 2000, 'cancel event');
    const cancel = await codec.decode('control/cancel', transport.read(topics.cancellations, 0, 0, 10)[0]!.value);
    expect(cancel).toEqual({ requestId: 'req-1', untilMs: c.deadline });
    expect(c.usage).toEqual([]);
  });
});
