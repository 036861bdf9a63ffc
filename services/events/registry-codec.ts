/**
 * Kafka-mode codec: Avro in the Confluent wire format (magic byte, 4-byte schema id,
 * Avro binary), with the registry reached through @kafkajs/confluent-schema-registry. At
 * start-up every schema of `schemas/` is registered under its subject with BACKWARD compatibility; a schema that
 * breaks compatibility stops the start with an error naming the subject. Decoding
 * resolves the writer's schema (fetched by id) to this build's reader schema, so
 * messages written with an older version still decode.
 */
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import type avro from 'avsc';
import { AvroCodec, type EventCodec, type SchemaName, type SchemaValues } from './codec.ts';

/**
 * Subject of each schema: `<logical topic>-value` (Confluent TopicNameStrategy). Results
 * travel on per-gateway reply topics, so their subject names the capability's logical
 * results topic `<prefix>.<capability>.results` (docs/kafka.md). The several-item forms
 * (`<capability>/requests`, `/results`) travel on the same topics as the one-item forms,
 * under a subject per record: `<topic>-<recordName>` (TopicRecordNameStrategy).
 * @param recordName full name of the schema's record (`lmstream.language_id.LanguageIdRequests`)
 */
export function subjectFor(schema: SchemaName, prefix: string, recordName?: string): string | null {
  const [folder, kind] = schema.split('/') as [string, string];
  if (folder === 'common') return kind === 'usage' ? `${prefix}.usage-value` : kind === 'outcome' ? `${prefix}.outcomes-value` : null;
  if (folder === 'control') return kind === 'warmup' ? `${prefix}.control-value` : kind === 'cancel' ? `${prefix}.cancellations-value` : `${prefix}.workers-value`;
  if (kind === 'request' || kind === 'result') return `${prefix}.${folder}.${kind === 'request' ? 'requests' : 'results'}-value`;
  // the several-item forms share the topics of the one-item forms: a subject per record
  // (Confluent TopicRecordNameStrategy, `<topic>-<record full name>`)
  return `${prefix}.${folder}.${kind}-${recordName ?? kind}`;
}

/** Error raised when a schema cannot be registered. */
export class SchemaRegistrationError extends Error {
  readonly code = 'SCHEMA_INCOMPATIBLE';
}

/** See the module comment. */
export class RegistryCodec implements EventCodec {
  /** the wire-format header of each registered schema: magic byte 0, its id big-endian */
  private readonly headers = new Map<SchemaName, Buffer>();
  /** resolvers from a writer schema id to a reader schema, built once each */
  private readonly resolvers = new Map<string, Promise<avro.Resolver>>();
  private constructor(private readonly registry: SchemaRegistry, private readonly local: AvroCodec) {}

  /**
   * Connects to the registry and registers every schema.
   * @throws SchemaRegistrationError when a schema is incompatible with the latest version of its subject
   */
  static async create(url: string, prefix: string, schemaDir?: string): Promise<RegistryCodec> {
    const registry = new SchemaRegistry({ host: url, retry: { retries: 5 } });
    const local = new AvroCodec(schemaDir);
    const codec = new RegistryCodec(registry, local);
    for (const name of local.names()) {
      const subject = subjectFor(name, prefix, local.type(name).name);
      if (!subject) continue;
      try {
        const { id } = await registry.register({ type: SchemaType.AVRO, schema: JSON.stringify(local.schemaJson(name)) }, { subject, compatibility: 'BACKWARD' as never });
        const header = Buffer.alloc(5);
        header.writeInt32BE(id, 1);
        codec.headers.set(name, header);
      } catch (err) {
        throw new SchemaRegistrationError(`schema ${name} cannot be registered under subject ${subject} at ${url}: ${(err as Error).message}`, { cause: err });
      }
    }
    return codec;
  }

  /** Schema id registered for a schema name. */
  idOf(schema: SchemaName): number | undefined { return this.headers.get(schema)?.readInt32BE(1); }

  /**
   * The Confluent wire format of a value: magic byte 0, the schema's registered id
   * (big-endian, 4 bytes), the Avro binary written with this build's schema (the one
   * registered under that id).
   * @throws Error when the schema is not registered, or naming the invalid fields when the value does not match it
   */
  async encode<S extends SchemaName>(schema: S, value: SchemaValues[S]): Promise<Buffer> {
    const header = this.headers.get(schema);
    if (header === undefined) throw new Error(`schema ${schema} is not registered`);
    return this.local.encodeAfter(schema, value, header);
  }

  /**
   * Decodes the Confluent wire format (magic byte 0, big-endian 4-byte schema id, Avro
   * binary). A message written with this build's schema decodes directly; one written
   * with another version is resolved to this build's schema with a resolver built once
   * per writer id (the client library would parse the reader schema and build the
   * resolver on every message).
   * @throws Error when the magic byte is wrong, the id unknown to the registry, or the schemas do not resolve
   */
  async decode<S extends SchemaName>(schema: S, buf: Buffer): Promise<SchemaValues[S]> {
    if (buf.length < 5 || buf[0] !== 0) throw new Error(`not a Confluent wire-format message (magic byte ${buf[0]})`);
    const writerId = buf.readInt32BE(1);
    const reader = this.local.type(schema);
    const payload = buf.subarray(5);
    if (writerId === this.idOf(schema)) return reader.fromBuffer(payload) as SchemaValues[S];
    const key = `${schema}:${writerId}`;
    let resolver = this.resolvers.get(key);
    if (!resolver) {
      resolver = this.registry.getSchema(writerId).then((writer) => reader.createResolver(writer as unknown as avro.Type));
      this.resolvers.set(key, resolver);
      resolver.catch(() => this.resolvers.delete(key));
    }
    return reader.fromBuffer(payload, await resolver) as SchemaValues[S];
  }
}
