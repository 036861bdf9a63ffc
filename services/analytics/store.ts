/**
 * The analytics store (issue 16): outcome events (schemas/common/outcome.avsc) folded into
 * one-minute buckets per capability × model × API key × status × code × label (the label
 * only for language ID), each with counts (events, items, billable units), sums of queue
 * and inference times, a confidence histogram in tenths and a latency sketch of the total
 * time: a DDSketch (Masson, Rim and Lee, "DDSketch: A Fast and Fully-Mergeable Quantile
 * Sketch with Relative-Error Guarantees", VLDB 2019; @datadog/sketches-js, Apache-2.0) with
 * 1 % relative accuracy, stored as its protobuf bytes and merged across buckets when
 * queried. SQLite in embedded mode, PostgreSQL in distributed mode (services/lib/db.ts).
 *
 * Idempotent on replay, two ways. A consumed batch's next offset per topic partition is
 * stored in the same transaction as its buckets (`analytics_offsets`), so messages
 * delivered again after a crash between the write and the commit are skipped, also by a
 * new process. Events repeated in other messages (a producer retrying a write that had
 * in fact succeeded) are skipped by event id among the last {@link RECENT_IDS} ids this
 * process counted. A row per event id in the database (the first design) cost the
 * embedded pipeline about a fifth of its throughput in `npm run bench` on 2 cores, and
 * would hold billions of ids at a few thousand requests per second.
 * Retention ({@link AnalyticsStore.applyRetention}):
 * minute buckets older than `minutesMs` (default 7 days) are rolled up into hour buckets
 * and deleted, hour buckets older than `hoursMs` (default 400 days) are deleted.
 */
import type { DDSketch } from '@datadog/sketches-js';
import { setImmediate } from 'node:timers/promises';
import type { OutcomeEvent } from '../events/contract.ts';
import { migrate, openDb, type SqlDb, type SqlTx } from '../lib/db.ts';
import { newSketch, sketchFromProto, sketchToProto } from './sketch.ts';

export { SKETCH_ACCURACY } from './sketch.ts';
/** Event ids remembered in memory to skip repeats (about 40 MB at most). */
export const RECENT_IDS = 200_000;
/** Retention defaults, ms. */
export const RETENTION = { minutesMs: 7 * 86_400_000, hoursMs: 400 * 86_400_000 } as const;
const MINUTE = 60_000, HOUR = 3_600_000;

/** The dimensions of a bucket ('' for a missing model, code or label). */
export interface BucketKey { capability: string; model: string; keyId: string; status: number; code: string; label: string; }

/** A bucket's measures. */
export interface BucketValues {
  events: number; items: number; billable: number;
  queueMs: number; queueN: number; inferenceMs: number; inferenceN: number;
  /** counts per confidence tenth, 0–9 */
  confidence: number[];
  /** total time of each event, ms */
  latency: DDSketch;
}

/** A stored bucket. */
export interface Bucket extends BucketKey, BucketValues { start: number; }

/** The start of the minute (or hour) holding `ms`. */
export const bucketOf = (ms: number, size = MINUTE): number => Math.floor(ms / size) * size;

const emptyValues = (): BucketValues => ({ events: 0, items: 0, billable: 0, queueMs: 0, queueN: 0, inferenceMs: 0, inferenceN: 0, confidence: new Array<number>(10).fill(0), latency: newSketch() });

/** Adds `b` into `a` (counts, sums, histogram; sketches merged). */
export function mergeValues(a: BucketValues, b: BucketValues): BucketValues {
  a.events += b.events; a.items += b.items; a.billable += b.billable;
  a.queueMs += b.queueMs; a.queueN += b.queueN; a.inferenceMs += b.inferenceMs; a.inferenceN += b.inferenceN;
  b.confidence.forEach((n, i) => { a.confidence[i]! += n; });
  if (b.latency.count > 0) a.latency.merge(b.latency);
  return a;
}

/** Adds one event's measures into `v` (its total time goes straight into v's sketch: a sketch per event cost more than the rest of the fold). */
function addEvent(v: BucketValues, e: OutcomeEvent): void {
  v.events += 1; v.items += e.items; v.billable += e.billable;
  if (e.queueMs != null) { v.queueMs += e.queueMs; v.queueN += 1; }
  if (e.inferenceMs != null) { v.inferenceMs += e.inferenceMs; v.inferenceN += 1; }
  if (e.confidenceBucket != null) v.confidence[Math.max(0, Math.min(9, e.confidenceBucket))]! += 1;
  v.latency.accept(Math.max(0, e.totalMs));
}

const keyOf = (e: OutcomeEvent): BucketKey => ({ capability: e.capability, model: e.model ?? '', keyId: e.keyId, status: e.status, code: e.code ?? '', label: e.capability === 'language-id' ? e.label ?? '' : '' });
const keyText = (start: number, k: BucketKey) => JSON.stringify([start, k.capability, k.model, k.keyId, k.status, k.code, k.label]);

