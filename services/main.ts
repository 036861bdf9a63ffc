/**
 * `npm start`: runs the service in embedded mode and listens on HOST:PORT.
 * Stops gracefully on SIGINT/SIGTERM (in-flight batches finish and are committed).
 */
import { loadConfig } from './config.ts';
import { startEmbedded } from './embedded.ts';

const config = loadConfig();
const service = await startEmbedded(config);
await service.gateway.app.listen({ port: config.PORT, host: config.HOST });

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    service.logger.info({ signal }, 'shutting down');
    service.close().then(() => process.exit(0), (err) => { service.logger.error({ err }, 'shutdown failed'); process.exit(1); });
  });
}
