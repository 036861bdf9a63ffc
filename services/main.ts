/**
 * `npm start [-- --service <name> ...]`: runs services in one process.
 * - `TRANSPORT=memory` (default): embedded mode, every service in this process.
 * - `TRANSPORT=kafka`: the named services (default all) over Kafka; services are
 *   `gateway`, `worker:<capability>`, `billing`, `registry`.
 * The gateway listens on HOST:PORT. SIGINT/SIGTERM stop gracefully within
 * SHUTDOWN_GRACE_MS: the gateway stops taking requests and answers those in flight (503
 * after half the grace period), workers finish and commit their in-flight batches, and
 * the process exits when all is closed or, whatever still hangs (brokers that do not
 * answer, an inference thread inside a native call), when the grace period ends
 * (./shutdown.ts: SIGKILL of itself).
 */
import { parseArgs } from 'node:util';
import { loadConfig } from './config.ts';
import { startHealthPort, type HealthSource } from './health/health.ts';
import { VERSION } from './lib/version.ts';
import { parseServices, startRuntime, type Runtime } from './runtime.ts';
import { onShutdownSignals } from './shutdown.ts';

const { values } = parseArgs({ options: { service: { type: 'string', multiple: true, default: [] } } });
const config = loadConfig();
const services = config.TRANSPORT === 'memory' ? parseServices([]) : parseServices(values.service ?? []);
if (config.TRANSPORT === 'memory' && (values.service?.length ?? 0) > 0) {
  console.error('--service needs TRANSPORT=kafka: embedded mode runs every service in one process');
  process.exit(2);
}
let stopping = false;
let rt: Runtime | undefined;
// the health port answers liveness from the start, and readiness once everything started
/** Connections the kernel may hold completed before the gateway accepts them. */
const LISTEN_BACKLOG = 4096;

const source: HealthSource = {
  started: false,
  draining: () => stopping,
  overloaded: () => (rt?.gateway ? !rt.gateway.app.gatewayState.inflight.ready() : false),
};
const health = config.HEALTH_PORT > 0
  ? await startHealthPort({ port: config.HEALTH_PORT, host: config.HOST, stallMs: config.LIVENESS_STALL_MS, version: VERSION, source })
  : undefined;
rt = await startRuntime(config, { services });
// the accept queue: Node's default of 511 overflowed when 1,024 clients connected at once
// while the loop was busy, and each dropped SYN cost its client 1 s, then 3 s (TCP's
// retransmission timeout); the kernel caps it at net.core.somaxconn
if (rt.gateway) await rt.gateway.app.listen({ port: config.PORT, host: config.HOST, backlog: LISTEN_BACKLOG });
source.started = true;
rt.logger.info({ services, transport: config.TRANSPORT, healthPort: health?.port }, 'started');

onShutdownSignals({ graceMs: config.SHUTDOWN_GRACE_MS, logger: rt.logger, close: () => rt!.close(), onStop: () => { stopping = true; } });
