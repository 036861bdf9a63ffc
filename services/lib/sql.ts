/**
 * The interface of the service's SQL stores, which both backends implement
 * (services/lib/sqlite.ts, and PostgreSQL in services/lib/db.ts): statements with `?`
 * placeholders and the SQL both accept.
 */

/** Statements of one connection or transaction. */
export interface SqlTx {
  /** Runs a statement. @returns rows changed */
  run(sql: string, params?: unknown[]): Promise<number>;
  /** Runs a query. */
  all<T>(sql: string, params?: unknown[]): Promise<T[]>;
}

/** A database. */
export interface SqlDb extends SqlTx {
  /** Runs `fn` in a transaction; commits when it resolves, rolls back when it throws. */
  transaction<T>(fn: (tx: SqlTx) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /** `sqlite` or `postgres` */
  readonly dialect: 'sqlite' | 'postgres';
}
