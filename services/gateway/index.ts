/**
 * Starts a gateway instance: its reply topic and correlator, its view of the live workers,
 * its in-flight limits (fed the queue waits the correlator measures), the dispatcher and
 * the HTTP app.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { pipelineGroups, reportConsumerLag } from '../lib/consumer-lag.ts';
import { billingGroup } from '../billing/consumer.ts';
import { ServiceError } from '../lib/errors.ts';
import { topicsFor } from '../events/topics.ts';
import { build } from './app.ts';
import { gatewaySettings, type GatewayOptions } from './options.ts';
import { Correlator } from './correlator.ts';
import { Dispatcher } from './dispatcher.ts';
import { LiveWorkers } from './live-workers.ts';
import { DEFAULT_INFLIGHT_ITEMS, DEFAULT_QUEUE_TARGET_MS, InflightItems } from './load-shedding.ts';
import { VERSION } from '../lib/version.ts';

/** A running gateway (not listening yet: call `app.listen`). */
export interface Gateway {
  instanceId: string;
  app: FastifyInstance;
  correlator: Correlator;
  liveWorkers: LiveWorkers;
  /**
   * Stops: new model requests are refused (503, and `/ready` answers 503), the listener
   * closes, requests in flight get their answers for up to `drainMs` (default half of
   * SHUTDOWN_GRACE_MS) and are then answered 503, usage of delivered answers is written,
   * and the reply and heartbeat consumers stop.
   */
  close(drainMs?: number): Promise<void>;
}

export type { GatewayOptions, GatewaySettings } from './options.ts';

/**
 * Starts a gateway; resolves once its reply consumer owns the reply partition.
 * @throws OptionsError naming a setting that breaks its schema
 */
export async function startGateway(o: GatewayOptions): Promise<Gateway> {
  const settings = gatewaySettings(o.settings);
  const instanceId = o.instanceId ?? randomUUID();
  const topics = topicsFor(settings.topicPrefix);
  const log = o.logger.child({ service: 'gateway', instance: instanceId });
  const inflight = new InflightItems(
    { ...DEFAULT_INFLIGHT_ITEMS, ...settings.maxInflightItems } as typeof DEFAULT_INFLIGHT_ITEMS,
    { ...DEFAULT_QUEUE_TARGET_MS, ...settings.queueTargetMs } as typeof DEFAULT_QUEUE_TARGET_MS,
  );
  const correlator = new Correlator(o.transport, o.codec, topics.replies(instanceId), `${settings.topicPrefix}.gateway.${instanceId}`, log, inflight);
  // the consumer group keeps its old name (`.registry.`), so running deployments keep their offsets
  const liveWorkers = new LiveWorkers(o.transport, o.codec, topics.workers, `${settings.topicPrefix}.registry.${instanceId}`, Math.max(5 * settings.workerHeartbeatMs, 10_000));
  // both consumer groups join at once (each join waits for the group coordinator)
  await Promise.all([correlator.start(), liveWorkers.start(), o.transport.ensureTopics([{ name: topics.cancellations, partitions: 1, retentionMs: 600_000 }])]);
  const producer = o.transport.producer();
  const dispatcher = new Dispatcher(producer, o.codec, correlator, liveWorkers, topics);
  const app = await build({
    settings, inflight, codec: o.codec, topics, producer, dispatcher, liveWorkers, ledger: o.ledger, analytics: o.analytics, version: VERSION,
    transport: o.transportName, keys: o.keys, logger: o.logger, loadingModels: o.loadingModels ?? (() => []),
    billingLag: () => o.transport.consumerLag(billingGroup(settings.topicPrefix), topics.usage),
  });
  // consumer lag of the pipeline's shared groups on /metrics
  const stopLag = reportConsumerLag(o.transport, pipelineGroups(settings.topicPrefix));
  let closing: Promise<void> | undefined;
  const close = async (drainMs: number) => {
    stopLag();
    app.gatewayState.draining = true;
    const closed = app.close();
    // requests still waiting at the end of the drain time are answered 503; a second
    // later, connections still open (kept alive, or a client not reading) are closed
    const timer = setTimeout(() => {
      correlator.failAll(new ServiceError('SHUTTING_DOWN', 'the gateway shut down before the answer; retry', { retryAfterS: 1 }));
      setTimeout(() => app.server.closeAllConnections?.(), 1000).unref();
    }, drainMs);
    try { await closed; } finally { clearTimeout(timer); }
    await Promise.all([correlator.stop(), liveWorkers.stop()]);
  };
  return {
    instanceId, app, correlator, liveWorkers,
    close(drainMs = settings.shutdownGraceMs / 2) {
      closing ??= close(drainMs);
      return closing;
    },
  };
}
