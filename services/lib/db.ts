/**
 * The SQL stores of the service (ledger, key store) on either SQLite (embedded mode;
 * `sqlite3`, N-API) or PostgreSQL (distributed mode; `pg`). Statements use `?`
 * placeholders and the SQL both accept (`ON CONFLICT ... DO NOTHING`, BIGINT, TEXT).
 */
import pg from 'pg';
import type { SqlDb, SqlTx } from './sql.ts';
import { SqliteDb } from './sqlite.ts';

export type { SqlDb, SqlTx } from './sql.ts';

/** `?` placeholders to PostgreSQL's `$1, $2, ...`. */
function numbered(sql: string): string {
  let i = 0;
  return sql.replace(/\?/g, () => `$${++i}`);
}

class PgDb implements SqlDb {
  readonly dialect = 'postgres' as const;
  constructor(private readonly pool: pg.Pool) {}
  async run(sql: string, params: unknown[] = []): Promise<number> { return (await this.pool.query(numbered(sql), params)).rowCount ?? 0; }
  async all<T>(sql: string, params: unknown[] = []): Promise<T[]> { return (await this.pool.query(numbered(sql), params)).rows as T[]; }
  async transaction<T>(fn: (tx: SqlTx) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    const tx: SqlTx = {
      run: async (sql, params = []) => (await client.query(numbered(sql), params)).rowCount ?? 0,
      all: async <R>(sql: string, params: unknown[] = []) => (await client.query(numbered(sql), params)).rows as R[],
    };
    try {
      await client.query('BEGIN');
      const r = await fn(tx);
      await client.query('COMMIT');
      return r;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }
  close(): Promise<void> { return this.pool.end(); }
}

/** Key of the PostgreSQL advisory lock taken while creating tables (an arbitrary constant). */
const SCHEMA_LOCK = 7_311_042;

/**
 * Creates tables and indexes (idempotent statements). On PostgreSQL they run in one
 * transaction under an advisory lock, because concurrent `CREATE TABLE IF NOT EXISTS`
 * from several processes can fail with a unique violation on pg_type.
 */
export async function migrate(db: SqlDb, statements: string[]): Promise<void> {
  if (db.dialect === 'sqlite') {
    for (const s of statements) await db.run(s);
    return;
  }
  await db.transaction(async (tx) => {
    await tx.all('SELECT pg_advisory_xact_lock(?)', [SCHEMA_LOCK]);
    for (const s of statements) await tx.run(s);
  });
}

/**
 * Opens a database: a `postgres://` or `postgresql://` URL, or a SQLite file path.
 * @throws Error when it cannot be reached
 */
export async function openDb(target: string): Promise<SqlDb> {
  if (/^postgres(ql)?:\/\//.test(target)) {
    const pool = new pg.Pool({ connectionString: target, max: 8 });
    // an idle client whose server went away must not crash the process (node-postgres docs, "Pool")
    pool.on('error', () => undefined);
    await pool.query('SELECT 1');
    return new PgDb(pool);
  }
  return SqliteDb.open(target);
}
