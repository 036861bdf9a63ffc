/**
 * Time series and group-bys over analytics buckets (./store.ts) for GET /v1/analytics
 * (issue 16): buckets are filtered, grouped by the asked dimensions and summed into steps,
 * their latency sketches merged, so percentiles of a step or a group are those of all its
 * events (within the sketch's 1 % relative accuracy).
 */
import { newSketch } from './sketch.ts';
import { mergeValues, type Bucket, type BucketValues } from './store.ts';

/**
 * Dimensions a query can group or filter by: `key` is the API key's id (a bulk ingestion's
 * events carry `bulk:<job>`, connectors/lid-source.ts); `source` is `bulk` for those and
 * `gateway` for the rest.
 */
export const DIMENSIONS = ['capability', 'model', 'key', 'status', 'code', 'label', 'source'] as const;
/** A dimension. */
export type Dimension = (typeof DIMENSIONS)[number];

/** Steps the API accepts by name, ms. */
export const STEPS: Readonly<Record<string, number>> = { '1m': 60_000, '5m': 300_000, '15m': 900_000, '1h': 3_600_000, '6h': 21_600_000, '1d': 86_400_000 };
/** Longest range, ms (the hour buckets' retention). */
export const MAX_RANGE_MS = 400 * 86_400_000;
/** Most steps a range may hold. */
export const MAX_POINTS = 1440;
/** Most series (groups) an answer may hold. */
export const MAX_SERIES = 500;

/** A parsed query. */
export interface AnalyticsQuery {
  from: number; to: number; stepMs: number;
  groupBy: Dimension[];
  filters: Partial<Record<Dimension, string>>;
}

/** The measures of a step, a series or the whole answer. */
export interface Measures {
  events: number; items: number; billable: number;
  /** events whose status is not 200 */
  errors: number;
  p50_ms: number | null; p95_ms: number | null; p99_ms: number | null;
  queue_ms_avg: number | null; inference_ms_avg: number | null;
}

/** A series: a group's values per step (steps without events left out) and its totals. */
export interface Series {
  group: Partial<Record<Dimension, string | number>>;
  points: Array<Measures & { t: string }>;
  totals: Measures & { confidence: number[] };
}

/** The key id prefix of a bulk ingestion's events. */
export const BULK_KEY_PREFIX = 'bulk:';

const valueOf = (b: Bucket, d: Dimension): string | number =>
  d === 'source' ? (b.keyId.startsWith(BULK_KEY_PREFIX) ? 'bulk' : 'gateway') : d === 'key' ? b.keyId : d === 'status' ? b.status : d === 'capability' ? b.capability : d === 'model' ? b.model : d === 'code' ? b.code : b.label;

/** The step a query gets without one: the smallest named step that keeps the range within 120 points. */
export function defaultStep(rangeMs: number): number {
  return Object.values(STEPS).find((s) => rangeMs / s <= 120) ?? STEPS['1d']!;
}

const empty = (): BucketValues & { errors: number } => ({
  events: 0, items: 0, billable: 0, queueMs: 0, queueN: 0, inferenceMs: 0, inferenceN: 0, confidence: new Array<number>(10).fill(0),
  latency: newSketch(), errors: 0,
});

function add(into: BucketValues & { errors: number }, b: Bucket): void {
  mergeValues(into, b);
  if (b.status !== 200) into.errors += b.events;
}

function measures(v: BucketValues & { errors: number }): Measures {
  const q = (p: number) => (v.latency.count > 0 ? Math.round(v.latency.getValueAtQuantile(p) * 10) / 10 : null);
  return {
    events: v.events, items: v.items, billable: v.billable, errors: v.errors,
    p50_ms: q(0.5), p95_ms: q(0.95), p99_ms: q(0.99),
    queue_ms_avg: v.queueN > 0 ? Math.round((v.queueMs / v.queueN) * 10) / 10 : null,
    inference_ms_avg: v.inferenceN > 0 ? Math.round((v.inferenceMs / v.inferenceN) * 10) / 10 : null,
  };
}

/**
 * Groups and sums buckets (see the module comment). Buckets outside [from, to) or not
 * matching the filters are left out.
 * @throws RangeError when the answer would hold more than {@link MAX_SERIES} series
 */
export function aggregate(buckets: readonly Bucket[], q: AnalyticsQuery): { series: Series[]; totals: Measures } {
  const groups = new Map<string, { group: Series['group']; steps: Map<number, BucketValues & { errors: number }>; total: BucketValues & { errors: number } }>();
  const all = empty();
  for (const b of buckets) {
    if (b.start < q.from || b.start >= q.to) continue;
    if (DIMENSIONS.some((d) => q.filters[d] !== undefined && String(valueOf(b, d)) !== q.filters[d])) continue;
    const group = Object.fromEntries(q.groupBy.map((d) => [d, valueOf(b, d)]));
    const id = JSON.stringify(q.groupBy.map((d) => valueOf(b, d)));
    let g = groups.get(id);
    if (!g) {
      if (groups.size >= MAX_SERIES) throw new RangeError(`more than ${MAX_SERIES} series: narrow the filters or group by fewer dimensions`);
      groups.set(id, g = { group, steps: new Map(), total: empty() });
    }
    const t = q.from + Math.floor((b.start - q.from) / q.stepMs) * q.stepMs;
    let step = g.steps.get(t);
    if (!step) g.steps.set(t, step = empty());
    // merging reads the bucket's sketch and changes only the aggregate's
    add(step, b);
    add(g.total, b);
    add(all, b);
  }
  const series = [...groups.values()].map((g) => ({
    group: g.group,
    points: [...g.steps].sort((a, b) => a[0] - b[0]).map(([t, v]) => ({ t: new Date(t).toISOString(), ...measures(v) })),
    totals: { ...measures(g.total), confidence: g.total.confidence },
  })).sort((a, b) => b.totals.events - a.totals.events);
  return { series, totals: measures(all) };
}
