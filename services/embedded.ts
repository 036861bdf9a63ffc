/**
 * Embedded mode: one process runs the gateway, the correlator, one worker per
 * capability and the billing consumer, connected only through the in-memory event
 * log (and the reply topic), with the SQLite ledger and key store under DATA_DIR.
 */
import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import { CAPABILITIES, type Capability } from './capabilities.ts';
import type { Config } from './config.ts';
import { AvroCodec } from './events/codec.ts';
import { BillingConsumer } from './billing/consumer.ts';
import { Ledger } from './billing/ledger.ts';
import { KeyStore } from './keys/store.ts';
import { MemoryTransport } from './transport/memory.ts';
import { CapabilityWorker } from './workers/worker.ts';
import { startGateway, type Gateway } from './gateway/index.ts';

/** A running embedded service. */
export interface Embedded {
  gateway: Gateway;
  workers: CapabilityWorker[];
  billing: BillingConsumer;
  ledger: Ledger;
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
  /** ledger/key files; default DATA_DIR/ledger.db and DATA_DIR/keys.db */
  ledgerFile?: string;
  keysFile?: string;
  /** capabilities that get a worker (default all) */
  capabilities?: readonly Capability[];
}

/** Starts every service of embedded mode (the HTTP server is not listening yet). */
export async function startEmbedded(config: Config, opts: EmbeddedOptions = {}): Promise<Embedded> {
  const logger = opts.logger ?? pino({ level: config.LOG_LEVEL });
  const transport = new MemoryTransport({ defaultPartitions: config.TOPIC_PARTITIONS });
  transport.events.on('handler-error', (err) => logger.error({ err }, 'batch failed; it will be delivered again'));
  const codec = new AvroCodec();
  const ledger = await Ledger.open(opts.ledgerFile ?? join(config.DATA_DIR, 'ledger.db'));
  const keys = await KeyStore.open(opts.keysFile ?? join(config.DATA_DIR, 'keys.db'), config.API_KEYS);
  const workers = (opts.capabilities ?? CAPABILITIES).map((capability) => new CapabilityWorker({ capability, transport, codec, config, logger }));
  await Promise.all(workers.map((w) => w.start()));
  const billing = new BillingConsumer(transport, codec, ledger, config.TOPIC_PREFIX, logger.child({ service: 'billing' }));
  await billing.start();
  const gateway = await startGateway({ config, transport, transportName: 'memory', codec, keys, ledger, logger });
  return {
    gateway, workers, billing, ledger, keys, transport, codec, logger,
    async close() {
      await gateway.close();
      await Promise.all(workers.map((w) => w.stop()));
      await billing.stop();
      await ledger.close();
      await keys.close();
    },
  };
}
