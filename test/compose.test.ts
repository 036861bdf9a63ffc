/**
 * The composition root (services/compose.ts; issue 12, item 6) maps the configuration onto
 * each component's settings with the defaults the components declare, so a component
 * built without the configuration behaves as the service; a component refuses a bad
 * setting when it is built.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { batchPolicyOf, gatewaySettingsOf, kafkaOptionsOf, workerSettingsOf } from '../services/compose.ts';
import { loadConfig } from '../services/config.ts';
import { AvroCodec } from '../services/events/codec.ts';
import { gatewaySettings } from '../services/gateway/options.ts';
import { DEFAULT_INFLIGHT_ITEMS, DEFAULT_QUEUE_TARGET_MS } from '../services/gateway/load-shedding.ts';
import { KafkaTransport } from '../services/transport/kafka/index.ts';
import { MemoryTransport } from '../services/transport/memory.ts';
import { workerSettings } from '../services/workers/options.ts';
import { CapabilityWorker } from '../services/workers/worker.ts';

describe('composition root', () => {
  it('gives components the defaults they declare when the environment sets nothing', () => {
    const config = loadConfig({});
    expect(workerSettingsOf(config)).toEqual(workerSettings());
    expect(gatewaySettingsOf(config)).toEqual({ ...gatewaySettings(), maxInflightItems: DEFAULT_INFLIGHT_ITEMS, queueTargetMs: DEFAULT_QUEUE_TARGET_MS });
    expect(batchPolicyOf(config)).toEqual({});
    expect(kafkaOptionsOf(loadConfig({ KAFKA_BROKERS: 'a:1, b:2' }), pino({ level: 'silent' }))).toMatchObject({ brokers: ['a:1', 'b:2'], lingerMs: 1, compression: 'gzip' });
  });
  it('takes each variable over to its setting', () => {
    const config = loadConfig({ TOPIC_PREFIX: 'p', WORKER_HEARTBEAT_MS: 123, DLQ_MAX_ATTEMPTS: 9, RATE_LIMIT_MAX: 5, MAX_INFLIGHT_ITEMS: 'decide=3', QUEUE_TARGET_MS: 'diacritize=40', IMAGE_THREADS: 4, BATCH_MAX_QUEUE_DELAY_MS: 0, WORKER_BACKLOG_MICRO_BATCHES: 16 });
    expect(workerSettingsOf(config)).toMatchObject({ topicPrefix: 'p', heartbeatMs: 123, dlqMaxAttempts: 9, backlogMicroBatches: 16 });
    expect(workerSettingsOf(loadConfig({}))).toMatchObject({ backlogMicroBatches: 4 });
    expect(gatewaySettingsOf(config)).toMatchObject({ topicPrefix: 'p', workerHeartbeatMs: 123, rateLimitMax: 5, imageThreads: 4, maxInflightItems: { decide: 3 }, queueTargetMs: { diacritize: 40, decide: DEFAULT_QUEUE_TARGET_MS.decide } });
    expect(batchPolicyOf(config)).toEqual({ maxQueueDelayMs: 0 });
    // what the composition root hands over passes the components' own validation
    expect(workerSettings(workerSettingsOf(config))).toEqual(workerSettingsOf(config));
    expect(gatewaySettings(gatewaySettingsOf(config))).toEqual(gatewaySettingsOf(config));
  });
  it('a component refuses a bad setting when it is built', () => {
    expect(() => new KafkaTransport({ brokers: ['no-port'], clientId: 'x' })).toThrow(/kafka transport options: brokers.0 must match pattern/);
    expect(() => new KafkaTransport({ ...kafkaOptionsOf(loadConfig({}), pino({ level: 'silent' })), lingerMs: -1 })).toThrow(/kafka transport options: lingerMs must be >= 0/);
    expect(new KafkaTransport({ brokers: ['[::1]:9092'], clientId: 'x' }).options).toMatchObject({ lingerMs: 1, compression: 'gzip', replicationFactor: 1 });
    expect(() => new CapabilityWorker({
      capability: 'language-id', transport: new MemoryTransport(), codec: new AvroCodec(), logger: pino({ level: 'silent' }), settings: { heartbeatMs: 0 },
    })).toThrow(/worker options: heartbeatMs must be >= 10/);
    for (const [n, why] of [[0, '>= 1'], [65, '<= 64']] as const) {
      expect(() => new CapabilityWorker({
        capability: 'language-id', transport: new MemoryTransport(), codec: new AvroCodec(), logger: pino({ level: 'silent' }), settings: { backlogMicroBatches: n },
      })).toThrow(`worker options: backlogMicroBatches must be ${why}`);
    }
  });
});
