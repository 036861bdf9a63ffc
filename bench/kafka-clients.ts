/**
 * `npm run bench:kafka-clients`: what a Kafka client costs per message on this machine's
 * broker, kafkajs (the transport's client) beside @confluentinc/kafka-javascript (librdkafka,
 * through its KafkaJS-compatible API) when that is installed. Issue 17: Kafka mode spends
 * about twice the embedded mode's CPU per request, and kafkajs is 29 % of the gateway's and
 * 53 % of the worker's busy time.
 *
 * Each client runs in a process of its own against librdkafka's mock cluster (3 brokers,
 * test/helpers/kafka.ts): a closed loop of 64 messages in flight on a one-partition topic,
 * each consumed message producing the next (a produce and a consume per round trip, acks
 * all, the sends of one event-loop turn in one produce call, fetches waiting at most 1 ms
 * as in bench/kafka-env.ts). It prints round trips/s and CPU per round trip of the client
 * process (all its threads, process.cpuUsage) and of the mock cluster (/proc), over 10 s
 * after 3 s of warm-up, two rounds each, alternating.
 *
 * @confluentinc/kafka-javascript is not a dependency. Its install script downloads a
 * prebuilt binary from GitHub or builds librdkafka from source; where only npm and Debian
 * can be reached, build it against Debian's libraries, in a folder outside the repository:
 *   apt-get install libcurl4-openssl-dev libzstd-dev libsasl2-dev liblz4-dev libssl-dev
 *   mkdir /tmp/ckjs && cd /tmp/ckjs && npm init -y && npm pack @confluentinc/kafka-javascript@1.10.1
 *   CKJS_LINKING=dynamic npm install ./confluentinc-kafka-javascript-1.10.1.tgz --foreground-scripts
 * and point BENCH_CONFLUENT_DIR at that folder (default: this repository's node_modules).
 * Environment: BENCH_DURATION (s, default 10), BENCH_ROUNDS (default 2).
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { cpuSeconds } from './cpu.ts';
import { kafkaAvailable, startKafka } from '../test/helpers/kafka.ts';

const IN_FLIGHT = 64;
const WARMUP_MS = 3000;
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 2));
const CONFLUENT_DIR = process.env.BENCH_CONFLUENT_DIR ?? fileURLToPath(new URL('..', import.meta.url));

/** One client's figures over a run. */
interface ClientRun { client: string; roundTripsPerS: number; clientUsPerRoundTrip: number; clientCores: number; mockUsPerRoundTrip: number; }

/** The KafkaJS-style client and its configs for `client`; null when it is not installed. */
function clientOf(client: string, brokers: string[], group: string) {
  if (client === 'kafkajs') {
    const { Kafka } = createRequire(import.meta.url)('kafkajs');
    return { Kafka, kafka: { brokers, logLevel: 0 }, producer: { allowAutoTopicCreation: true }, consumer: { groupId: group, maxWaitTimeInMs: 1 }, subscribe: { fromBeginning: true } };
  }
  let mod;
  try { mod = createRequire(`${CONFLUENT_DIR}/package.json`)('@confluentinc/kafka-javascript'); } catch { return null; }
  return {
    Kafka: mod.KafkaJS.Kafka, kafka: { kafkaJS: { brokers, logLevel: 0 } },
    producer: { kafkaJS: { acks: -1 }, 'linger.ms': 0 },
    consumer: { kafkaJS: { groupId: group, fromBeginning: true }, 'fetch.wait.max.ms': 1 }, subscribe: {},
  };
}

/** Runs the loop with `client` in this process and prints its figures as one JSON line. */
async function runOne(client: string, brokers: string, mockPid: number): Promise<void> {
  const topic = `clients${Date.now()}`;
  const c = clientOf(client, brokers.split(','), topic);
  if (!c) { console.log(JSON.stringify({ client, missing: true })); return; }
  const kafka = new c.Kafka(c.kafka);
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1 }] }).catch(() => undefined);
  await admin.disconnect();
  const producer = kafka.producer(c.producer);
  await producer.connect();
  const consumer = kafka.consumer(c.consumer);
  await consumer.connect();
  await consumer.subscribe({ topic, ...c.subscribe });
  let pending: Array<{ value: Buffer }> = [];
  let scheduled = false;
  let received = 0;
  let counting = false;
  const value = Buffer.alloc(80, 7);
  const send = () => {
    pending.push({ value });
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      const messages = pending;
      pending = [];
      scheduled = false;
      producer.send({ topic, messages }).catch((err: Error) => console.error(err.message));
    });
  };
  await consumer.run({ eachBatch: async ({ batch }: { batch: { messages: unknown[] } }) => { for (let i = 0; i < batch.messages.length; i++) { if (counting) received++; send(); } } });
  await new Promise((r) => setTimeout(r, WARMUP_MS));
  for (let i = 0; i < IN_FLIGHT; i++) send();
  await new Promise((r) => setTimeout(r, WARMUP_MS));
  counting = true;
  const cpu0 = process.cpuUsage(), mock0 = cpuSeconds(mockPid), t0 = performance.now();
  await new Promise((r) => setTimeout(r, DURATION * 1000));
  const secs = (performance.now() - t0) / 1000, cpu = process.cpuUsage(cpu0), mock = cpuSeconds(mockPid) - mock0;
  counting = false;
  const n = received, us = cpu.user + cpu.system;
  const run: ClientRun = {
    client, roundTripsPerS: Math.round(n / secs), clientUsPerRoundTrip: Math.round(us / n),
    clientCores: +(us / 1e6 / secs).toFixed(2), mockUsPerRoundTrip: Math.round(mock * 1e6 / n),
  };
  console.log(JSON.stringify(run));
  await consumer.disconnect();
  await producer.disconnect();
}

if (process.argv[2] === '--run') {
  await runOne(process.argv[3]!, process.argv[4]!, Number(process.argv[5]));
  process.exit(0);
}

if (!kafkaAvailable()) {
  console.error('needs python3-confluent-kafka for the mock cluster');
  process.exit(2);
}
const kafka = await startKafka();
const rows: Array<ClientRun | { client: string; missing: true }> = [];
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const client of ['kafkajs', 'confluent']) {
      const out = execFileSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--run', client, kafka.brokers, String(kafka.pid?.())],
        { encoding: 'utf8', timeout: (DURATION + 30) * 1000 });
      const line = out.trim().split('\n').filter((l) => l.startsWith('{')).pop();
      if (line) rows.push(JSON.parse(line));
    }
  }
} finally {
  await kafka.stop();
}
console.log(`produce→consume round trips, ${IN_FLIGHT} in flight, ${DURATION} s each, librdkafka mock cluster, Node ${process.version}`);
const measured = rows.filter((r): r is ClientRun => !('missing' in r));
console.table(measured);
const mean = (client: string, k: 'roundTripsPerS' | 'clientUsPerRoundTrip') => {
  const xs = measured.filter((r) => r.client === client).map((r) => r[k]);
  return xs.reduce((a, b) => a + b, 0) / xs.length;
};
if (rows.some((r) => 'missing' in r)) {
  console.log(`@confluentinc/kafka-javascript is not installed under ${CONFLUENT_DIR}: kafkajs alone (see this file's comment to build it)`);
} else {
  console.log(`confluent ÷ kafkajs: round trips/s ${(mean('confluent', 'roundTripsPerS') / mean('kafkajs', 'roundTripsPerS')).toFixed(2)}, client CPU per round trip ${(mean('confluent', 'clientUsPerRoundTrip') / mean('kafkajs', 'clientUsPerRoundTrip')).toFixed(2)}`);
}
