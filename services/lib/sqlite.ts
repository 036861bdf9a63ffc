/**
 * A small promise wrapper over the `sqlite3` package (N-API; SQLite 3), with one
 * transaction at a time per connection.
 */
import sqlite3 from 'sqlite3';
import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { SqlDb, SqlTx } from './sql.ts';

/** One SQLite connection. */
export class SqliteDb implements SqlDb {
  readonly dialect = 'sqlite' as const;
  private chain: Promise<unknown> = Promise.resolve();
  private constructor(private readonly db: sqlite3.Database) {}

  /**
   * Opens (and creates) a database file; `:memory:` for a private in-memory database.
   * WAL journal so readers (GET /v1/usage, the CLI) do not block the billing writer;
   * temporary storage in memory. The file is readable by its owner only (0600; SQLite
   * gives its -wal and -shm files the same mode), in a folder made 0700 when new: it
   * holds key hashes and who used what.
   * @throws Error when the file cannot be opened
   */
  static async open(file: string): Promise<SqliteDb> {
    if (file !== ':memory:') {
      mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
      closeSync(openSync(file, 'a', 0o600));
      if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
    }
    const db = await new Promise<sqlite3.Database>((resolve, reject) => {
      const d = new sqlite3.Database(file, (err) => (err ? reject(err) : resolve(d)));
    });
    const s = new SqliteDb(db);
    if (file !== ':memory:') await s.run('PRAGMA journal_mode = WAL');
    await s.run('PRAGMA busy_timeout = 5000');
    // statement journals of multi-row statements in memory, not a temporary file opened,
    // written and unlinked per statement (https://www.sqlite.org/tempfiles.html, 2.5)
    await s.run('PRAGMA temp_store = MEMORY');
    return s;
  }

  /** Runs a statement. @returns rows changed */
  run(sql: string, params: unknown[] = []): Promise<number> {
    return new Promise((resolve, reject) => {
      this.db.run(sql, params, function (this: sqlite3.RunResult, err) { if (err) reject(err); else resolve(this.changes); });
    });
  }

  /** Runs a query. */
  all<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    return new Promise((resolve, reject) => this.db.all(sql, params, (err, rows) => (err ? reject(err) : resolve(rows as T[]))));
  }

  /** Runs `fn` in a transaction (BEGIN IMMEDIATE … COMMIT, ROLLBACK on error); transactions are serialised. */
  transaction<T>(fn: (tx: SqlTx) => Promise<T>): Promise<T> {
    const next = this.chain.then(async () => {
      await this.run('BEGIN IMMEDIATE');
      try { const r = await fn(this); await this.run('COMMIT'); return r; } catch (err) { await this.run('ROLLBACK').catch(() => undefined); throw err; }
    });
    this.chain = next.catch(() => undefined);
    return next;
  }

  close(): Promise<void> {
    return new Promise((resolve, reject) => this.db.close((err) => (err ? reject(err) : resolve())));
  }
}
