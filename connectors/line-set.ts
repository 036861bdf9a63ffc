/**
 * A set of line numbers kept as sorted, disjoint, non-adjacent half-open ranges
 * [start, end), so the corpus sink can checkpoint millions of written lines in a few
 * ranges (lines arrive in long runs).
 */
export class LineSet {
  /** @param ranges ranges as stored in a checkpoint (taken over, not copied) */
  constructor(readonly ranges: Array<[number, number]> = []) {}

  /** Number of lines in the set. */
  get size(): number { return this.ranges.reduce((n, [s, e]) => n + e - s, 0); }

  /** Index of the first range whose end is above `line` (binary search). */
  private firstEndAbove(line: number): number {
    let lo = 0;
    let hi = this.ranges.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.ranges[mid]![1] > line) hi = mid; else lo = mid + 1;
    }
    return lo;
  }

  has(line: number): boolean {
    const r = this.ranges[this.firstEndAbove(line)];
    return r !== undefined && r[0] <= line;
  }

  /** Adds a line. @returns false when it was already there */
  add(line: number): boolean {
    const i = this.firstEndAbove(line); // ranges before i end at or before `line`
    const r = this.ranges[i];
    if (r && r[0] <= line) return false;
    const joinsLeft = i > 0 && this.ranges[i - 1]![1] === line;
    const joinsRight = r !== undefined && r[0] === line + 1;
    if (joinsLeft && joinsRight) { this.ranges[i - 1]![1] = r![1]; this.ranges.splice(i, 1); }
    else if (joinsLeft) this.ranges[i - 1]![1] = line + 1;
    else if (joinsRight) r![0] = line;
    else this.ranges.splice(i, 0, [line, line + 1]);
    return true;
  }
}
