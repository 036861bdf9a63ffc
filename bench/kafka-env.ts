/**
 * Starts what the Kafka rows of the benchmark need: librdkafka's mock cluster and the
 * services as separate processes (registry + billing, a language-ID worker, a gateway),
 * reusing the test helpers. Request and reply consumers fetch with a 1 ms wait: the mock
 * cluster holds an empty fetch for its whole wait even when data arrives meanwhile (a
 * Kafka broker answers at once), so a longer wait adds up to that much per hop; 1, 2, 4
 * and 5 ms were tried and 1 ms gave the most requests/s.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startKafka, type TestKafka } from '../test/helpers/kafka.ts';
import { freePort, startProcess, type ServiceProcess } from '../test/helpers/processes.ts';

/**
 * Node flags for a V8 CPU profile of the process `name` into `$BENCH_PROFILE/<name>/`
 * when BENCH_PROFILE is set (services and connectors alike), else none.
 */
export function profileArgs(name: string): string[] {
  return process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}/${name}`] : [];
}

/** A running distributed deployment on the mock cluster. */
export interface KafkaBenchEnv { gateway: string; env: Record<string, string>; kafka: TestKafka; procs: ServiceProcess[]; stop(): Promise<void>; }

/** Starts the deployment; `key` is accepted by the gateway. */
export async function startKafkaEnv(key: string): Promise<KafkaBenchEnv> {
  const kafka = await startKafka();
  const regPort = await freePort();
  const port = await freePort();
  const env = {
    TRANSPORT: 'kafka', KAFKA_BROKERS: kafka.brokers, TOPIC_PREFIX: `bench${Date.now()}`, DATA_DIR: mkdtempSync(join(tmpdir(), 'bench-kafka-')),
    API_KEYS: key, LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info', KAFKA_FETCH_MAX_WAIT_MS: '1', HOST: '127.0.0.1', SCHEMA_REGISTRY_URL: `http://127.0.0.1:${regPort}`,
    RATE_LIMIT_MAX: '1000000000', LOG_REQUESTS: 'false',
    // BENCH_SET_<VAR>=value sets <VAR> in every service (tuning runs)
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('BENCH_SET_')).map(([k, v]) => [k.slice(10), v!])), KAFKA_COMPRESSION: process.env.BENCH_KAFKA_COMPRESSION ?? 'none',
  };
  const procs: ServiceProcess[] = [];
  procs.push(await startProcess('registry+billing', ['registry', 'billing'], { ...env, SCHEMA_REGISTRY_URL: '', SCHEMA_REGISTRY_PORT: String(regPort) }, 60_000, profileArgs('billing')));
  procs.push(...await Promise.all([
    startProcess('worker', ['worker:language-id'], env, 60_000, profileArgs('worker')),
    startProcess('gateway', ['gateway'], { ...env, PORT: String(port) }, 60_000, profileArgs('gateway')),
  ]));
  return {
    gateway: `http://127.0.0.1:${port}`, env, kafka, procs,
    async stop() { await Promise.all(procs.map((p) => p.kill('SIGTERM'))); await kafka.stop(); },
  };
}
