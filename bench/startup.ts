/**
 * `npm run bench:startup [-- --baseline REF]`: how long a Kafka-mode process takes to
 * become healthy on librdkafka's mock cluster (3 brokers): from spawn to `GET /health`
 * answering 200, for `npm start` with every service in one process (13 consumer groups)
 * and for a gateway alone, BENCH_RUNS times each (default 3; median and range printed),
 * each run on a fresh topic prefix. With `--baseline REF` the same runs go first against
 * REF (bench/baseline.ts), so the figures sit beside a baseline from the same machine.
 * Needs Debian's python3-confluent-kafka.
 */
import './tmp.ts'; // temporary files in a folder of the run's own, removed at exit
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { kafkaAvailable, startKafka } from '../test/helpers/kafka.ts';
import { freePort } from '../test/helpers/processes.ts';
import { checkoutBaseline } from './baseline.ts';
import { NODE_FLAGS } from '../services/node-flags.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const { values: args } = parseArgs({ options: { baseline: { type: 'string' } } });
if (!kafkaAvailable()) { console.error('needs python3-confluent-kafka for the mock cluster'); process.exit(2); }

/** ms from spawn to /health 200 of `services/main.ts` in `tree` with the given services. */
async function timeToHealthy(tree: string, services: string[], env: Record<string, string>): Promise<number> {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(process.execPath, [...NODE_FLAGS, '--import', 'tsx', join(tree, 'services/main.ts'), ...services.flatMap((s) => ['--service', s])], {
    cwd: tree, env: { ...process.env, ...env, PORT: String(port) }, stdio: 'ignore',
  });
  try {
    for (;;) {
      if (performance.now() - t0 > 120_000) throw new Error(`${services.join('+') || 'all'} not healthy after 120 s`);
      try { if ((await fetch(`http://127.0.0.1:${port}/health`)).status === 200) return performance.now() - t0; } catch { /* not listening yet */ }
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    child.kill('SIGKILL');
  }
}

const rows: Array<Record<string, string>> = [];
async function measure(label: string, tree: string): Promise<void> {
  const kafka = await startKafka();
  try {
    const regPort = await freePort();
    const base = {
      TRANSPORT: 'kafka', KAFKA_BROKERS: kafka.brokers, DATA_DIR: mkdtempSync(join(tmpdir(), 'bench-startup-')), API_KEYS: 'k',
      LOG_LEVEL: 'warn', HOST: '127.0.0.1', KAFKA_FETCH_MAX_WAIT_MS: '20',
    };
    for (const [name, services] of [['all services in one process', []], ['gateway alone', ['gateway']]] as const) {
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const prefix = `su${Date.now()}`;
        // a gateway alone needs a registry: the all-in-one process of the same prefix serves one first
        if (services.length > 0) {
          const regEnv = { ...base, TOPIC_PREFIX: prefix, SCHEMA_REGISTRY_PORT: String(regPort) };
          const registry = spawn(process.execPath, [...NODE_FLAGS, '--import', 'tsx', join(tree, 'services/main.ts'), '--service', 'registry'], { cwd: tree, env: { ...process.env, ...regEnv }, stdio: 'ignore' });
          try {
            for (let k = 0; k < 200; k++) { try { await fetch(`http://127.0.0.1:${regPort}/subjects`); break; } catch { await new Promise((r) => setTimeout(r, 100)); } }
            times.push(await timeToHealthy(tree, [...services], { ...base, TOPIC_PREFIX: prefix, SCHEMA_REGISTRY_URL: `http://127.0.0.1:${regPort}` }));
          } finally { registry.kill('SIGKILL'); }
        } else {
          times.push(await timeToHealthy(tree, [], { ...base, TOPIC_PREFIX: prefix, SCHEMA_REGISTRY_PORT: String(await freePort()) }));
        }
      }
      times.sort((a, b) => a - b);
      rows.push({ tree: label, process: name, 'median s': (times[Math.floor(times.length / 2)]! / 1000).toFixed(1), 'min–max s': `${(times[0]! / 1000).toFixed(1)}–${(times[times.length - 1]! / 1000).toFixed(1)}` });
    }
  } finally {
    await kafka.stop();
  }
}

if (args.baseline) {
  const b = checkoutBaseline(args.baseline);
  try { await measure(`baseline ${args.baseline}`, b.dir); } finally { b.remove(); }
}
await measure('this tree', ROOT);
console.log(`\nKafka mode (librdkafka mock cluster, 3 brokers): spawn to GET /health 200, ${RUNS} runs each, Node ${process.version}`);
console.table(rows);
