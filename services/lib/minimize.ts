/**
 * Golden-section search (Kiefer 1953) for the minimum of a function that is convex (or
 * unimodal) on an interval: the calibration temperatures of the generative models
 * (services/capabilities/decide/calibration.ts, extract/calibration.ts).
 */

/**
 * The x in [lo, hi] that minimises f, to a relative precision `tolerance`.
 * @param f convex or unimodal on [lo, hi]
 */
export function minimizeOnInterval(f: (x: number) => number, lo: number, hi: number, tolerance = 1e-4): number {
  const g = (Math.sqrt(5) - 1) / 2;
  let a = lo, b = hi;
  let c = b - g * (b - a), d = a + g * (b - a);
  let fc = f(c), fd = f(d);
  while (b - a > tolerance * (Math.abs(a) + Math.abs(b))) {
    if (fc < fd) { b = d; d = c; fd = fc; c = b - g * (b - a); fc = f(c); }
    else { a = c; c = d; fc = fd; d = a + g * (b - a); fd = f(d); }
  }
  return (a + b) / 2;
}
