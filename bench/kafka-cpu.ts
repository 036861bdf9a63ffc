/**
 * `npm run bench:kafka`: the Kafka single-request row of `npm run bench` alone, with the
 * CPU each process used during the load (cores = CPU seconds / wall seconds, from
 * /proc/<pid>/stat for the services and the mock cluster, process.cpuUsage() for the
 * load generator), to see where the 2 cores go. Runs in about 40 s.
 *
 * Environment: BENCH_DURATION (s, default 10), BENCH_CONNECTIONS (requests in flight,
 * default 64), BENCH_MODEL (default lid-neural-608), BENCH_SET_<VAR>=value to set <VAR>
 * in every service (bench/kafka-env.ts), BENCH_PROFILE=<dir> for V8 CPU profiles.
 * Needs Debian's python3-confluent-kafka (the mock cluster) and Linux's /proc.
 */
import './tmp.ts'; // temporary files in a folder of the run's own, removed at exit
import autocannon from 'autocannon';
import { execFileSync } from 'node:child_process';
import { cpuSeconds } from './cpu.ts';
import { kafkaAvailable } from '../test/helpers/kafka.ts';
import { startKafkaEnv } from './kafka-env.ts';
import { SENTENCES } from './sentences.ts';

const KEY = 'bench-key';
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const MODEL = process.env.BENCH_MODEL ?? 'lid-neural-608';

if (!kafkaAvailable()) {
  console.error('needs python3-confluent-kafka for the mock cluster');
  process.exit(2);
}

const env = await startKafkaEnv(KEY);
try {
  const pids: Record<string, number> = Object.fromEntries(env.procs.map((p) => [p.name, p.child.pid!]));
  const broker = execFileSync('pgrep', ['-f', 'mock_cluster.py']).toString().trim().split('\n').map(Number);
  pids['mock cluster'] = broker[broker.length - 1]!;
  const load = (connections: number, duration: number) => autocannon({
    url: env.gateway, connections, duration,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
    requests: SENTENCES.map((text) => ({ method: 'POST' as const, path: '/v1/language-id', body: JSON.stringify({ text, model: MODEL }) })),
  });
  await load(8, 2); // warm up: model loaded, connections open
  const before = Object.fromEntries(Object.entries(pids).map(([n, pid]) => [n, cpuSeconds(pid)]));
  const self0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await load(CONNECTIONS, DURATION);
  const secs = (performance.now() - t0) / 1000;
  const self = process.cpuUsage(self0);
  console.log(`/v1/language-id over Kafka (mock cluster), ${MODEL}, ${CONNECTIONS} in flight, ${DURATION} s, Node ${process.version}`);
  console.log(`requests/s ${Math.round(r.requests.average)}, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, errors ${r.errors + r.non2xx}`);
  const rows = Object.entries(pids).map(([name, pid]) => ({ process: name, cores: +((cpuSeconds(pid) - before[name]!) / secs).toFixed(2) }));
  rows.push({ process: 'load generator (autocannon)', cores: +((self.user + self.system) / 1e6 / secs).toFixed(2) });
  console.table(rows);
  if (r.errors + r.non2xx > 0) process.exitCode = 1;
} finally {
  await env.stop();
}
