/**
 * The correlator (issue 12, item 9), on the embedded log: a reply resolves its waiting
 * item, the deadline fails it, a reply nobody waits for is dropped and counted.
 */
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { AvroCodec } from '../../services/events/codec.ts';
import { failed } from '../../services/events/results.ts';
import { H } from '../../services/events/topics.ts';
import { Correlator, queueWaitOf } from '../../services/gateway/correlator.ts';
import { ServiceError } from '../../services/lib/errors.ts';
import { MemoryTransport } from '../../services/transport/memory.ts';
import { UNTIL_MIN_MS, until } from '../helpers/service.ts';

const codec = new AvroCodec();
const started: Correlator[] = [];
afterEach(async () => { await Promise.all(started.splice(0).map((c) => c.stop())); });

async function correlator(): Promise<{ c: Correlator; reply(id: string, value: Buffer): Promise<void> }> {
  const transport = new MemoryTransport();
  const c = new Correlator(transport, codec, 'replies.test', 'group.test', pino({ level: 'silent' }));
  await c.start();
  started.push(c);
  return { c, reply: (id, value) => transport.producer().send('replies.test', [{ value, headers: { [H.correlationId]: id, [H.capability]: 'language-id' } }]) };
}

const answer = { language: 'eng', script: 'Latn', label: 'eng_Latn', languageName: 'English', confidence: 0.9, top: [], warnings: [], text: null };

describe('Correlator', () => {
  it('resolves the waiting item with its reply, output or failure', async () => {
    const { c, reply } = await correlator();
    const a = c.expect('r:0', Date.now() + 600_000);
    const b = c.expect('r:1', Date.now() + 600_000);
    expect(c.size).toBe(2);
    await reply('r:1', await codec.encode('language-id/result', failed('QUEUE_FULL', 'queue full')));
    await reply('r:0', await codec.encode('language-id/result', { output: answer, failure: null }));
    expect(await a).toEqual({ output: answer, failure: null });
    expect(await b).toEqual({ output: null, failure: { status: 503, error: 'queue full', code: 'QUEUE_FULL' } });
    expect(c.size).toBe(0);
  });

  it('fails an item at its deadline, then drops and counts its late reply', async () => {
    const { c, reply } = await correlator();
    await expect(c.expect('slow:0', Date.now() + 50)).rejects.toMatchObject({ code: 'DEADLINE_EXCEEDED', status: 504 });
    const late = c.late;
    await reply('slow:0', await codec.encode('language-id/result', { output: answer, failure: null }));
    await until(() => c.late === late + 1, UNTIL_MIN_MS, 'the late reply counted');
  });

  it('answers a reply that does not decode with an INTERNAL failure, and fails everything on failAll', async () => {
    const { c, reply } = await correlator();
    const bad = c.expect('bad:0', Date.now() + 600_000);
    await reply('bad:0', Buffer.from('not avro'));
    expect((await bad).failure).toMatchObject({ status: 500, code: 'INTERNAL' });
    const waiting = [c.expect('x:0', Date.now() + 600_000), c.expect('x:1', Date.now() + 600_000)];
    c.failAll(new ServiceError('SHUTTING_DOWN', 'bye'));
    for (const w of waiting) await expect(w).rejects.toMatchObject({ code: 'SHUTTING_DOWN' });
  });

  it('takes the queue wait of a sampled event from its first reply with the worker\'s times, once, and of no other event', async () => {
    const transport = new MemoryTransport();
    const seen: Array<[string, number]> = [];
    const c = new Correlator(transport, codec, 'replies.wait', 'group.wait', pino({ level: 'silent' }), { observeWait: (cap, ms) => { seen.push([cap, ms]); } });
    await c.start();
    started.push(c);
    const times = (queueMs: string, inferenceMs: string, batchItems: string) => ({ [H.queueMs]: queueMs, [H.inferenceMs]: inferenceMs, [H.batchItems]: batchItems });
    const send = async (id: string, headers: Record<string, string>, index: number) => transport.producer().send('replies.wait', [{
      value: await codec.encode('language-id/results', { items: [{ index, result: { output: answer, failure: null } }] }),
      headers: { [H.correlationId]: id, [H.capability]: 'language-id', [H.items]: '2', ...headers },
    }]);
    const sampled = c.expectItems('s:0', 2, Date.now() + 600_000, undefined, true);
    const other = c.expectItems('o:0', 2, Date.now() + 600_000);
    // a reply without times is no sample; then 30 ms queued + 3/4 of a 40 ms run of 4 items; an unsampled event gives none
    await send('s:0', {}, 0);
    await send('o:0', times('500', '10', '1'), 0);
    await send('s:0', times('30', '40', '4'), 1);
    await send('o:0', times('500', '10', '1'), 1);
    await Promise.all([sampled, other]);
    expect(seen).toEqual([['language-id', 60]]);
    const again = c.expectItems('t:0', 2, Date.now() + 600_000, undefined, true);
    await send('t:0', times('30', '40', '4'), 0);
    await send('t:0', times('900', '40', '4'), 1);
    await again;
    expect(seen).toEqual([['language-id', 60], ['language-id', 60]]);
  });

  it('reads hostile times as no time: not a number, negative, a batch of 0 or less', () => {
    expect(queueWaitOf({ queueMs: 30, inferenceMs: 40 }, '4')).toBe(60);
    expect(queueWaitOf({ queueMs: 30, inferenceMs: 40 }, undefined)).toBe(30);
    expect(queueWaitOf({ queueMs: Number('abc'), inferenceMs: Number('x') }, 'many')).toBe(0);
    expect(queueWaitOf({ queueMs: -500, inferenceMs: 40 }, '0')).toBe(0);
    expect(queueWaitOf({ queueMs: 10, inferenceMs: 40 }, '-3')).toBe(10);
  });
});
