/**
 * Avro encoding of events with avsc (Apache Avro 1.11 specification, binary
 * encoding). The schemas live in `schemas/` (one folder per capability plus `common/`
 * and `control/`); a value that does not match its schema throws on encode, and a
 * buffer that does not decode throws on decode, in both run modes.
 */
import avro from 'avsc';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Folder of the .avsc files. */
export const SCHEMA_DIR = fileURLToPath(new URL('../../schemas/', import.meta.url));

import type { SchemaName, SchemaValues } from './contract.ts';

export type { SchemaName, SchemaValues } from './contract.ts';

/** Schemas of request events (`<capability>/request`). */
export type RequestSchema = Extract<SchemaName, `${string}/request`>;
/** Schemas of result events (`<capability>/result`). */
export type ResultSchema = Extract<SchemaName, `${string}/result`>;
/** Schemas of request events holding several items (`<capability>/requests`). */
export type RequestsSchema = Extract<SchemaName, `${string}/requests`>;
/** Schemas of result events answering several items of one request event (`<capability>/results`). */
export type ResultsSchema = Extract<SchemaName, `${string}/results`>;

/** Raw schema JSON of every schema in {@link SCHEMA_DIR}, keyed by {@link SchemaName}. */
export function loadSchemaFiles(dir = SCHEMA_DIR): Map<SchemaName, object> {
  const out = new Map<SchemaName, object>();
  for (const folder of readdirSync(dir, { withFileTypes: true })) {
    if (!folder.isDirectory()) continue;
    for (const f of readdirSync(join(dir, folder.name))) {
      if (!f.endsWith('.avsc')) continue;
      out.set(`${folder.name}/${f.slice(0, -5)}` as SchemaName, JSON.parse(readFileSync(join(dir, folder.name, f), 'utf8')));
    }
  }
  return out;
}

/**
 * Encodes and decodes events by schema name. Asynchronous because the Kafka mode may
 * have to fetch a writer schema from the Schema Registry.
 */
export interface EventCodec {
  /** @throws Error when `value` does not match the schema (message lists the path) */
  encode<S extends SchemaName>(schema: S, value: SchemaValues[S]): Promise<Buffer>;
  /** @throws Error when `buf` is not a value of the schema */
  decode<S extends SchemaName>(schema: S, buf: Buffer): Promise<SchemaValues[S]>;
}

/**
 * Checks a value against an avsc type.
 * @throws Error naming the invalid fields
 */
export function assertValid(t: avro.Type, schema: SchemaName, value: unknown): void {
  // the check without an error hook is avsc's fast path (no path kept per field): the hook
  // runs only to name the fields of a value already found invalid
  if (t.isValid(value)) return;
  const errors: string[] = [];
  if (!t.isValid(value, { errorHook: (path) => errors.push(path.join('.') || '(root)') })) {
    throw new Error(`event does not match schema ${schema}: invalid field(s) ${errors.join(', ')}`);
  }
}

/**
 * Codec over plain Avro binary (the embedded log needs no schema ids; the Kafka mode
 * wraps this in the Confluent wire format through the Schema Registry).
 */
export class AvroCodec implements EventCodec {
  private readonly types = new Map<SchemaName, avro.Type>();
  constructor(dir = SCHEMA_DIR) {
    const files = loadSchemaFiles(dir);
    const registry: Record<string, avro.Type> = {};
    // common types first: the others refer to lmstream.common.Failure by name; then by
    // name, so that `<capability>/request` comes before `requests`, which refers to it
    const order = [...files.keys()].sort((a, b) => Number(b.startsWith('common/')) - Number(a.startsWith('common/')) || a.localeCompare(b));
    for (const name of order) this.types.set(name, avro.Type.forSchema(files.get(name) as avro.Schema, { registry }));
  }
  /** Names of the loaded schemas. */
  names(): SchemaName[] { return [...this.types.keys()]; }

  /** A schema as self-contained JSON (named types it refers to are inlined), for a registry. */
  schemaJson(schema: SchemaName): object {
    return this.type(schema).schema({ exportAttrs: true }) as object;
  }

  /** The avsc type of a schema. */
  type(schema: SchemaName): avro.Type {
    const t = this.types.get(schema);
    if (!t) throw new Error(`unknown event schema ${schema}`);
    return t;
  }
  async encode<S extends SchemaName>(schema: S, value: SchemaValues[S]): Promise<Buffer> {
    return this.encodeAfter(schema, value);
  }

  /** A buffer kept between calls for {@link encodeAfter}, grown when a value does not fit. */
  private scratch = Buffer.allocUnsafe(64 * 1024);

  /**
   * Avro binary of a value after `prefix` (the Confluent wire-format header in Kafka
   * mode), written into a buffer kept between calls and copied out once: avsc's toBuffer
   * writes a value over 1 KiB twice (once to learn its size), a separate check walks it
   * once more, and the registry client copies it again to put the header in front
   * (issue 17). avsc checks each field's type as it writes.
   * @throws Error naming the invalid fields when the value does not match the schema
   */
  encodeAfter<S extends SchemaName>(schema: S, value: SchemaValues[S], prefix?: Buffer): Buffer {
    // write first: it may replace the kept buffer with a larger one
    const end = this.write(this.type(schema), schema, value, prefix);
    return Buffer.from(this.scratch.subarray(0, end));
  }

  /**
   * Writes `value` with `t` after `prefix` into the kept buffer (grown when it does not
   * fit). @returns the end of what was written
   * @throws Error naming the invalid fields (against `schema`) when the value does not match
   */
  private write(t: avro.Type, schema: SchemaName, value: unknown, prefix?: Buffer): number {
    const start = prefix?.length ?? 0;
    for (;;) {
      prefix?.copy(this.scratch, 0);
      let end: number;
      try {
        end = t.encode(value, this.scratch, start);
      } catch (err) {
        assertValid(t, schema, value);
        throw err;
      }
      if (end >= 0) return end;
      // avsc returns minus the bytes missing
      this.scratch = Buffer.allocUnsafe(Math.max(2 * this.scratch.length, this.scratch.length - end));
    }
  }

  private readonly lists = new Map<SchemaName, avro.Type>();

  /** The avsc type of an array of a schema's values. */
  private listType(schema: SchemaName): avro.Type {
    let t = this.lists.get(schema);
    if (!t) this.lists.set(schema, t = avro.Type.forSchema({ type: 'array', items: this.type(schema) }));
    return t;
  }

  /**
   * Avro binary of an array of a schema's values, in an ArrayBuffer of its own (so that
   * `postMessage` can transfer it: the inference threads' results, services/workers/result-wire.ts).
   * @throws Error naming the invalid fields when a value does not match the schema
   */
  encodeList<S extends SchemaName>(schema: S, values: Array<SchemaValues[S]>): Uint8Array<ArrayBuffer> {
    const end = this.write(this.listType(schema), schema, values);
    const out = new Uint8Array(end);
    out.set(this.scratch.subarray(0, end));
    return out;
  }

  /**
   * The values of {@link encodeList}.
   * @throws Error when the bytes are not such an array
   */
  decodeList<S extends SchemaName>(schema: S, bytes: Uint8Array): Array<SchemaValues[S]> {
    return this.listType(schema).fromBuffer(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)) as Array<SchemaValues[S]>;
  }

  async decode<S extends SchemaName>(schema: S, buf: Buffer): Promise<SchemaValues[S]> {
    return this.type(schema).fromBuffer(buf) as SchemaValues[S];
  }
}