interface Row {
  bucket: number | string; capability: string; model: string; key_id: string; status: number; code: string; label: string;
  events: number | string; items: number | string; billable: number | string; queue_ms: number | string; queue_n: number | string;
  inference_ms: number | string; inference_n: number | string; confidence: string; latency: Uint8Array;
}
const COLUMNS = 'bucket, capability, model, key_id, status, code, label, events, items, billable, queue_ms, queue_n, inference_ms, inference_n, confidence, latency';
const KEY_COLUMNS = 'bucket, capability, model, key_id, status, code, label';

function fromRow(r: Row): Bucket {
  return {
    start: Number(r.bucket), capability: r.capability, model: r.model, keyId: r.key_id, status: Number(r.status), code: r.code, label: r.label,
    events: Number(r.events), items: Number(r.items), billable: Number(r.billable), queueMs: Number(r.queue_ms), queueN: Number(r.queue_n),
    inferenceMs: Number(r.inference_ms), inferenceN: Number(r.inference_n), confidence: JSON.parse(r.confidence) as number[],
    latency: sketchFromProto(r.latency),
  };
}
const toParams = (b: Bucket) => [b.start, b.capability, b.model, b.keyId, b.status, b.code, b.label, b.events, b.items, b.billable,
  b.queueMs, b.queueN, b.inferenceMs, b.inferenceN, JSON.stringify(b.confidence), Buffer.from(sketchToProto(b.latency))];

/** A set of event ids (request id, item index), kept by request: the events of one request share its id string, so a lookup hashes it once. */
class EventIds {
  private readonly byRequest = new Map<string, Set<number>>();
  has(requestId: string, itemIndex: number): boolean { return this.byRequest.get(requestId)?.has(itemIndex) === true; }
  add(requestId: string, itemIndex: number): void {
    const items = this.byRequest.get(requestId);
    if (items) items.add(itemIndex); else this.byRequest.set(requestId, new Set([itemIndex]));
  }
  delete(requestId: string, itemIndex: number): void {
    const items = this.byRequest.get(requestId);
    if (items?.delete(itemIndex) && items.size === 0) this.byRequest.delete(requestId);
  }
}

/** See the module comment. */
export class AnalyticsStore {
  private constructor(private readonly db: SqlDb) {}

  /** Opens the store: a SQLite file or a PostgreSQL URL (tables created when new). */
  static async open(target: string): Promise<AnalyticsStore> {
    const db = await openDb(target);
    const blob = db.dialect === 'postgres' ? 'BYTEA' : 'BLOB';
    const table = (name: string) => `CREATE TABLE IF NOT EXISTS ${name} (
      bucket BIGINT NOT NULL, capability TEXT NOT NULL, model TEXT NOT NULL, key_id TEXT NOT NULL, status INTEGER NOT NULL, code TEXT NOT NULL, label TEXT NOT NULL,
      events BIGINT NOT NULL, items BIGINT NOT NULL, billable BIGINT NOT NULL, queue_ms BIGINT NOT NULL, queue_n BIGINT NOT NULL,
      inference_ms BIGINT NOT NULL, inference_n BIGINT NOT NULL, confidence TEXT NOT NULL, latency ${blob} NOT NULL,
      PRIMARY KEY (${KEY_COLUMNS}))`;
    await migrate(db, [
      'CREATE TABLE IF NOT EXISTS analytics_offsets (topic TEXT NOT NULL, part INTEGER NOT NULL, next_offset BIGINT NOT NULL, PRIMARY KEY (topic, part))',
      table('analytics_minutes'),
      'CREATE INDEX IF NOT EXISTS analytics_minutes_key ON analytics_minutes (key_id, bucket)',
      table('analytics_hours'),
      'CREATE INDEX IF NOT EXISTS analytics_hours_key ON analytics_hours (key_id, bucket)',
    ]);
    return new AnalyticsStore(db);
  }

  /** Event ids counted lately (see the module comment), and the same ids in a ring, so the oldest is forgotten in O(1). */
  private readonly recent = new EventIds();
  private readonly ringRequests: string[] = new Array<string>(RECENT_IDS);
  private readonly ringItems = new Int32Array(RECENT_IDS);
  private ringAt = 0;

  private remember(requestId: string, itemIndex: number): void {
    const old = this.ringRequests[this.ringAt];
    if (old !== undefined) this.recent.delete(old, this.ringItems[this.ringAt]!);
    this.ringRequests[this.ringAt] = requestId;
    this.ringItems[this.ringAt] = itemIndex;
    this.ringAt = (this.ringAt + 1) % RECENT_IDS;
    this.recent.add(requestId, itemIndex);
  }

