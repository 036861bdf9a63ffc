/**
 * The latency sketches of the analytics store (./store.ts) to and from their protobuf bytes
 * (DDSketch's own format, `ddsketch.proto` of DataDog/sketches-java and sketches-js), with
 * @datadog/sketches-js (Apache-2.0) and its compiled protobuf messages.
 *
 * The library's own `DDSketch.fromProto` rebuilds a store by adding its bins one at a time,
 * and each bin past the current range shifts and regrows the bin array; its `toProto` calls
 * `require()` three times per sketch (under tsx, a module resolution each). The store reads
 * and writes every touched bucket's sketch once per transaction, and on the embedded batch
 * route with outcome events this was most of what outcome events added to the process:
 * 390 MB of the 820 MB it allocated in 5 s at 250 requests/s (a sampling heap profile,
 * issue 17). Here the bins are copied into the store in one step (`DenseStore.copy`), and
 * the protobuf messages are loaded once. A sketch whose mapping is not the store's
 * ({@link SKETCH_ACCURACY}, logarithmic, no interpolation) is left to the library.
 */
import { DDSketch } from '@datadog/sketches-js';
import { createRequire } from 'node:module';

/** Relative accuracy of the latency sketches (a p99 of 200 ms is reported within ±2 ms). */
export const SKETCH_ACCURACY = 0.01;

/** A store's bins as the protobuf message `Store` has them (only the contiguous form is written). */
interface ProtoStore { contiguousBinCounts?: number[] | null; contiguousBinIndexOffset?: number | null; binCounts?: Record<string, number> | null; }
/** The protobuf message `DDSketch`. */
interface ProtoSketch {
  mapping?: { gamma?: number | null; indexOffset?: number | null; interpolation?: number | null } | null;
  positiveValues?: ProtoStore | null; negativeValues?: ProtoStore | null; zeroCount?: number | null;
}
/** A message class of protobufjs' static code. */
interface MessageClass<T> { create(v: T): unknown; encode(m: unknown): { finish(): Uint8Array }; decode(b: Uint8Array): T; }

const proto = createRequire(import.meta.url)('@datadog/sketches-js/dist/ddsketch/proto/compiled.js') as { DDSketch: MessageClass<ProtoSketch> };

/** A new, empty sketch of the store's accuracy. */
export const newSketch = (): DDSketch => new DDSketch({ relativeAccuracy: SKETCH_ACCURACY });
const REFERENCE = newSketch();

/** A sketch's fields the library does not declare in its types. */
interface Mapped { mapping: { gamma: number; _offset: number }; }

/**
 * A store's protobuf message as the fields of a DenseStore (the library's fromProto
 * adds every bin from the offset on, zero or not, so its minimum and maximum keys are the
 * first and last bin's).
 */
function denseOf(s: ProtoStore | null | undefined): { bins: number[]; count: number; minKey: number; maxKey: number; offset: number } | undefined {
  if (s?.binCounts && Object.keys(s.binCounts).length > 0) return undefined;
  const bins = s?.contiguousBinCounts ?? [];
  const offset = s?.contiguousBinIndexOffset ?? 0;
  let count = 0;
  for (const c of bins) count += c;
  return bins.length === 0
    ? { bins: [], count: 0, minKey: Infinity, maxKey: -Infinity, offset }
    : { bins, count, minKey: offset, maxKey: offset + bins.length - 1, offset };
}

/**
 * The sketch serialized in protobuf bytes. Summary statistics other than the counts (min,
 * max, sum) are not in the format, as with the library's `toProto`.
 */
export function sketchToProto(s: DDSketch): Uint8Array {
  const m = (s as unknown as Mapped).mapping;
  return proto.DDSketch.encode(proto.DDSketch.create({
    mapping: { gamma: m.gamma, indexOffset: m._offset, interpolation: 0 },
    positiveValues: { contiguousBinCounts: s.store.bins, contiguousBinIndexOffset: s.store.offset },
    negativeValues: { contiguousBinCounts: s.negativeStore.bins, contiguousBinIndexOffset: s.negativeStore.offset },
    zeroCount: s.zeroCount,
  })).finish();
}

/**
 * A sketch from its protobuf bytes: the same counts and quantiles as the library's
 * `DDSketch.fromProto`, and mergeable with {@link newSketch}'s.
 * @throws Error when the bytes are not a DDSketch message (from protobufjs or the library)
 */
export function sketchFromProto(bytes: Uint8Array): DDSketch {
  const decoded = proto.DDSketch.decode(bytes);
  const mapping = (REFERENCE as unknown as Mapped).mapping;
  const positive = denseOf(decoded.positiveValues), negative = denseOf(decoded.negativeValues);
  if (decoded.mapping?.gamma !== mapping.gamma || (decoded.mapping.indexOffset ?? 0) !== mapping._offset || (decoded.mapping.interpolation ?? 0) !== 0
    || !positive || !negative) {
    return DDSketch.fromProto(bytes) as DDSketch;
  }
  const s = newSketch();
  s.store.copy(positive as never);
  s.negativeStore.copy(negative as never);
  s.zeroCount = decoded.zeroCount ?? 0;
  s.count = positive.count + negative.count + s.zeroCount;
  return s;
}
