/**
 * What the bulk connectors share: the Kafka transport and registry codec from the
 * environment (the same variables as the services), and the topic names.
 */
import pino, { type Logger } from 'pino';
import { loadConfig, type Config } from '../services/config.ts';
import { RegistryCodec } from '../services/events/registry-codec.ts';
import { topicsFor } from '../services/events/topics.ts';
import { kafkaOptionsOf } from '../services/compose.ts';
import { KafkaTransport } from '../services/transport/kafka/index.ts';

/** A connection to the event log. */
export interface Connection { config: Config; transport: KafkaTransport; codec: RegistryCodec; logger: Logger; }

/**
 * Connects with TRANSPORT=kafka settings.
 * @throws Error when SCHEMA_REGISTRY_URL is unset (connectors do not serve a registry)
 */
export async function connect(): Promise<Connection> {
  const config = loadConfig({ TRANSPORT: 'kafka' });
  const logger = pino({ level: config.LOG_LEVEL }, pino.destination(2));
  if (!config.SCHEMA_REGISTRY_URL) throw new Error('set SCHEMA_REGISTRY_URL (and KAFKA_BROKERS) to run a connector');
  const codec = await RegistryCodec.create(config.SCHEMA_REGISTRY_URL, config.TOPIC_PREFIX);
  return { config, transport: new KafkaTransport(kafkaOptionsOf(config, logger)), codec, logger };
}

/** Reply topic of a corpus job: `<prefix>.corpus.<job>.results`. */
export const corpusTopic = (prefix: string, job: string): string => `${prefix}.corpus.${job}.results`;

export { topicsFor };