  /**
   * Folds events into their minute buckets in one transaction, skipping event ids counted
   * lately (see the module comment).
   * @returns how many were counted and how many were skipped as repeats
   */
  async record(events: OutcomeEvent[]): Promise<{ inserted: number; duplicates: number }> {
    return this.recordFolded(async function* () { yield events; }, async () => 0);
  }

  /**
   * Folds the events of a consumed batch (messages of one topic partition, in offset order)
   * and stores the partition's next offset in the same transaction; messages before the
   * stored offset were counted already and are skipped (a redelivery after a crash).
   * @returns events counted and events skipped (replayed messages, or repeated ids)
   */
  async recordBatch(topic: string, partition: number, messages: Array<{ offset: number; events: OutcomeEvent[] }>): Promise<{ inserted: number; duplicates: number }> {
    return this.recordBatches([{ topic, partition, messages }]);
  }

  /**
   * {@link recordBatch} for the batches of several partitions in one transaction: each
   * bucket they touch is read and written once (batches of one partition are taken in
   * the order given).
   * @returns events counted and events skipped, over all the batches
   */
  async recordBatches(batches: ReadonlyArray<{ topic: string; partition: number; messages: ReadonlyArray<{ offset: number; events: OutcomeEvent[] }> }>): Promise<{ inserted: number; duplicates: number }> {
    const parts = new Map<string, { topic: string; partition: number; messages: Array<{ offset: number; events: OutcomeEvent[] }>; next: number; known: boolean }>();
    for (const b of batches) {
      const key = `${b.topic}\u0000${b.partition}`;
      const p = parts.get(key);
      if (p) p.messages.push(...b.messages); else parts.set(key, { topic: b.topic, partition: b.partition, messages: [...b.messages], next: -1, known: false });
    }
    for (const [key, p] of parts) if (p.messages.length === 0) parts.delete(key);
    if (parts.size === 0) return { inserted: 0, duplicates: 0 };
    return this.recordFolded(async function* (tx: SqlTx) {
      for (const p of parts.values()) {
        const [row] = await tx.all<{ next_offset: number | string }>('SELECT next_offset FROM analytics_offsets WHERE topic = ? AND part = ?', [p.topic, p.partition]);
        p.known = row !== undefined;
        p.next = row ? Number(row.next_offset) : -1;
        for (const m of p.messages) if (m.offset >= p.next) yield m.events;
      }
    }, async (tx) => {
      let replayed = 0;
      for (const p of parts.values()) {
        const last = Math.max(...p.messages.map((m) => m.offset)) + 1;
        if (last > p.next) {
          await tx.run(p.known ? 'UPDATE analytics_offsets SET next_offset = ? WHERE topic = ? AND part = ?' : 'INSERT INTO analytics_offsets (next_offset, topic, part) VALUES (?,?,?)', [last, p.topic, p.partition]);
        }
        replayed += p.messages.filter((m) => m.offset < p.next).reduce((n, m) => n + m.events.length, 0);
      }
      return replayed;
    });
  }

  /**
   * Folds groups of events (a message's each) into minute buckets in memory, letting the
   * event loop run between groups (a second of a gateway's outcome events is thousands),
   * then adds the buckets to their stored rows and runs `finish` in the same transaction.
   * Event ids are remembered only once the transaction has committed, so a batch whose
   * write failed is counted when it is delivered again.
   * @param finish more writes of the transaction; returns events skipped as replayed
   */
  private async recordFolded(source: (tx: SqlTx) => AsyncIterable<OutcomeEvent[]>, finish: (tx: SqlTx) => Promise<number>): Promise<{ inserted: number; duplicates: number }> {
    const ids: Array<[string, number]> = [];
    const r = await this.db.transaction(async (tx) => {
      // buckets by their request-level dimensions, then by status, code and label: the events
      // of one request share the first (the same strings), so most events hash only a short key
      const groups = new Map<string, Map<string, Bucket>>();
      const batchIds = new EventIds();
      let duplicates = 0;
      let last: OutcomeEvent | undefined, inner: Map<string, Bucket> | undefined;
      for await (const events of source(tx)) {
        for (const e of events) {
          if (this.recent.has(e.requestId, e.itemIndex) || batchIds.has(e.requestId, e.itemIndex)) { duplicates++; continue; }
          batchIds.add(e.requestId, e.itemIndex);
          ids.push([e.requestId, e.itemIndex]);
          if (!last || last.timestampMs !== e.timestampMs || last.capability !== e.capability || last.model !== e.model || last.keyId !== e.keyId) {
            const outer = `${bucketOf(e.timestampMs)}\u0000${e.capability}\u0000${e.model ?? ''}\u0000${e.keyId}`;
            inner = groups.get(outer);
            if (!inner) groups.set(outer, inner = new Map());
            last = e;
          }
          const id = `${e.status}\u0000${e.code ?? ''}\u0000${e.capability === 'language-id' ? e.label ?? '' : ''}`;
          let g = inner!.get(id);
          if (!g) inner!.set(id, g = { start: bucketOf(e.timestampMs), ...keyOf(e), ...emptyValues() });
          addEvent(g, e);
        }
        if (events.length > 0) await setImmediate();
      }
      for (const inner of groups.values()) for (const b of inner.values()) await this.upsert(tx, 'analytics_minutes', b);
      const replayed = await finish(tx);
      return { inserted: ids.length, duplicates: duplicates + replayed };
    });
    for (const [requestId, itemIndex] of ids) this.remember(requestId, itemIndex);
    return r;
  }

