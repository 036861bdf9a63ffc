/**
 * Consumer lag on `/metrics` (issue 16): `lmstream_consumer_lag{group, topic}`, the messages
 * of a topic after the offsets its consumer group has committed, for the pipeline's shared
 * consumer groups: each capability's workers on its request topic
 * (`<prefix>.workers.<capability>`), billing on the usage topic (`<prefix>.billing`) and
 * analytics on the outcomes topic (`<prefix>.analytics`).
 * Per-instance groups (a gateway's replies, a worker's control and cancellation readers)
 * read fan-out topics for themselves and are left out. The lag is asked of the event log
 * (the in-memory log, or Kafka's admin API) when Prometheus scrapes, at most once per
 * {@link CACHE_MS}; a group whose lag cannot be read is left out of that scrape.
 */
import client from 'prom-client';
import { analyticsGroup } from '../analytics/consumer.ts';
import { billingGroup } from '../billing/consumer.ts';
import { CAPABILITIES } from '../capabilities/index.ts';
import { topicsFor } from '../events/topics.ts';
import type { Transport } from '../transport/types.ts';
import { metricsRegistry } from './metrics.ts';

/** Longest reuse of a measured lag, ms (a scrape every few seconds asks the log at most this often). */
export const CACHE_MS = 2000;

/** A consumer group and the topic whose lag is reported. */
export interface GroupTopic { group: string; topic: string; }

/** The shared consumer groups of the pipeline under a topic prefix (see the module comment). */
export function pipelineGroups(prefix: string): GroupTopic[] {
  const topics = topicsFor(prefix);
  return [
    ...CAPABILITIES.map((c) => ({ group: `${prefix}.workers.${c}`, topic: topics.requests(c) })),
    { group: billingGroup(prefix), topic: topics.usage },
    { group: analyticsGroup(prefix), topic: topics.outcomes },
  ];
}

interface Source { transport: Transport; groups: GroupTopic[]; }
const sources = new Set<Source>();
let cached: { at: number; values: Array<GroupTopic & { lag: number }> } | undefined;

/**
 * The lag of every reported group (see the module comment): messages after its committed
 * offsets, summed over the topic's partitions; a group whose lag cannot be read is left out.
 */
export async function consumerLags(): Promise<Array<GroupTopic & { lag: number }>> {
  if (cached && Date.now() - cached.at < CACHE_MS) return cached.values;
  const values: Array<GroupTopic & { lag: number }> = [];
  await Promise.all([...sources].flatMap((s) => s.groups.map(async (g) => {
    try { values.push({ ...g, lag: await s.transport.consumerLag(g.group, g.topic) }); } catch { /* left out of this scrape */ }
  })));
  cached = { at: Date.now(), values };
  return values;
}

/** The gauge, registered once per process. */
export const consumerLag = new client.Gauge({
  name: 'lmstream_consumer_lag', help: 'messages of a topic after the offsets its consumer group has committed', labelNames: ['group', 'topic'] as const, registers: [metricsRegistry],
  async collect() {
    this.reset();
    for (const v of await consumerLags()) this.set({ group: v.group, topic: v.topic }, v.lag);
  },
});

/**
 * Reports the lag of `groups` on `transport` from now on (a gateway calls it at start).
 * @returns a function that stops reporting them
 */
export function reportConsumerLag(transport: Transport, groups: GroupTopic[]): () => void {
  const s = { transport, groups };
  sources.add(s);
  cached = undefined;
  return () => { sources.delete(s); cached = undefined; };
}
