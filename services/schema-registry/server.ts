/**
 * The project's own Schema Registry: the part of the Confluent Schema Registry REST
 * API (Confluent docs, "Schema Registry API Reference") that
 * @kafkajs/confluent-schema-registry uses, for tests and single-node deployments
 * without Confluent's server. Avro only. Compatibility is checked with avsc's schema
 * resolution (Avro 1.11 specification, "Schema Resolution"); schemas are compared
 * parsed, never as text ({@link schemaForms}); schemas, versions and settings are kept in
 * SQLite.
 */
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import avro from 'avsc';
import type { Logger } from 'pino';
import { SqliteDb } from '../lib/sqlite.ts';

/** Compatibility levels of the Confluent API. */
export const LEVELS = ['NONE', 'BACKWARD', 'BACKWARD_TRANSITIVE', 'FORWARD', 'FORWARD_TRANSITIVE', 'FULL', 'FULL_TRANSITIVE'] as const;
export type Level = (typeof LEVELS)[number];

class RegistryError extends Error {
  constructor(readonly status: number, readonly errorCode: number, message: string) { super(message); }
}

/** Whether data written with `writer` can be read with `reader`. */
function canRead(reader: avro.Type, writer: avro.Type): boolean {
  try { reader.createResolver(writer); return true; } catch { return false; }
}

/**
 * Whether `candidate` may follow `previous` (oldest first) under `level`.
 * BACKWARD: the new schema reads data of the latest; FORWARD: the latest reads data of
 * the new one; FULL: both; *_TRANSITIVE: against every earlier version.
 */
export function isCompatible(level: Level, candidate: avro.Type, previous: avro.Type[]): boolean {
  if (level === 'NONE' || previous.length === 0) return true;
  const against = level.endsWith('_TRANSITIVE') ? previous : previous.slice(-1);
  const backward = level.startsWith('BACKWARD') || level.startsWith('FULL');
  const forward = level.startsWith('FORWARD') || level.startsWith('FULL');
  return against.every((old) => (!backward || canRead(candidate, old)) && (!forward || canRead(old, candidate)));
}

/**
 * The two forms in which registered schemas are compared, never their text (Confluent's
 * registry compares parsed schemas too: the same schema with its keys in another order or
 * other white space is the same schema). `full`: the schema as avsc writes it with its
 * attributes (`Type#schema({ exportAttrs: true })`: names in full, keys in a fixed order,
 * with defaults, docs, field order and aliases), what a lookup or registration compares by
 * default; `canonical`: the Avro Parsing Canonical Form (Avro 1.11 specification,
 * "Parsing Canonical Form for Schemas"; avsc `Type#schema()`), what they compare with
 * `?normalize=true`.
 * @throws RegistryError 42201 when the schema does not parse
 */
export function schemaForms(schema: string | avro.Type): { full: string; canonical: string } {
  const t = typeof schema === 'string' ? parse(schema) : schema;
  return { full: JSON.stringify(t.schema({ exportAttrs: true })), canonical: JSON.stringify(t.schema()) };
}

function parse(schema: string): avro.Type {
  try { return avro.Type.forSchema(JSON.parse(schema)); } catch (err) {
    throw new RegistryError(422, 42201, `Invalid schema: ${(err as Error).message}`);
  }
}

/** Options of {@link buildSchemaRegistry}. */
export interface RegistryOptions {
  /** SQLite file (`:memory:` for tests) */
  file: string;
  logger?: Logger;
  /** global compatibility level (Confluent default BACKWARD) */
  defaultLevel?: Level;
}

/**
 * Builds the registry app (not listening).
 * @throws Error when the database cannot be opened
 */
