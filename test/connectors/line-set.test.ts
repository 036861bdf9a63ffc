import { describe, expect, it } from 'vitest';
import { LineSet } from '../../connectors/line-set.ts';

describe('LineSet', () => {
  it('agrees with a Set on random insertions and merges runs into one range', () => {
    const s = new LineSet();
    const ref = new Set<number>();
    const order = Array.from({ length: 3000 }, (_, i) => i);
    for (let i = order.length - 1; i > 0; i--) { const j = (i * 7919) % (i + 1); [order[i], order[j]] = [order[j]!, order[i]!]; }
    for (const x of order) {
      expect(s.has(x)).toBe(ref.has(x));
      expect(s.add(x)).toBe(true);
      expect(s.add(x)).toBe(false);
      ref.add(x);
    }
    expect(s.ranges).toEqual([[0, 3000]]);
    expect(s.size).toBe(3000);
  });
  // regression: a line right after a range used to be taken as already written
  it('adds a line adjacent to the end of a range', () => {
    const s = new LineSet([[0, 5]]);
    expect(s.has(5)).toBe(false);
    expect(s.add(5)).toBe(true);
    expect(s.ranges).toEqual([[0, 6]]);
    expect(s.add(10)).toBe(true);
    expect(s.add(9)).toBe(true);
    expect(s.ranges).toEqual([[0, 6], [9, 11]]);
  });
});
