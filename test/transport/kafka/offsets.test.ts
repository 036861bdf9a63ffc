/**
 * The Kafka consumer's offset bookkeeping, without a broker.
 */
import { describe, expect, it } from 'vitest';
import { OffsetTracker } from '../../../services/transport/kafka/offsets.ts';

describe('OffsetTracker', () => {
  it('commits the handled prefix in offset order, never past a batch still running', () => {
    const t = new OffsetTracker();
    const a = t.track('t|0', 0, 9);
    const b = t.track('t|0', 10, 19);
    const c = t.track('t|0', 20, 29);
    b.entry.state = 'done';
    expect(t.settle('t|0', b.list)).toEqual({});
    a.entry.state = 'done';
    expect(t.settle('t|0', a.list)).toEqual({ commit: 20 });
    c.entry.state = 'done';
    expect(t.settle('t|0', c.list)).toEqual({ commit: 30 });
    expect(t.all()).toEqual([]);
  });

  it('sends the partition back to a failed batch, skips what was fetched after it, and waits longer each time it fails again', () => {
    const t = new OffsetTracker();
    const a = t.track('t|0', 0, 9);
    const b = t.track('t|0', 10, 19);
    b.entry.state = 'failed';
    a.entry.state = 'done';
    expect(t.settle('t|0', a.list)).toEqual({ commit: 10, seekTo: 10 });
    // a batch fetched before the seek took effect is skipped; the redelivery waits about 100 ms
    expect(t.admit('t|0', 20)).toEqual({ skip: true, waitMs: 0 });
    const first = t.admit('t|0', 10);
    expect(first.skip).toBe(false);
    expect(first.waitMs).toBeGreaterThan(50);
    expect(first.waitMs).toBeLessThanOrEqual(100);
    // it fails again: the next wait doubles
    const again = t.track('t|0', 10, 19);
    again.entry.state = 'failed';
    expect(t.settle('t|0', again.list)).toEqual({ seekTo: 10 });
    expect(t.admit('t|0', 10).waitMs).toBeGreaterThan(150);
  });

  it('drops the tracking of batches a new delivery starts over, and everything on clear', () => {
    const t = new OffsetTracker();
    const old = t.track('t|0', 0, 9);
    const fresh = t.track('t|0', 0, 9);
    expect(t.current('t|0', old.list)).toBe(false);
    old.entry.state = 'done';
    expect(t.settle('t|0', old.list)).toEqual({});
    expect(t.current('t|0', fresh.list)).toBe(true);
    t.clear();
    expect(t.all()).toEqual([]);
  });
});
