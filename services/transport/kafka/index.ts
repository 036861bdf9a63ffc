/**
 * The Kafka transport: see transport.ts (and options.ts for its settings).
 */
export { KafkaTransport } from './transport.ts';
export type { KafkaTransportOptions } from './options.ts';
