/**
 * Embedded mode: one process runs the gateway, the correlator, one worker per
 * capability and the billing consumer, connected only through the in-memory event
 * log (and the reply topic), with the SQLite ledger and key store under DATA_DIR.
 */
import type { Logger } from 'pino';
import type { Capability } from './capabilities/index.ts';
import type { Config } from './config.ts';
import { AvroCodec } from './events/codec.ts';
import type { AnalyticsConsumer } from './analytics/consumer.ts';
import type { BillingConsumer } from './billing/consumer.ts';
import type { Ledger } from './billing/ledger.ts';
import type { KeyStore } from './keys/store.ts';
import { MemoryTransport } from './transport/memory.ts';
import type { CapabilityWorker } from './workers/worker.ts';
import type { Gateway } from './gateway/index.ts';
import { startRuntime, type ServiceName } from './runtime.ts';

/** A running embedded service. */
export interface Embedded {
  gateway: Gateway;
  workers: CapabilityWorker[];
  billing: BillingConsumer;
  ledger: Ledger;
  /** the analytics consumer and its store (issue 16) */
  analytics: AnalyticsConsumer;
  keys: KeyStore;
  transport: MemoryTransport;
  codec: AvroCodec;
  logger: Logger;
  /** Stops everything in order: HTTP, workers (after in-flight batches), billing, stores. */
  close(): Promise<void>;
}

/** Options of {@link startEmbedded}. */
export interface EmbeddedOptions {
  /** pino logger; default JSON logs to stdout at LOG_LEVEL */
  logger?: Logger;
  /** capabilities that get a worker (default all) */
  capabilities?: readonly Capability[];
}

/** Starts every service of embedded mode over the in-memory log (the HTTP server is not listening yet). */
export async function startEmbedded(config: Config, opts: EmbeddedOptions = {}): Promise<Embedded> {
  const services: ServiceName[] | undefined = opts.capabilities
    ? [...opts.capabilities.map((c) => `worker:${c}` as const), 'billing', 'analytics', 'gateway']
    : undefined;
  const rt = await startRuntime({ ...config, TRANSPORT: 'memory' }, { logger: opts.logger, services });
  const { gateway, billing, ledger, keys, transport, codec, analytics } = rt;
  if (!gateway || !billing || !ledger || !keys || !analytics || !(transport instanceof MemoryTransport) || !(codec instanceof AvroCodec)) {
    await rt.close();
    throw new Error('embedded mode started without its gateway, billing, analytics, stores, in-memory log or Avro codec');
  }
  return { gateway, billing, ledger, keys, analytics, transport, codec, workers: rt.workers, logger: rt.logger, close: () => rt.close() };
}
