/**
 * Shutdown in distributed mode (issue 11, finding 10): SIGTERM ends a Kafka-mode process
 * within SHUTDOWN_GRACE_MS even when its brokers are gone, instead of restarting its
 * consumers forever.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { kafkaAvailable, startKafka, type TestKafka } from '../helpers/kafka.ts';
import { freePort, startProcess, type ServiceProcess } from '../helpers/processes.ts';

const available = kafkaAvailable();
if (!available && process.env.CI) throw new Error('CI needs the Kafka test broker: apt-get install python3-confluent-kafka');

describe.skipIf(!available)('shutdown over Kafka', () => {
  let kafka: TestKafka | undefined;
  let proc: ServiceProcess | undefined;
  afterAll(async () => { await proc?.kill('SIGKILL'); await kafka?.stop(); });

  it('exits within the grace period after SIGTERM when the brokers are gone (regression: it ran on for 100+ s)', async () => {
    kafka = await startKafka();
    const [port, regPort] = [await freePort(), await freePort()];
    proc = await startProcess('all', [], {
      TRANSPORT: 'kafka', KAFKA_BROKERS: kafka.brokers, TOPIC_PREFIX: `sd${Date.now()}`, DATA_DIR: mkdtempSync(join(tmpdir(), 'shutdown-')),
      API_KEYS: 'k', LOG_LEVEL: 'info', HOST: '127.0.0.1', PORT: String(port), SCHEMA_REGISTRY_PORT: String(regPort),
      KAFKA_FETCH_MAX_WAIT_MS: '20', KAFKA_SESSION_TIMEOUT_MS: '6000', SHUTDOWN_GRACE_MS: '3000',
    });
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
    await kafka.stop();
    kafka = undefined;
    // let the consumers notice that the brokers are gone
    await new Promise((r) => setTimeout(r, 2000));
    const exited = new Promise<number | null>((resolve) => proc!.child.once('exit', (code) => resolve(code)));
    const t0 = Date.now();
    proc.child.kill('SIGTERM');
    const code = await Promise.race([exited, new Promise<'still running'>((r) => setTimeout(() => r('still running'), 60_000))]);
    expect(code).not.toBe('still running');
    // the grace period is 3 s: the process ends by it (a clean exit or the forced one); the
    // regression ran on for 100+ s, and the bound leaves a busy machine room
    expect(Date.now() - t0).toBeLessThan(30_000);
    expect(proc.logs.some((l) => l.msg === 'shutting down')).toBe(true);
  });
});
