import { describe, expect, it } from 'vitest';
import { AvroCodec, loadSchemaFiles } from '../../services/events/codec.ts';
import { CAPABILITIES } from '../../services/capabilities.ts';

describe('AvroCodec', () => {
  const codec = new AvroCodec();
  it('has a request and a result schema per capability, and the usage schema', () => {
    const names = [...loadSchemaFiles().keys()];
    for (const c of CAPABILITIES) expect(names).toEqual(expect.arrayContaining([`${c}/request`, `${c}/result`]));
    expect(names).toContain('common/usage');
  });
  it('round-trips an event', async () => {
    const req = { text: 'hello', model: 'lid-lite-608', mode: 'traffic', topK: 3, candidates: null, echoText: false };
    expect(await codec.decode('language-id/request', await codec.encode('language-id/request', req))).toEqual(req);
  });
  it('refuses an event that does not match its schema, naming the field', async () => {
    await expect(codec.encode('language-id/request', { text: 'x', model: 'm', mode: 'fast', topK: 3, candidates: null })).rejects.toThrow(/mode/);
    await expect(codec.encode('common/usage', { events: [{ eventId: 'x' }] })).rejects.toThrow(/does not match schema common\/usage: invalid field\(s\) events/);
  });
  it('refuses bytes that are not an event', async () => {
    await expect(codec.decode('decide/request', Buffer.from([0xff, 0xff, 0xff]))).rejects.toThrow();
  });
});
