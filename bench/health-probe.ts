/**
 * A separate process that asks `GET <url>` every PROBE_INTERVAL_MS (default 100) over
 * its own keep-alive connection until stdin closes, then prints one JSON line:
 * `{n, failed, p50, p99, max}` (latencies in ms; a probe counts as failed on a non-200
 * answer, an error or no answer within PROBE_TIMEOUT_MS, default 5,000, which is then
 * its latency). Run by bench/overload.ts beside the load, so the load generator's own
 * event loop does not add to the figures.
 */
import { Agent, request } from 'node:http';

const url = new URL(process.argv[2] ?? 'http://127.0.0.1:8080/health');
const INTERVAL = Number(process.env.PROBE_INTERVAL_MS ?? 100);
const TIMEOUT = Number(process.env.PROBE_TIMEOUT_MS ?? 5000);
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const latencies: number[] = [];
let failed = 0;
let stop = false;

function probe(): Promise<void> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const done = (ok: boolean) => {
      const ms = Math.min(performance.now() - t0, TIMEOUT);
      latencies.push(ms);
      if (!ok) failed++;
      resolve();
    };
    const req = request(url, { agent, timeout: TIMEOUT }, (res) => {
      res.resume();
      res.on('end', () => done(res.statusCode === 200));
    });
    req.on('timeout', () => { req.destroy(); });
    req.on('error', () => done(false));
    req.end();
  });
}

process.stdin.resume();
process.stdin.on('end', () => { stop = true; });
while (!stop) {
  const t0 = performance.now();
  await probe();
  const rest = INTERVAL - (performance.now() - t0);
  if (rest > 0) await new Promise((r) => setTimeout(r, rest));
}
latencies.sort((a, b) => a - b);
const q = (p: number) => +(latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0).toFixed(1);
process.stdout.write(`${JSON.stringify({ n: latencies.length, failed, p50: q(0.5), p99: q(0.99), max: +(latencies[latencies.length - 1] ?? 0).toFixed(1) })}\n`);
agent.destroy();
