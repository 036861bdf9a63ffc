/**
 * The project's Schema Registry, driven by the real Confluent client
 * (@kafkajs/confluent-schema-registry) over HTTP.
 */
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import type { FastifyInstance } from 'fastify';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCHEMA_DIR } from '../../services/events/codec.ts';
import { RegistryCodec } from '../../services/events/registry-codec.ts';
import { buildSchemaRegistry } from '../../services/schema-registry/server.ts';

let app: FastifyInstance;
let url: string;
beforeAll(async () => {
  app = await buildSchemaRegistry({ file: ':memory:' });
  url = await app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => { await app.close(); });

const v1 = { type: 'record', name: 'Thing', namespace: 't', fields: [{ name: 'a', type: 'string' }] };
const v2 = { ...v1, fields: [...v1.fields, { name: 'b', type: 'int', default: 7 }] };
const broken = { ...v1, fields: [...v1.fields, { name: 'c', type: 'int' }] };

describe('schema registry', () => {
  it('registers, finds by id and by subject, and keeps ids stable', async () => {
    const client = new SchemaRegistry({ host: url });
    const { id } = await client.register({ type: SchemaType.AVRO, schema: JSON.stringify(v1) }, { subject: 's1-value' });
    expect((await client.register({ type: SchemaType.AVRO, schema: JSON.stringify(v1) }, { subject: 's1-value' })).id).toBe(id);
    expect(JSON.parse(await client.getSchema(id).then((s) => JSON.stringify((s as unknown as { schema(): object }).schema())))).toMatchObject({ name: 't.Thing' });
    expect(await client.getLatestSchemaId('s1-value')).toBe(id);
    const latest = await (await fetch(`${url}/subjects/s1-value/versions/latest`)).json();
    expect(latest).toMatchObject({ subject: 's1-value', id, version: 1 });
  });
  it('compares schemas parsed, not as text: the same schema with its keys in another order is the same schema and id (regression: it was "Schema not found" and registered again)', async () => {
    const post = async (path: string, schema: object) => {
      const r = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/vnd.schemaregistry.v1+json' }, body: JSON.stringify({ schema: JSON.stringify(schema) }) });
      return { status: r.status, body: await r.json() as Record<string, unknown> };
    };
    const thing = { type: 'record', name: 'Thing', namespace: 't', doc: 'a thing', fields: [{ name: 'a', type: 'string', doc: 'the a' }, { name: 'b', type: 'int', default: 7 }] };
    const reordered = { fields: [{ doc: 'the a', type: 'string', name: 'a' }, { default: 7, name: 'b', type: 'int' }], namespace: 't', doc: 'a thing', name: 'Thing', type: 'record' };
    const { id } = (await post('/subjects/s5-value/versions', thing)).body;
    expect((await post('/subjects/s5-value/versions', reordered)).body).toEqual({ id });
    expect((await post('/subjects/s5-value', reordered)).body).toMatchObject({ subject: 's5-value', id, version: 1 });
    expect(await (await fetch(`${url}/subjects/s5-value/versions`)).json()).toEqual([1]);
    // one id per schema across subjects
    expect((await post('/subjects/s6-value/versions', reordered)).body).toEqual({ id });
    // another doc is another schema by default; with normalize=true the Parsing Canonical Form is compared
    const otherDoc = { ...thing, doc: 'another thing' };
    expect((await post('/subjects/s5-value', otherDoc)).status).toBe(404);
    expect((await post('/subjects/s5-value?normalize=true', otherDoc)).body).toMatchObject({ id, version: 1 });
    // a default that differs is never the same schema
    expect((await post('/subjects/s5-value?normalize=false', { ...thing, fields: [thing.fields[0], { name: 'b', type: 'int', default: 8 }] })).status).toBe(404);
  });
  it('refuses a schema that is not JSON or not Avro with 422 42201, not a 500', async () => {
    for (const schema of ['{"type": "record", "name":', '{"type": "nope"}', '"x".repeat']) {
      const r = await fetch(`${url}/subjects/s7-value/versions`, { method: 'POST', headers: { 'content-type': 'application/vnd.schemaregistry.v1+json' }, body: JSON.stringify({ schema }) });
      expect(r.status, schema).toBe(422);
      expect(await r.json(), schema).toMatchObject({ error_code: 42201 });
    }
  });
  it('lists its schema types', async () => {
    expect(await (await fetch(`${url}/schemas/types`)).json()).toEqual(['AVRO']);
  });
  it('accepts a BACKWARD-compatible change and rejects an incompatible one', async () => {
    const client = new SchemaRegistry({ host: url });
    await client.register({ type: SchemaType.AVRO, schema: JSON.stringify(v1) }, { subject: 's2-value' });
    const { id: id2 } = await client.register({ type: SchemaType.AVRO, schema: JSON.stringify(v2) }, { subject: 's2-value' });
    expect(id2).toBeGreaterThan(0);
    await expect(client.register({ type: SchemaType.AVRO, schema: JSON.stringify({ ...v2, fields: [...v2.fields, broken.fields[1]] }) }, { subject: 's2-value' }))
      .rejects.toThrow(/incompatible/);
    const check = await (await fetch(`${url}/compatibility/subjects/s2-value/versions/latest`, {
      method: 'POST', headers: { 'content-type': 'application/vnd.schemaregistry.v1+json' }, body: JSON.stringify({ schema: JSON.stringify(broken) }),
    })).json();
    expect(check).toEqual({ is_compatible: false });
  });
  it('decodes a message produced with an older schema version into the new reader schema', async () => {
    const client = new SchemaRegistry({ host: url });
    const { id: old } = await client.register({ type: SchemaType.AVRO, schema: JSON.stringify(v1) }, { subject: 's3-value' });
    await client.register({ type: SchemaType.AVRO, schema: JSON.stringify(v2) }, { subject: 's3-value' });
    const bytes = await client.encode(old, { a: 'hello' });
    const reader = new SchemaRegistry({ host: url }); // fresh cache: fetches the writer schema by id
    expect(await reader.decode(bytes, { [SchemaType.AVRO]: { readerSchema: v2 } } as never)).toEqual({ a: 'hello', b: 7 });
  });
  it('registers the project schemas at start-up, and a breaking change fails the start with the subject named', async () => {
    const codec = await RegistryCodec.create(url, 'p1');
    const req = { text: 'hi', model: 'lid-lite-608', mode: 'traffic' as const, topK: 3, candidates: null, echoText: false };
    const buf = await codec.encode('language-id/request', req);
    expect(buf[0]).toBe(0); // Confluent wire format: magic byte, then the schema id
    expect(buf.readInt32BE(1)).toBe(codec.idOf('language-id/request'));
    expect(await codec.decode('language-id/request', buf)).toEqual(req);
    // the Confluent client reads what the codec writes, also a value larger than its first buffer (issue 17: the codec writes the wire format itself)
    const many = { items: Array.from({ length: 2000 }, (_, i) => ({ ...req, text: `text ${i} `.repeat(20) })) };
    const big = await codec.encode('language-id/requests', many);
    expect(big.length).toBeGreaterThan(64 * 1024);
    expect(await new SchemaRegistry({ host: url }).decode(big)).toEqual(many);
    expect(await codec.decode('language-id/request', await codec.encode('language-id/request', req))).toEqual(req);
    await expect(codec.encode('language-id/request', { ...req, topK: 'three' } as never)).rejects.toThrow(/does not match schema language-id\/request: invalid field\(s\) topK/);
    // a copy of schemas/ where a request gains a field without a default: not BACKWARD compatible
    const dir = mkdtempSync(join(tmpdir(), 'schemas-'));
    cpSync(SCHEMA_DIR, dir, { recursive: true });
    const file = join(dir, 'language-id', 'request.avsc');
    const s = JSON.parse(readFileSync(file, 'utf8'));
    s.fields.push({ name: 'priority', type: 'int' });
    writeFileSync(file, JSON.stringify(s));
    await expect(RegistryCodec.create(url, 'p1', dir)).rejects.toThrow(/language-id\/request cannot be registered under subject p1\.language-id\.requests-value/);
  });
});
