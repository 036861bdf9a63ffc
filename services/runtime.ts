/**
 * Starts the services of one process over the configured transport. Embedded mode
 * (`TRANSPORT=memory`) runs every service over the in-memory log; distributed mode
 * (`TRANSPORT=kafka`) runs the services named by `--service` over Kafka, with Avro in
 * the Confluent wire format through a Schema Registry (its own when
 * `SCHEMA_REGISTRY_URL` is empty).
 */
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import { CAPABILITIES, type Capability } from './capabilities/index.ts';
import { storeTarget, type Config } from './config.ts';
import { AvroCodec, type EventCodec } from './events/codec.ts';
import { RegistryCodec } from './events/registry-codec.ts';
import { BillingConsumer } from './billing/consumer.ts';
import { Ledger } from './billing/ledger.ts';
import { AnalyticsConsumer } from './analytics/consumer.ts';
import { AnalyticsStore } from './analytics/store.ts';
import { KeyStore } from './keys/store.ts';
import { buildSchemaRegistry } from './schema-registry/server.ts';
import { batchPolicyOf, createTransport, gatewaySettingsOf, workerSettingsOf } from './compose.ts';
import { MemoryTransport } from './transport/memory.ts';
import type { Transport } from './transport/types.ts';
import { CapabilityWorker } from './workers/worker.ts';
import { startGateway, type Gateway } from './gateway/index.ts';

/** A service a process can run: `gateway`, `worker:<capability>`, `billing`, `analytics`, `registry`. */
export type ServiceName = 'gateway' | 'billing' | 'analytics' | 'registry' | `worker:${Capability}`;

/** Every service (what `all` stands for). */
export const ALL_SERVICES: readonly ServiceName[] = ['registry', ...CAPABILITIES.map((c) => `worker:${c}` as const), 'billing', 'analytics', 'gateway'];

/**
 * Parses `--service` values (`all` or a service name, repeatable).
 * @throws Error naming an unknown service
 */
export function parseServices(values: string[]): ServiceName[] {
  if (values.length === 0 || values.includes('all')) return [...ALL_SERVICES];
  for (const v of values) if (!ALL_SERVICES.includes(v as ServiceName)) throw new Error(`unknown service "${v}" (one of: all, ${ALL_SERVICES.join(', ')})`);
  return [...new Set(values)] as ServiceName[];
}

/** What a process runs. */
export interface Runtime {
  services: ServiceName[];
  transport: Transport;
  codec: EventCodec;
  logger: Logger;
  gateway?: Gateway;
  workers: CapabilityWorker[];
  billing?: BillingConsumer;
  ledger?: Ledger;
  analytics?: AnalyticsConsumer;
  keys?: KeyStore;
  /** the project's own Schema Registry when this process serves it (service `registry`) */
  schemaRegistry?: { app: FastifyInstance; url: string };
  /** models this process's workers are still preloading (MODEL_PRELOAD); empty once done */
  loadingModels(): string[];
  /** settles when this process's workers have preloaded their models (or failed to, logged) */
  preloaded(): Promise<void>;
  close(): Promise<void>;
}

/** Options of {@link startRuntime}. */
export interface RuntimeOptions {
  services?: ServiceName[];
  logger?: Logger;
}

/**
 * Starts the given services (default all).
 * @throws Error when a store, the registry or the transport cannot be reached, or a schema is incompatible
 */