  /**
   * Adds a bucket into its stored row (read, merge, write), or stores it. On PostgreSQL the
   * row is read FOR UPDATE: analytics consumers of other partitions add to the same buckets,
   * and two read-merge-writes at once would lose one's events. (Two first inserts at once:
   * one fails on the primary key, its transaction rolls back and the batch is delivered again.)
   */
  private async upsert(tx: SqlTx, table: 'analytics_minutes' | 'analytics_hours', b: Bucket): Promise<void> {
    const lock = this.db.dialect === 'postgres' ? ' FOR UPDATE' : '';
    const [row] = await tx.all<Row>(`SELECT ${COLUMNS} FROM ${table} WHERE bucket = ? AND capability = ? AND model = ? AND key_id = ? AND status = ? AND code = ? AND label = ?${lock}`,
      [b.start, b.capability, b.model, b.keyId, b.status, b.code, b.label]);
    if (!row) {
      await tx.run(`INSERT INTO ${table} (${COLUMNS}) VALUES (${new Array(16).fill('?').join(',')})`, toParams(b));
      return;
    }
    const merged = fromRow(row);
    mergeValues(merged, b);
    await tx.run(`UPDATE ${table} SET events = ?, items = ?, billable = ?, queue_ms = ?, queue_n = ?, inference_ms = ?, inference_n = ?, confidence = ?, latency = ?
      WHERE bucket = ? AND capability = ? AND model = ? AND key_id = ? AND status = ? AND code = ? AND label = ?`,
    [...toParams(merged).slice(7), b.start, b.capability, b.model, b.keyId, b.status, b.code, b.label]);
  }

  /**
   * The buckets of a time range, minute buckets where they are kept and hour buckets
   * before that.
   * @param from ms since the epoch, inclusive
   * @param to ms since the epoch, exclusive
   * @param keyId only this key's buckets (undefined: every key's)
   */
  async buckets(from: number, to: number, keyId?: string): Promise<Bucket[]> {
    const out: Bucket[] = [];
    for (const table of ['analytics_hours', 'analytics_minutes']) {
      const rows = await this.db.all<Row>(`SELECT ${COLUMNS} FROM ${table} WHERE bucket >= ? AND bucket < ?${keyId !== undefined ? ' AND key_id = ?' : ''} ORDER BY bucket`,
        keyId !== undefined ? [from, to, keyId] : [from, to]);
      out.push(...rows.map(fromRow));
    }
    return out.sort((a, b) => a.start - b.start);
  }

  /**
   * Retention (see the module comment): rolls minute buckets older than `minutesMs` into
   * hour buckets, deletes them, and deletes hour buckets older than `hoursMs`.
   * @param now ms since the epoch
   * @returns minute buckets rolled up and hour buckets deleted
   */
  async applyRetention(now = Date.now(), retention: { minutesMs: number; hoursMs: number } = RETENTION): Promise<{ rolledUp: number; hoursDeleted: number }> {
    // whole hours only: an hour is rolled up once all its minutes are past the retention
    const cut = bucketOf(now - retention.minutesMs, HOUR);
    return this.db.transaction(async (tx) => {
      const old = (await tx.all<Row>(`SELECT ${COLUMNS} FROM analytics_minutes WHERE bucket < ?`, [cut])).map(fromRow);
      const hours = new Map<string, Bucket>();
      for (const m of old) {
        const start = bucketOf(m.start, HOUR);
        const id = keyText(start, m);
        const h = hours.get(id);
        if (h) mergeValues(h, m); else hours.set(id, { ...m, start });
      }
      for (const h of hours.values()) await this.upsert(tx, 'analytics_hours', h);
      await tx.run('DELETE FROM analytics_minutes WHERE bucket < ?', [cut]);
      const hoursDeleted = await tx.run('DELETE FROM analytics_hours WHERE bucket < ?', [bucketOf(now - retention.hoursMs, HOUR)]);
      return { rolledUp: old.length, hoursDeleted };
    });
  }

  async close(): Promise<void> { await this.db.close(); }
}
