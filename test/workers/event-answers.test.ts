import { describe, expect, it } from 'vitest';
import { EventAnswers } from '../../services/workers/event-answers.ts';
import type { Item } from '../../services/workers/publisher.ts';
import type { ItemResult } from '../../services/events/contract.ts';
import { ServiceError } from '../../services/lib/errors.ts';

const items = (n: number) => Array.from({ length: n }, (_, i) => ({ index: i }) as unknown as Item);
const ok = (x: number): ItemResult => ({ output: { x } as never, failure: null });

describe('EventAnswers (issue 17: one promise per request event, not five per item)', () => {
  it('resolves with every result in the event\'s order once their micro-batches are published', async () => {
    let publish!: () => void;
    const published = new Promise<void>((r) => { publish = r; });
    const a = new EventAnswers(items(3), async () => undefined);
    let settled = false;
    void a.done.then(() => { settled = true; });
    a.resolve(2, { result: ok(2), published });
    a.resolve(0, { result: ok(0), published });
    a.resolve(1, { result: ok(1), published: Promise.resolve() });
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false); // one micro-batch's publication still pending
    publish();
    expect(await a.done).toEqual([ok(0), ok(1), ok(2)]);
  });

  it('answers an item whose run failed with a ServiceError with its code, published on its own', async () => {
    const failures: Array<[Item, ItemResult]> = [];
    const its = items(2);
    const a = new EventAnswers(its, async (item, r) => { failures.push([item, r]); });
    a.resolve(0, { result: ok(0), published: Promise.resolve() });
    a.reject(1, new ServiceError('MODEL_NOT_INSTALLED', 'gone'));
    const results = await a.done;
    expect(results[1]!.failure).toMatchObject({ code: 'MODEL_NOT_INSTALLED', error: 'gone' });
    expect(failures).toEqual([[its[1], results[1]]]);
  });

  it('rejects at once on a crash (so the consumed batch is delivered again), and when a publication fails', async () => {
    const a = new EventAnswers(items(2), async () => undefined);
    a.reject(0, new Error('thread died'));
    await expect(a.done).rejects.toThrow('thread died');
    const b = new EventAnswers(items(1), async () => undefined);
    b.resolve(0, { result: ok(0), published: Promise.reject(new Error('produce failed')) });
    await expect(b.done).rejects.toThrow('produce failed');
  });

  it('resolves an event of no items at once', async () => {
    expect(await new EventAnswers([], async () => undefined).done).toEqual([]);
  });
});