export async function startRuntime(config: Config, opts: RuntimeOptions = {}): Promise<Runtime> {
  const services = opts.services ?? [...ALL_SERVICES];
  const logger = opts.logger ?? pino({ level: config.LOG_LEVEL });
  const kafka = config.TRANSPORT === 'kafka';
  const closers: Array<() => Promise<unknown>> = [];
  const rt: Partial<Runtime> & { workers: CapabilityWorker[] } = { services, logger, workers: [] };
  const loadingModels = () => rt.workers.flatMap((w) => w.loadingModels());
  try {
    let codec: EventCodec;
    if (kafka) {
      let url = config.SCHEMA_REGISTRY_URL;
      if (services.includes('registry') && !url) {
        const app = await buildSchemaRegistry({ file: join(config.DATA_DIR, 'registry.db'), logger });
        url = await app.listen({ port: config.SCHEMA_REGISTRY_PORT, host: config.HOST });
        rt.schemaRegistry = { app, url };
        closers.push(() => app.close());
      }
      if (!url) throw new Error('SCHEMA_REGISTRY_URL is not set and this process does not run the registry service');
      codec = await RegistryCodec.create(url, config.TOPIC_PREFIX);
    } else {
      codec = new AvroCodec();
    }
    rt.codec = codec;
    const transport = createTransport(config, logger, {
      onFatal: (err) => { logger.fatal({ err }, 'a Kafka consumer stopped for good; exiting so that a supervisor restarts this process'); process.exit(1); },
    });
    if (transport instanceof MemoryTransport) transport.events.on('handler-error', (err) => logger.error({ err }, 'batch failed; it will be delivered again'));
    rt.transport = transport;
    closers.push(() => transport.close());

    if (services.includes('billing') || services.includes('gateway')) {
      rt.ledger = await Ledger.open(storeTarget(config, 'ledger.db'));
      closers.push(() => rt.ledger!.close());
    }
    // the analytics store: written by the analytics consumer, read by GET /v1/analytics
    let analyticsStore: AnalyticsStore | undefined;
    if (services.includes('analytics') || services.includes('gateway')) {
      analyticsStore = await AnalyticsStore.open(storeTarget(config, 'analytics.db'));
      const s = analyticsStore;
      closers.push(() => s.close());
    }
    if (services.includes('gateway')) {
      rt.keys = await KeyStore.open(storeTarget(config, 'keys.db'), config.API_KEYS, undefined, config.API_ADMIN_KEYS);
      closers.push(() => rt.keys!.close());
    }
    // every service starts at once: each consumer group join waits for the group
    // coordinator (3 s on librdkafka's mock cluster), and 13 joins one after another made
    // a Kafka-mode process take 40 s to become healthy
    const workerSettings = workerSettingsOf(config);
    for (const s of services) {
      if (!s.startsWith('worker:')) continue;
      const w = new CapabilityWorker({
        capability: s.slice(7) as Capability, transport, codec, logger, settings: workerSettings, batchPolicy: batchPolicyOf(config),
      });
      rt.workers.push(w);
      closers.push(() => w.stop());
    }
    if (services.includes('billing')) {
      rt.billing = new BillingConsumer(transport, codec, rt.ledger!, config.TOPIC_PREFIX, logger.child({ service: 'billing' }), config.TOPIC_PARTITIONS);
      closers.push(() => rt.billing!.stop());
    }
    if (services.includes('analytics')) {
      const store = analyticsStore!;
      rt.analytics = new AnalyticsConsumer(transport, codec, store, config.TOPIC_PREFIX, logger.child({ service: 'analytics' }), config.TOPIC_PARTITIONS,
        { minutesMs: config.ANALYTICS_MINUTES_RETENTION_MS, hoursMs: config.ANALYTICS_HOURS_RETENTION_MS });
      closers.push(() => rt.analytics!.stop());
    }
    const starts: Array<Promise<unknown>> = rt.workers.map((w) => w.start());
    if (rt.billing) starts.push(rt.billing.start());
    if (rt.analytics) starts.push(rt.analytics.start());
    if (services.includes('gateway')) {
      starts.push(startGateway({
        settings: gatewaySettingsOf(config), transport, transportName: config.TRANSPORT, codec, keys: rt.keys!, ledger: rt.ledger, analytics: analyticsStore, logger,
        // /ready waits for the models this process preloads (none in a gateway-only process)
        loadingModels,
      }).then((g) => {
        rt.gateway = g;
        closers.push(() => g.close());
      }));
    }
    const failed = (await Promise.allSettled(starts)).find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  } catch (err) {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    throw err;
  }
  return {
    ...(rt as Runtime),
    loadingModels,
    preloaded: async () => { await Promise.all(rt.workers.map((w) => w.preloaded())); },
    async close() {
      // reverse start order: HTTP first, then workers after their in-flight batches, then stores
      for (const close of closers.reverse()) await close().catch((err) => logger.warn({ err }, 'close failed'));
    },
  };
}
