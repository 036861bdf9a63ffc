import avro from 'avsc';
import { describe, expect, it } from 'vitest';
import { AvroCodec, loadSchemaFiles } from '../../services/events/codec.ts';
import type { OutcomeEvent } from '../../services/events/contract.ts';
import { outcomeEventsOf, outcomeMessage } from '../../services/events/outcomes.ts';
import { subjectFor } from '../../services/events/registry-codec.ts';
import { codeOf } from '../../services/lib/errors.ts';
import { CAPABILITIES } from '../../services/capabilities/index.ts';

describe('AvroCodec', () => {
  const codec = new AvroCodec();
  it('has a request and a result schema per capability, and the usage schema', () => {
    const names = [...loadSchemaFiles().keys()];
    for (const c of CAPABILITIES) expect(names).toEqual(expect.arrayContaining([`${c}/request`, `${c}/result`]));
    expect(names).toContain('common/usage');
  });
  it('gives every top-level schema a Schema Registry subject (regression: the outcome schema had none, so Kafka-mode workers could not encode bulk outcomes and bulk ingestion stalled)', () => {
    for (const name of loadSchemaFiles().keys()) {
      // the failure record is only ever nested in result schemas
      if (name === 'common/failure') continue;
      expect(subjectFor(name, 'p'), name).not.toBeNull();
    }
    expect(subjectFor('common/outcome', 'p')).toBe('p.outcomes-value');
  });
  it('round-trips an event', async () => {
    const req = { text: 'hello', model: 'lid-lite-608', mode: 'traffic' as const, topK: 3, candidates: null, echoText: false };
    expect(await codec.decode('language-id/request', await codec.encode('language-id/request', req))).toEqual(req);
  });
  it('refuses an event that does not match its schema, naming the field', async () => {
    await expect(codec.encode('language-id/request', { text: 'x', model: 'm', mode: 'fast' as never, topK: 3, candidates: null })).rejects.toThrow(/mode/);
    await expect(codec.encode('common/usage', { events: [{ eventId: 'x' } as never] })).rejects.toThrow(/does not match schema common\/usage: invalid field\(s\) events/);
  });
  it('writes events and lists larger than its kept 64 KiB buffer whole (regression: encodeAfter copied out of the buffer it had just replaced)', async () => {
    const req = { text: 'x'.repeat(100_000), model: 'lid-lite-608', mode: 'traffic' as const, topK: 3, candidates: null, echoText: false };
    const big = await codec.encode('language-id/request', req);
    expect(big.length).toBeGreaterThan(100_000);
    expect(await codec.decode('language-id/request', big)).toEqual(req);
    const list = codec.encodeList('language-id/request', [req, { ...req, text: 'y'.repeat(70_000) }]);
    expect(list.buffer.byteLength).toBe(list.length);
    expect(codec.decodeList('language-id/request', list).map((r) => r.text.length)).toEqual([100_000, 70_000]);
  });
  it('refuses bytes that are not an event', async () => {
    await expect(codec.decode('decide/request', Buffer.from([0xff, 0xff, 0xff]))).rejects.toThrow();
  });
  it('reads a failure written before failures carried a code (BACKWARD compatible), with the code empty', async () => {
    const old = avro.Type.forSchema({ type: 'record', name: 'Failure', namespace: 'lmstream.common', fields: [{ name: 'status', type: 'int' }, { name: 'error', type: 'string' }] });
    const current = codec.type('common/failure');
    const read = current.createResolver(old);
    expect(current.fromBuffer(old.toBuffer({ status: 503, error: 'queue full' }), read)).toEqual({ status: 503, error: 'queue full', code: '' });
  });
  it('reads outcome events written with their first schema, which also carried an eventId field (BACKWARD compatible: dropped to cut a third of the bytes)', async () => {
    const current = codec.type('common/outcome');
    const schema = JSON.parse(JSON.stringify(current.schema())) as { fields: Array<{ type: { items: { fields: Array<{ name: string; type: unknown }> } } }> };
    // the first schema: events only, each with its eventId
    schema.fields = schema.fields.slice(0, 1);
    schema.fields[0]!.type.items.fields.unshift({ name: 'eventId', type: 'string' });
    const old = avro.Type.forSchema(schema as avro.Schema);
    const event = { requestId: 'r1', itemIndex: 3, keyId: 'k', source: 'gateway', capability: 'language-id', model: 'lid-neural-608', status: 200, code: null,
      items: 1, billable: 1, queueMs: 1, inferenceMs: 2, totalMs: 5, label: 'swh_Latn', confidenceBucket: 9, timestampMs: 1_700_000_000_000 };
    const read = current.createResolver(old);
    expect(current.fromBuffer(old.toBuffer({ events: [{ eventId: 'r1:3', ...event }] }), read)).toEqual({ events: [event], requests: [] });
    expect(current.toBuffer({ events: [event], requests: [] }).length).toBeLessThan(old.toBuffer({ events: [{ eventId: 'r1:3', ...event }] }).length);
  });
});

describe('outcome messages', () => {
  const codec = new AvroCodec();
  const event = (requestId: string, itemIndex: number, o: Partial<OutcomeEvent> = {}): OutcomeEvent => ({
    requestId, itemIndex, keyId: 'k', source: 'gateway', capability: 'language-id', model: 'lid-neural-608', status: 200, code: null,
    items: 1, billable: 1, queueMs: 1, inferenceMs: 2, totalMs: 5, label: 'swh_Latn', confidenceBucket: 9, timestampMs: 1_700_000_000_000, ...o,
  });
  it('writes a request\'s events as one record with its items, reads them back as the same events, and is smaller', async () => {
    const events = [...Array.from({ length: 64 }, (_, i) => event('r1', i, { label: i % 2 ? 'deu_Latn' : 'swh_Latn' })),
      event('r2', 0, { status: 400, code: 'INVALID_REQUEST', items: 0, billable: 0, model: null, label: null, confidenceBucket: null, queueMs: null, inferenceMs: null }),
      event('bulk', 7, { keyId: 'bulk:web1', source: 'bulk' })];
    const message = outcomeMessage(events);
    expect(message.requests!.map((r) => [r.requestId, r.items.length])).toEqual([['r1', 64], ['r2', 1], ['bulk', 1]]);
    const buf = await codec.encode('common/outcome', message);
    expect(outcomeEventsOf(await codec.decode('common/outcome', buf))).toEqual(events);
    expect(buf.length).toBeLessThan((await codec.encode('common/outcome', { events, requests: [] })).length / 2);
  });
  it('still reads messages of events one by one (the first form)', async () => {
    const events = [event('r1', 0), event('r1', 1)];
    expect(outcomeEventsOf(await codec.decode('common/outcome', await codec.encode('common/outcome', { events, requests: [] })))).toEqual(events);
  });
});

describe('codeOf', () => {
  it('keeps the code a failure was raised with, and falls back to the status for failures without one', () => {
    expect(codeOf({ status: 503, code: 'QUEUE_FULL' })).toBe('QUEUE_FULL');
    expect(codeOf({ status: 413, code: 'CONTEXT_TOO_LONG' })).toBe('CONTEXT_TOO_LONG');
    expect(codeOf({ status: 503, code: '' })).toBe('MODEL_NOT_INSTALLED');
    // a code whose status does not match is not trusted
    expect(codeOf({ status: 500, code: 'QUEUE_FULL' })).toBe('INTERNAL');
    expect(codeOf({ status: 400, code: 'NOT_A_CODE' })).toBe('INVALID_REQUEST');
  });
});
