/**
 * The training scripts' seeded pseudo-random numbers: mulberry32 (Tommy Ettinger, public
 * domain), deterministic given the seed, so that a training run is reproduced exactly.
 */

/** A PRNG over [0, 1) seeded by `seed` (a 32-bit integer). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
