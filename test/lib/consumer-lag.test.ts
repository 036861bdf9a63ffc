/**
 * Consumer lag on /metrics (services/lib/consumer-lag.ts, issue 16): the pipeline's shared
 * consumer groups are reported, a request topic no worker reads shows its waiting
 * messages, and the lag falls to 0 once a worker has consumed and committed them.
 */
import { describe, expect, it } from 'vitest';
import { CACHE_MS, pipelineGroups } from '../../services/lib/consumer-lag.ts';
import { topicsFor } from '../../services/events/topics.ts';
import { servicesClosedAfterEach, until } from '../helpers/service.ts';

const service = servicesClosedAfterEach();
const TOKEN = 'scrape-token';

/** The lag lines of /metrics, as `group topic` → lag. */
async function lagOf(svc: Awaited<ReturnType<typeof service>>): Promise<Map<string, number>> {
  const res = await svc.gateway.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
  const out = new Map<string, number>();
  for (const m of res.body.matchAll(/^lmstream_consumer_lag\{group="([^"]+)",topic="([^"]+)"\} (\d+)$/gm)) out.set(`${m[1]} ${m[2]}`, Number(m[3]));
  return out;
}

describe('consumer lag on /metrics', () => {
  it('names the workers of each capability and billing', () => {
    expect(pipelineGroups('p')).toEqual(expect.arrayContaining([
      { group: 'p.workers.language-id', topic: 'p.language-id.requests' },
      { group: 'p.workers.decide', topic: 'p.decide.requests' },
      { group: 'p.billing', topic: 'p.usage' },
    ]));
  });

  it('shows the messages no worker has consumed yet', async () => {
    // no workers: what is written to the language-ID topic waits there
    const svc = await service({ METRICS_TOKEN: TOKEN }, { capabilities: [] });
    const topic = topicsFor('lmstream').requests('language-id');
    await svc.transport.ensureTopics([{ name: topic, partitions: 4 }]);
    const input = await svc.codec.encode('language-id/request', { text: 'Habari za asubuhi', model: 'lid-lite-608', mode: 'traffic', topK: 1, candidates: null });
    await svc.transport.producer().send(topic, Array.from({ length: 5 }, (_, i) => ({ key: `k${i}`, value: input })));
    await new Promise((r) => setTimeout(r, CACHE_MS + 50));
    const lag = await lagOf(svc);
    expect(lag.get(`lmstream.workers.language-id ${topic}`)).toBe(5);
    expect(lag.get('lmstream.billing lmstream.usage')).toBe(0);
  });

  it('is 0 when the worker has consumed and committed the topic', async () => {
    const svc = await service({ METRICS_TOKEN: TOKEN }, { capabilities: ['language-id'] });
    const topic = topicsFor('lmstream').requests('language-id');
    const input = await svc.codec.encode('language-id/request', { text: 'Habari za asubuhi', model: 'lid-lite-608', mode: 'traffic', topK: 1, candidates: null });
    await svc.transport.producer().send(topic, Array.from({ length: 5 }, (_, i) => ({ key: `k${i}`, value: input })));
    await until(async () => (await lagOf(svc)).get(`lmstream.workers.language-id ${topic}`) === 0, 10_000, 'the worker group caught up');
  });
});