export async function buildSchemaRegistry(opts: RegistryOptions): Promise<FastifyInstance> {
  const db = await SqliteDb.open(opts.file);
  await db.run('CREATE TABLE IF NOT EXISTS schemas (id INTEGER PRIMARY KEY AUTOINCREMENT, schema TEXT NOT NULL UNIQUE)');
  await db.run('CREATE TABLE IF NOT EXISTS versions (subject TEXT NOT NULL, version INTEGER NOT NULL, schema_id INTEGER NOT NULL, PRIMARY KEY (subject, version))');
  await db.run('CREATE TABLE IF NOT EXISTS config (subject TEXT PRIMARY KEY, level TEXT NOT NULL)');
  const app = Fastify({ loggerInstance: opts.logger?.child({ service: 'registry' }) as FastifyBaseLogger | undefined });
  app.addContentTypeParser(['application/vnd.schemaregistry.v1+json', 'application/vnd.schemaregistry+json'], { parseAs: 'string' }, app.getDefaultJsonParser('error', 'error'));
  app.setErrorHandler((err: Error & { statusCode?: number }, _req, reply) => {
    if (err instanceof RegistryError) return reply.code(err.status).send({ error_code: err.errorCode, message: err.message });
    const status = err.statusCode ?? 500;
    return reply.code(status).send({ error_code: status * 100, message: err.message });
  });
  app.addHook('onClose', () => db.close());

  const level = async (subject: string): Promise<Level> => {
    const rows = await db.all<{ level: Level }>('SELECT level FROM config WHERE subject IN (?, ?) ORDER BY subject DESC', [subject, '']);
    return rows[0]?.level ?? opts.defaultLevel ?? 'BACKWARD';
  };
  const versionsOf = (subject: string) =>
    db.all<{ version: number; id: number; schema: string }>('SELECT v.version, s.id, s.schema FROM versions v JOIN schemas s ON s.id = v.schema_id WHERE v.subject = ? ORDER BY v.version', [subject]);
  // the forms of each stored schema by its text, parsed once
  const forms = new Map<string, { full: string; canonical: string }>();
  const formsOfStored = (schema: string) => {
    let f = forms.get(schema);
    if (!f) forms.set(schema, f = schemaForms(schema));
    return f;
  };
  /**
   * The schema of a request body, parsed once (422 when it does not parse): its text (white
   * space removed), its type, and whether a stored schema is the same (`normalize` picks the
   * form compared).
   */
  const body = (req: { body: unknown; query: unknown }) => {
    const b = req.body as { schema?: unknown; schemaType?: string };
    if (typeof b?.schema !== 'string') throw new RegistryError(422, 42201, 'Invalid schema: body needs a "schema" string');
    if (b.schemaType && b.schemaType !== 'AVRO') throw new RegistryError(422, 42201, `schemaType ${b.schemaType} is not supported (Avro only)`);
    const type = parse(b.schema);
    const text = JSON.stringify(JSON.parse(b.schema));
    const normalize = String((req.query as { normalize?: unknown } | undefined)?.normalize ?? 'false') === 'true';
    const form = normalize ? 'canonical' as const : 'full' as const;
    const own = schemaForms(type)[form];
    return { text, type, same: (stored: string) => formsOfStored(stored)[form] === own };
  };
  const pick = async (subject: string, version: string) => {
    const all = await versionsOf(subject);
    if (all.length === 0) throw new RegistryError(404, 40401, `Subject '${subject}' not found.`);
    const v = version === 'latest' ? all[all.length - 1] : all.find((x) => x.version === Number(version));
    if (!v) throw new RegistryError(404, 40402, `Version ${version} not found.`);
    return { subject, id: v.id, version: v.version, schema: v.schema };
  };

  app.get('/', async () => ({}));
  app.get('/subjects', async () => (await db.all<{ subject: string }>('SELECT DISTINCT subject FROM versions ORDER BY subject')).map((r) => r.subject));
  app.get('/subjects/:subject/versions', async (req) => {
    const all = await versionsOf((req.params as { subject: string }).subject);
    if (all.length === 0) throw new RegistryError(404, 40401, 'Subject not found.');
    return all.map((v) => v.version);
  });
  app.get('/subjects/:subject/versions/:version', async (req) => {
    const p = req.params as { subject: string; version: string };
    return pick(p.subject, p.version);
  });
  app.get('/schemas/types', async () => ['AVRO']);
  app.get('/schemas/ids/:id', async (req) => {
    const rows = await db.all<{ schema: string }>('SELECT schema FROM schemas WHERE id = ?', [Number((req.params as { id: string }).id)]);
    if (!rows[0]) throw new RegistryError(404, 40403, 'Schema not found');
    return { schema: rows[0].schema };
  });
  app.post('/subjects/:subject', async (req) => {
    const subject = (req.params as { subject: string }).subject;
    const schema = body(req);
    const all = await versionsOf(subject);
    if (all.length === 0) throw new RegistryError(404, 40401, `Subject '${subject}' not found.`);
    const v = all.find((x) => schema.same(x.schema));
    if (!v) throw new RegistryError(404, 40403, 'Schema not found');
    return { subject, id: v.id, version: v.version, schema: v.schema };
  });
  app.post('/subjects/:subject/versions', async (req) => {
    const subject = (req.params as { subject: string }).subject;
    const schema = body(req);
    return db.transaction(async () => {
      const all = await versionsOf(subject);
      // an equivalent schema already under the subject keeps its id and version
      const same = all.find((x) => schema.same(x.schema));
      if (same) return { id: same.id };
      if (!isCompatible(await level(subject), schema.type, all.map((x) => parse(x.schema)))) {
        throw new RegistryError(409, 409, `Schema being registered is incompatible with an earlier schema for subject "${subject}" (${await level(subject)})`);
      }
      // an equivalent schema under another subject lends its id (one id per schema, as Confluent's registry)
      const stored = await db.all<{ id: number; schema: string }>('SELECT id, schema FROM schemas ORDER BY id');
      let id = stored.find((x) => schema.same(x.schema))?.id;
      if (id === undefined) {
        await db.run('INSERT OR IGNORE INTO schemas (schema) VALUES (?)', [schema.text]);
        id = (await db.all<{ id: number }>('SELECT id FROM schemas WHERE schema = ?', [schema.text]))[0]!.id;
      }
      await db.run('INSERT INTO versions (subject, version, schema_id) VALUES (?, ?, ?)', [subject, (all[all.length - 1]?.version ?? 0) + 1, id]);
      return { id };
    });
  });
  app.post('/compatibility/subjects/:subject/versions/:version', async (req) => {
    const p = req.params as { subject: string; version: string };
    const schema = body(req);
    const all = await versionsOf(p.subject);
    const upTo = p.version === 'latest' ? all : all.filter((v) => v.version <= Number(p.version));
    return { is_compatible: isCompatible(await level(p.subject), schema.type, upTo.map((x) => parse(x.schema))) };
  });
  app.get('/config', async () => ({ compatibilityLevel: await level('') }));
  app.get('/config/:subject', async (req) => {
    const rows = await db.all<{ level: Level }>('SELECT level FROM config WHERE subject = ?', [(req.params as { subject: string }).subject]);
    if (!rows[0]) throw new RegistryError(404, 40408, 'Subject does not have subject-level compatibility configured');
    return { compatibilityLevel: rows[0].level };
  });
  const setLevel = async (subject: string, b: unknown) => {
    const compatibility = String((b as { compatibility?: string })?.compatibility ?? '').toUpperCase() as Level;
    if (!LEVELS.includes(compatibility)) throw new RegistryError(422, 42203, `Invalid compatibility level ${compatibility}`);
    await db.run('INSERT INTO config (subject, level) VALUES (?, ?) ON CONFLICT(subject) DO UPDATE SET level = excluded.level', [subject, compatibility]);
    return { compatibility };
  };
  app.put('/config', async (req) => setLevel('', req.body));
  app.put('/config/:subject', async (req) => setLevel((req.params as { subject: string }).subject, req.body));
  return app;
}
