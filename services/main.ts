/**
 * `npm start [-- --service <name> ...]`: runs services in one process.
 * - `TRANSPORT=memory` (default): embedded mode, every service in this process.
 * - `TRANSPORT=kafka`: the named services (default all) over Kafka; services are
 *   `gateway`, `worker:<capability>`, `billing`, `registry`.
 * The gateway listens on HOST:PORT. SIGINT/SIGTERM stop gracefully within
 * SHUTDOWN_GRACE_MS: the gateway stops taking requests and answers those in flight (503
 * after half the grace period), workers finish and commit their in-flight batches, and
 * the process exits when all is closed or, whatever still hangs (brokers that do not
 * answer), when the grace period ends (exit code 1).
 */
import { parseArgs } from 'node:util';
import { loadConfig } from './config.ts';
import { parseServices, startRuntime } from './runtime.ts';

const { values } = parseArgs({ options: { service: { type: 'string', multiple: true, default: [] } } });
const config = loadConfig();
const services = config.TRANSPORT === 'memory' ? parseServices([]) : parseServices(values.service ?? []);
if (config.TRANSPORT === 'memory' && (values.service?.length ?? 0) > 0) {
  console.error('--service needs TRANSPORT=kafka: embedded mode runs every service in one process');
  process.exit(2);
}
const rt = await startRuntime(config, { services });
if (rt.gateway) await rt.gateway.app.listen({ port: config.PORT, host: config.HOST });
rt.logger.info({ services, transport: config.TRANSPORT }, 'started');

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    rt.logger.info({ signal, graceMs: config.SHUTDOWN_GRACE_MS }, 'shutting down');
    setTimeout(() => {
      rt.logger.error({ graceMs: config.SHUTDOWN_GRACE_MS }, 'shutdown did not finish within the grace period; exiting now');
      process.exit(1);
    }, config.SHUTDOWN_GRACE_MS).unref();
    rt.close().then(() => process.exit(0), (err) => { rt.logger.error({ err }, 'shutdown failed'); process.exit(1); });
  });
}
