/**
 * The bounded memo (services/lib/bounded-memo.ts) behind the diacritization caches: values
 * computed once per key, every key computed afresh after the memo filled and started
 * again, and keys past the length bound computed every time and never kept.
 */
import { describe, expect, it } from 'vitest';
import { BoundedMemo } from '../../services/lib/bounded-memo.ts';

describe('BoundedMemo', () => {
  it('computes a key once, and holds at most max entries, starting again when full', () => {
    const memo = new BoundedMemo<number>(3);
    let calls = 0;
    const get = (k: string) => memo.get(k, () => { calls++; return k.length; });
    expect([get('a'), get('bb'), get('a')]).toEqual([1, 2, 1]);
    expect(calls).toBe(2);
    get('ccc');
    expect(memo.size).toBe(3);
    // the fourth key empties the memo first
    expect(get('dddd')).toBe(4);
    expect(memo.size).toBe(1);
    get('a');
    expect(calls).toBe(5);
  });

  it('computes a key longer than maxKey every time and keeps nothing of it', () => {
    const memo = new BoundedMemo<string>(10, 4);
    let calls = 0;
    const make = () => { calls++; return 'x'; };
    memo.get('abcde', make); memo.get('abcde', make);
    expect(calls).toBe(2);
    expect(memo.size).toBe(0);
    memo.get('abcd', make); memo.get('abcd', make);
    expect(calls).toBe(3);
    expect(memo.size).toBe(1);
  });
});
