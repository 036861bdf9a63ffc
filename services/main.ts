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
 *
 * A start that cannot go on says why in one line on stderr and exits non-zero: an invalid
 * variable (its name, value and rule; exit 2), a port in use (exit 1). The start-up log
 * says when no API key is configured and how to make one, and which models load before
 * `/ready` answers 200 (MODEL_PRELOAD).
 */
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { OptionsError } from './lib/options.ts';
import { startHealthPort, type HealthPort, type HealthSource } from './health/health.ts';
import { VERSION } from './lib/version.ts';
import { parseServices, startRuntime, type Runtime } from './runtime.ts';
import { onShutdownSignals } from './shutdown.ts';

/** Ends the process with one line on stderr. */
function fail(message: string, code: number): never {
  process.stderr.write(`lmstream: ${message}\n`);
  process.exit(code);
}

const { values } = parseArgs({ options: { service: { type: 'string', multiple: true, default: [] } } });
let config: Config;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) fail(err.message, 2);
  throw err;
}
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
let health: HealthPort | undefined;
/** The one-line reason and exit code of a start-up error a user can fix (2: configuration, 1: the machine), or null for any other error. */
function startError(err: unknown): { line: string; exit: number } | null {
  const e = err as NodeJS.ErrnoException & { port?: number; address?: string };
  if (err instanceof ConfigError || err instanceof OptionsError) return { line: err.message, exit: 2 };
  const line = machineError(e);
  return line ? { line, exit: 1 } : null;
}

/** A port in use or not allowed, in one line. */
function machineError(e: NodeJS.ErrnoException & { port?: number; address?: string }): string | null {
  if (e?.code === 'EADDRINUSE') return `port ${e.port ?? '?'} on ${e.address ?? config.HOST} is in use by another process: stop it, or set ${e.port === config.SCHEMA_REGISTRY_PORT ? 'SCHEMA_REGISTRY_PORT' : e.port === config.HEALTH_PORT ? 'HEALTH_PORT' : 'PORT'} to a free port`;
  if (e?.code === 'EACCES' && e.syscall === 'listen') return `no permission to listen on port ${e.port ?? '?'}: choose a port above 1023`;
  return null;
}

try {
  if (config.HEALTH_PORT > 0) health = await startHealthPort({ port: config.HEALTH_PORT, host: config.HOST, stallMs: config.LIVENESS_STALL_MS, version: VERSION, source });
  rt = await startRuntime(config, { services });
  // the accept queue: Node's default of 511 overflowed when 1,024 clients connected at once
  // while the loop was busy, and each dropped SYN cost its client 1 s, then 3 s (TCP's
  // retransmission timeout); the kernel caps it at net.core.somaxconn
  if (rt.gateway) await rt.gateway.app.listen({ port: config.PORT, host: config.HOST, backlog: LISTEN_BACKLOG });
} catch (err) {
  const why = startError(err);
  if (!why) throw err;
  await rt?.close().catch(() => undefined);
  await health?.close().catch(() => undefined);
  fail(why.line, why.exit);
}
const started = rt;
const loading = started.loadingModels();
started.logger.info({ services, transport: config.TRANSPORT, healthPort: health?.port, loadingModels: loading }, 'started');
if (started.keys && config.API_KEYS === '' && (await started.keys.list()).every((k) => k.revoked_at !== null)) {
  started.logger.warn('no API key is configured: every route but /v1/models, /v1/languages, /v1/lid/models, /health and /ready answers 401. '
    + 'Make one with `npm run keys -- create --name NAME` (it is shown once), or start with API_KEYS=<key> npm start');
}
// ready (the health port's /ready, and the gateway's) once the preloaded models are in
void started.preloaded().then(() => {
  source.started = true;
  if (loading.length > 0) started.logger.info({ models: loading }, 'ready: preloaded models loaded');
});

onShutdownSignals({ graceMs: config.SHUTDOWN_GRACE_MS, logger: rt.logger, close: () => rt!.close(), onStop: () => { stopping = true; } });
