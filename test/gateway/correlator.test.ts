/**
 * The correlator (issue 12, item 9), on the embedded log: a reply resolves its waiting
 * item, the deadline fails it, a reply nobody waits for is dropped and counted.
 */
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { AvroCodec } from '../../services/events/codec.ts';
import { failed } from '../../services/events/results.ts';
import { H } from '../../services/events/topics.ts';
import { Correlator } from '../../services/gateway/correlator.ts';
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
});
