/**
 * A memo of values computed from string keys, bounded: when it holds `max` entries it
 * forgets them all and starts again (no recency order, so a hit costs one Map lookup; a
 * stream of distinct keys costs one computation each and never more than `max` entries).
 * Keys longer than `maxKey` (UTF-16 code units) are computed every time and not kept, so
 * that keys a client chose cannot fill memory with long strings.
 */
export class BoundedMemo<V> {
  private readonly m = new Map<string, V>();

  /**
   * @param max most entries kept (≥ 1)
   * @param maxKey longest key kept, in UTF-16 code units (default: any)
   */
  constructor(readonly max: number, readonly maxKey = Infinity) {}

  /** Entries kept now. */
  get size(): number { return this.m.size; }

  /** The value of `key`: the one kept, or `make()`'s, kept when the key is short enough. */
  get(key: string, make: () => V): V {
    if (key.length > this.maxKey) return make();
    let v = this.m.get(key);
    if (v === undefined) {
      v = make();
      if (this.m.size >= this.max) this.m.clear();
      this.m.set(key, v);
    }
    return v;
  }
}
