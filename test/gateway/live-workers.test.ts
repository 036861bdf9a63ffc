/**
 * The gateway's view of the live workers (issue 12, item 9): from heartbeats, which
 * capabilities have a worker and which models one has installed, until the TTL passes or
 * the worker says it stops.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { AvroCodec } from '../../services/events/codec.ts';
import type { WorkerStatus } from '../../services/events/contract.ts';
import { LiveWorkers } from '../../services/gateway/live-workers.ts';
import { MemoryTransport } from '../../services/transport/memory.ts';
import { until } from '../helpers/service.ts';

const codec = new AvroCodec();
const views: LiveWorkers[] = [];
afterEach(async () => { await Promise.all(views.splice(0).map((v) => v.stop())); });

async function view(ttlMs: number): Promise<{ live: LiveWorkers; beat(s: Partial<WorkerStatus>): Promise<void> }> {
  const transport = new MemoryTransport();
  const live = new LiveWorkers(transport, codec, 'workers.test', 'view.test', ttlMs);
  await live.start();
  views.push(live);
  return {
    live,
    beat: async (s) => transport.producer().send('workers.test', [{
      key: s.instanceId ?? 'w1',
      value: await codec.encode('control/worker-status', {
        instanceId: 'w1', capability: 'language-id', timestampMs: Date.now(), stopping: false,
        models: [{ name: 'lid-lite-608', installed: true, loaded: false, queueDepth: 0, languages: 453 }, { name: 'lid-neural-608', installed: false, loaded: false, queueDepth: 0 }],
        ...s,
      }),
    }]),
  };
}

describe('LiveWorkers', () => {
  it('serves a model that a live worker has installed, and knows its languages', async () => {
    const { live, beat } = await view(10_000);
    expect(live.hasWorker('language-id')).toBe(false);
    await beat({});
    await until(() => live.hasWorker('language-id'), 2000, 'heartbeat');
    expect(live.canServe('language-id', 'lid-lite-608')).toBe(true);
    expect(live.canServe('language-id', 'lid-neural-608')).toBe(false);
    expect(live.canServe('diacritize', 'diacnet-2.0')).toBe(false);
    expect(live.languages('language-id', 'lid-lite-608')).toBe(453);
  });

  it('forgets a worker after the TTL', async () => {
    // long enough that a busy machine still sees the worker before it expires
    const { live, beat } = await view(2000);
    await beat({});
    await until(() => live.hasWorker('language-id'), 2000, 'heartbeat');
    await until(() => !live.hasWorker('language-id'), 2000, 'TTL passed');
  });

  it('forgets a worker at once when it says it stops, long before its TTL', async () => {
    // a TTL no test lasts: only the stopping heartbeat can make the worker go
    const { live, beat } = await view(3_600_000);
    await beat({ instanceId: 'w2' });
    await until(() => live.hasWorker('language-id'), 2000, 'second worker');
    await beat({ instanceId: 'w2', stopping: true });
    await until(() => !live.hasWorker('language-id'), 2000, 'stopping heartbeat');
  });
});
