/**
 * The latency sketches' protobuf bytes (services/analytics/sketch.ts) against
 * @datadog/sketches-js's own toProto/fromProto.
 */
import { DDSketch } from '@datadog/sketches-js';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { newSketch, sketchFromProto, sketchToProto, SKETCH_ACCURACY } from '../../services/analytics/sketch.ts';

const QUANTILES = [0, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 1];
/** A deterministic pseudo-random source (mulberry32). */
function random(seed: number): () => number {
  return () => { seed = (seed + 0x6d2b79f5) | 0; let t = Math.imul(seed ^ (seed >>> 15), 1 | seed); t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t; return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
}
function sketchOf(values: number[], accuracy = SKETCH_ACCURACY): DDSketch {
  const s = new DDSketch({ relativeAccuracy: accuracy });
  for (const v of values) s.accept(v);
  return s;
}
const summary = (s: DDSketch) => ({ count: s.count, zero: s.zeroCount, q: s.count > 0 ? QUANTILES.map((q) => s.getValueAtQuantile(q)) : [] });
/**
 * The library's fromProto rebuilds the mapping from gamma alone, so its quantiles differ
 * from the written sketch's in the last digits; ours keep the written mapping.
 */
function expectClose(a: DDSketch, b: DDSketch): void {
  const x = summary(a), y = summary(b);
  expect({ count: x.count, zero: x.zero }).toEqual({ count: y.count, zero: y.zero });
  expect(x.q).toHaveLength(y.q.length);
  x.q.forEach((v, i) => expect(Math.abs(v - y.q[i]!), `quantile ${QUANTILES[i]}`).toBeLessThanOrEqual(Math.abs(y.q[i]!) * 1e-12));
}

describe('latency sketch protobuf', () => {
  const r = random(17);
  const cases: Array<[string, number[]]> = [
    ['empty', []],
    ['one value', [12.5]],
    ['request latencies', Array.from({ length: 5000 }, () => Math.exp(r() * 9) / 10)],
    ['zeros and negatives', Array.from({ length: 500 }, (_, i) => (i % 7 === 0 ? 0 : (r() - 0.3) * 1000))],
    ['wide range', [1e-3, 1, 1e3, 1e6, 3.5, 3.5, 3.5]],
  ];

  it.each(cases)('reads back what the library reads (%s), from its bytes and from ours', (_, values) => {
    const s = sketchOf(values);
    const library = DDSketch.fromProto(s.toProto());
    // the written sketch's counts and quantiles, exactly
    expect(summary(sketchFromProto(s.toProto()))).toEqual(summary(s));
    expect(summary(sketchFromProto(sketchToProto(s)))).toEqual(summary(s));
    expectClose(sketchFromProto(sketchToProto(s)), library);
    expectClose(DDSketch.fromProto(sketchToProto(s)), library);
  });

  it('gives sketches that take more values and merge like the library\'s', () => {
    const first = sketchOf(Array.from({ length: 300 }, () => 5 + r() * 20));
    const later = Array.from({ length: 300 }, () => r() * 2000);
    const ours = sketchFromProto(sketchToProto(first));
    const theirs = DDSketch.fromProto(first.toProto());
    for (const v of later) { ours.accept(v); theirs.accept(v); }
    const other = sketchOf(Array.from({ length: 200 }, () => 0.01 + r()));
    ours.merge(other);
    theirs.merge(other);
    expectClose(ours, theirs);
    // and merge into a new sketch of the store's accuracy
    const fresh = newSketch();
    fresh.merge(ours);
    expect(summary(fresh)).toEqual(summary(ours));
  });

  it('reads a store whose first and last bins hold counts (as other DDSketch implementations write them)', () => {
    const written = newSketch() as unknown as { mapping: { gamma: number; _offset: number } };
    const proto = createRequire(import.meta.url)('@datadog/sketches-js/dist/ddsketch/proto/compiled.js') as { DDSketch: { create(v: object): unknown; encode(m: unknown): { finish(): Uint8Array } } };
    const bytes = proto.DDSketch.encode(proto.DDSketch.create({
      mapping: { gamma: written.mapping.gamma, indexOffset: written.mapping._offset, interpolation: 0 },
      positiveValues: { contiguousBinCounts: [3, 0, 2, 5], contiguousBinIndexOffset: 100 },
      negativeValues: { contiguousBinCounts: [1], contiguousBinIndexOffset: 7 }, zeroCount: 2,
    })).finish();
    const ours = sketchFromProto(bytes), theirs = DDSketch.fromProto(bytes);
    expectClose(ours, theirs);
    // merged into sketches that hold values below and above its bins: every bin counts
    const into = (s: DDSketch) => { const t = sketchOf([0.5, 1e4, -3]); t.merge(s); return t; };
    expectClose(into(ours), into(theirs));
    expect(into(ours).count).toBe(3 + 13);
  });

  it('leaves a sketch of another mapping to the library', () => {
    const s = sketchOf([1, 2, 3, 400, 5000], 0.05);
    const read = sketchFromProto(s.toProto());
    expect(summary(read)).toEqual(summary(DDSketch.fromProto(s.toProto())));
    expectClose(read, s);
    expect(() => newSketch().merge(read)).toThrow();
  });

  it('refuses bytes that are not a sketch', () => {
    expect(() => sketchFromProto(Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0xff]))).toThrow();
  });
});
