/**
 * Grouping and stepping of analytics buckets (services/analytics/query.ts): steps aligned
 * to the range's start, sketches merged per step and group, filters, and the series limit.
 */
import { DDSketch } from '@datadog/sketches-js';
import { describe, expect, it } from 'vitest';
import { aggregate, defaultStep, MAX_SERIES } from '../../services/analytics/query.ts';
import { SKETCH_ACCURACY, type Bucket } from '../../services/analytics/store.ts';

const bucket = (start: number, o: Partial<Bucket> = {}, latencies = [10]): Bucket => {
  const latency = new DDSketch({ relativeAccuracy: SKETCH_ACCURACY });
  for (const l of latencies) latency.accept(l);
  return {
    start, capability: 'language-id', model: 'lid-lite-608', keyId: 'k', status: 200, code: '', label: 'swh_Latn',
    events: latencies.length, items: latencies.length, billable: latencies.length, queueMs: 0, queueN: 0, inferenceMs: 0, inferenceN: 0,
    confidence: new Array<number>(10).fill(0), latency, ...o,
  };
};

describe('aggregate', () => {
  it('sums buckets into steps from the range start and merges their latency sketches', () => {
    const m = 60_000;
    const buckets = [bucket(0, {}, [10, 20]), bucket(m, {}, [30]), bucket(5 * m, {}, [1000]), bucket(m, { status: 400, code: 'INVALID_REQUEST', label: '' }, [1])];
    const { series, totals } = aggregate(buckets, { from: 0, to: 10 * m, stepMs: 5 * m, groupBy: ['status'], filters: {} });
    expect(totals).toMatchObject({ events: 5, errors: 1 });
    const ok = series.find((s) => s.group.status === 200)!;
    expect(ok.points.map((p) => [p.t, p.events])).toEqual([[new Date(0).toISOString(), 3], [new Date(5 * m).toISOString(), 1]]);
    // DDSketch's quantile is the value at rank q·(n − 1): the median of 10, 20, 30 is 20 (0.1 ms: the API rounds to tenths)
    expect(Math.abs(ok.points[0]!.p50_ms! - 20)).toBeLessThanOrEqual(20 * SKETCH_ACCURACY + 0.1);
    expect(Math.abs(ok.points[1]!.p50_ms! - 1000)).toBeLessThanOrEqual(1000 * SKETCH_ACCURACY + 0.1);
    expect(Math.abs(ok.totals.p99_ms! - 30)).toBeLessThanOrEqual(30 * SKETCH_ACCURACY + 0.1);
    expect(aggregate(buckets, { from: 0, to: 10 * m, stepMs: m, groupBy: [], filters: { code: 'INVALID_REQUEST' } }).totals.events).toBe(1);
    expect(aggregate(buckets, { from: m, to: 5 * m, stepMs: m, groupBy: [], filters: {} }).totals.events).toBe(2);
  });
  it('tells bulk ingestion (keys bulk:<job>) from gateway traffic by the source dimension', () => {
    const buckets = [bucket(0, { keyId: 'bulk:web1' }, [1, 2]), bucket(0, { keyId: 'env-abc' }, [3])];
    const bySource = aggregate(buckets, { from: 0, to: 60_000, stepMs: 60_000, groupBy: ['source'], filters: {} });
    expect(Object.fromEntries(bySource.series.map((s) => [s.group.source, s.totals.events]))).toEqual({ bulk: 2, gateway: 1 });
    expect(aggregate(buckets, { from: 0, to: 60_000, stepMs: 60_000, groupBy: [], filters: { source: 'gateway' } }).totals.events).toBe(1);
  });
  it('refuses more series than the limit', () => {
    const many = Array.from({ length: MAX_SERIES + 1 }, (_, i) => bucket(0, { keyId: `k${i}` }));
    expect(() => aggregate(many, { from: 0, to: 60_000, stepMs: 60_000, groupBy: ['key'], filters: {} })).toThrow(RangeError);
  });
  it('picks a step that keeps a range within 120 points', () => {
    expect(defaultStep(3_600_000)).toBe(60_000);
    expect(defaultStep(86_400_000)).toBe(900_000);
    expect(defaultStep(30 * 86_400_000)).toBe(21_600_000);
  });
});
