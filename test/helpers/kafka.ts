/**
 * A real Kafka-protocol broker for tests: librdkafka's mock cluster (3 brokers) from
 * Debian's python3-confluent-kafka by default, or, with KAFKA_TEST_MODE=testcontainers
 * on machines with Docker, a Kafka broker in a container (testcontainers).
 */
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** A running broker. */
export interface TestKafka {
  brokers: string;
  stop(): Promise<void>;
  /** process id of the mock cluster (for its CPU time); undefined for a container */
  pid?(): number | undefined;
}

const PYTHON = '/usr/bin/python3';

/** Whether a broker can be started here. */
export function kafkaAvailable(): boolean {
  if (process.env.KAFKA_TEST_MODE === 'testcontainers') return true;
  return spawnSync(PYTHON, ['-c', 'import confluent_kafka'], { stdio: 'ignore' }).status === 0;
}

/**
 * Starts a broker.
 * @throws Error when the mock cluster does not print its addresses within 20 s
 */
export async function startKafka(): Promise<TestKafka> {
  if (process.env.KAFKA_TEST_MODE === 'testcontainers') {
    const { KafkaContainer } = await import('@testcontainers/kafka');
    const c = await new KafkaContainer('confluentinc/cp-kafka:7.7.1').withKraft().start();
    return { brokers: `${c.getHost()}:${c.getMappedPort(9093)}`, stop: async () => { await c.stop(); } };
  }
  const script = fileURLToPath(new URL('./mock_cluster.py', import.meta.url));
  const py = spawn(PYTHON, [script, '3'], { stdio: ['pipe', 'pipe', 'ignore'] });
  const brokers = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('mock cluster did not start')), 20_000);
    py.stdout.on('data', (d: Buffer) => {
      const m = /BROKERS (\S+)/.exec(String(d));
      if (m) { clearTimeout(timer); resolve(m[1]!); }
    });
    py.on('exit', (code) => reject(new Error(`mock cluster exited with ${code}`)));
  });
  return {
    brokers,
    pid: () => py.pid,
    stop: async () => {
      py.stdin.end();
      await new Promise((r) => { py.once('exit', r); setTimeout(() => { py.kill('SIGKILL'); r(null); }, 3000); });
    },
  };
}
