/**
 * The usage ledger: one row per usage event, keyed by its deterministic event id
 * (`<request-id>:<item-index>`), so a replayed event is stored once (ON CONFLICT DO
 * NOTHING). SQLite in embedded mode, PostgreSQL in distributed mode. The billing
 * consumer commits a batch's offsets only after the batch's transaction committed; a
 * crash between the two redelivers events the ledger already holds, which the unique
 * event id ignores, so the pair neither double-counts nor loses an event.
 */
import type { UsageEvent } from '../events/contract.ts';
import { migrate, openDb, type SqlDb } from '../lib/db.ts';

/**
 * Events per INSERT statement: 9 parameters each, 900 in all, well under SQLite's
 * (32,766 since 3.32) and PostgreSQL's (65,535) limits on bound parameters.
 */
const ROWS_PER_STATEMENT = 100;


/** One row of a usage report. */
export interface UsageRow {
  key_id: string; capability: string; model: string; unit: string;
  /** sum of quantities in `unit` */
  quantity: number;
  /** billable units: equal to quantity, except characters, billed per started 1,000 characters of each request (spec) */
  billable_units: number;
  /** distinct requests; each text of a bulk job (key `bulk:<job>`) counts as one */
  requests: number;
}

/** Report filter; times in ms since the epoch, `to` exclusive. */
export interface ReportQuery { keyId?: string; from?: number; to?: number; }

/** See the module comment. */
export class Ledger {
  private constructor(private readonly db: SqlDb) {}

  /** Opens the ledger: a SQLite file or a PostgreSQL URL (table created when new). */
  static async open(target: string): Promise<Ledger> {
    const db = await openDb(target);
    await migrate(db, [
      `CREATE TABLE IF NOT EXISTS usage_events (
        event_id TEXT PRIMARY KEY, request_id TEXT NOT NULL, item_index INTEGER NOT NULL, key_id TEXT NOT NULL,
        capability TEXT NOT NULL, model TEXT NOT NULL, unit TEXT NOT NULL, quantity BIGINT NOT NULL, ts BIGINT NOT NULL)`,
      'CREATE INDEX IF NOT EXISTS usage_events_key_ts ON usage_events (key_id, ts)',
    ]);
    return new Ledger(db);
  }

  /**
   * Stores events in one transaction.
   * @returns how many were new and how many were replays of stored ids
   */
  async record(events: UsageEvent[]): Promise<{ inserted: number; duplicates: number }> {
    if (events.length === 0) return { inserted: 0, duplicates: 0 };
    return this.db.transaction(async (tx) => {
      let inserted = 0;
      // multi-row INSERTs: one statement per ROWS_PER_STATEMENT events instead of one per event
      for (let start = 0; start < events.length; start += ROWS_PER_STATEMENT) {
        const chunk = events.slice(start, start + ROWS_PER_STATEMENT);
        inserted += await tx.run(
          `INSERT INTO usage_events (event_id, request_id, item_index, key_id, capability, model, unit, quantity, ts) VALUES ${chunk.map(() => '(?,?,?,?,?,?,?,?,?)').join(',')} ON CONFLICT (event_id) DO NOTHING`,
          chunk.flatMap((e) => [e.eventId, e.requestId, e.itemIndex, e.keyId, e.capability, e.model, e.unit, e.quantity, e.timestampMs]),
        );
      }
      return { inserted, duplicates: events.length - inserted };
    });
  }

  /**
   * Usage per key, capability, model and unit. A bulk job's events share one request id
   * (the job's) and fold the usage of a request event's texts into one usage event
   * (connectors/lid-source.ts `--items`), so a bulk key's `requests` counts its texts: the
   * quantity in texts.
   */
  async report(q: ReportQuery = {}): Promise<UsageRow[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (q.keyId) { where.push('key_id = ?'); params.push(q.keyId); }
    if (q.from !== undefined) { where.push('ts >= ?'); params.push(q.from); }
    if (q.to !== undefined) { where.push('ts < ?'); params.push(q.to); }
    const w = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const rows = await this.db.all<UsageRow>(`
      SELECT key_id, capability, model, unit, SUM(q) AS quantity,
             SUM(CASE WHEN unit = 'characters' THEN (q + 999) / 1000 ELSE q END) AS billable_units,
             SUM(CASE WHEN key_id LIKE 'bulk:%' AND unit = 'texts' THEN q ELSE 1 END) AS requests
      FROM (SELECT key_id, capability, model, unit, CAST(SUM(quantity) AS BIGINT) AS q
            FROM (SELECT *, CASE WHEN key_id LIKE 'bulk:%' THEN request_id || ':' || item_index ELSE request_id END AS request FROM usage_events ${w}) e
            GROUP BY key_id, capability, model, unit, request) per_request
      GROUP BY key_id, capability, model, unit ORDER BY key_id, capability, model`, params);
    // PostgreSQL returns BIGINT sums as strings
    return rows.map((r) => ({ ...r, quantity: Number(r.quantity), billable_units: Number(r.billable_units), requests: Number(r.requests) }));
  }

  /** Number of stored events. */
  async count(): Promise<number> {
    return Number((await this.db.all<{ n: number }>('SELECT COUNT(*) AS n FROM usage_events'))[0]!.n);
  }

  close(): Promise<void> { return this.db.close(); }
}
