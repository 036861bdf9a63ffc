/**
 * Temperature scaling by text length, shared by decoding (./decode.ts) and the
 * word-frequency stage (./vocabulary.ts), which decode.ts itself imports.
 */

/**
 * Temperature of texts up to `maxChars` characters (trimmed, code points); the last
 * bucket has `maxChars` null (any length). Temperature scaling (Guo et al. 2017) fitted
 * per length bucket on the held-out split, because a bag-of-n-grams model is
 * over-confident on single words and under-confident on sentences with one temperature.
 */
export interface TemperatureBucket { maxChars: number | null; temperature: number; }

/** The temperature of a text of `chars` characters. */
export function temperatureFor(buckets: readonly TemperatureBucket[], chars: number): number {
  for (const b of buckets) if (b.maxChars === null || chars <= b.maxChars) return b.temperature;
  return buckets[buckets.length - 1]?.temperature ?? 1;
}
