/**
 * `octonet serve`: opens the store (running migrations), builds the core services and the HTTP
 * API, and listens. Also what the demo and the tests start, in-process.
 */
import { pino, type Logger } from 'pino';
import { parseListen, type Config } from '../config/config.js';
import { createPolicyAuthorizer } from '../auth/policy.js';
import { createApiServer } from '../api/server.js';
import { createServices, type Services } from '../core/services.js';
import { openStore, type Store } from '../store/database.js';

export interface RunningServer {
  /** Base URL of the API, e.g. `http://127.0.0.1:9696`. */
  readonly url: string;
  readonly store: Store;
  readonly services: Services;
  close(): Promise<void>;
}

export function createLogger(config: Pick<Config, 'log_level'>): Logger {
  return pino({ level: config.log_level, base: { service: 'octonet' } });
}

export async function startServer(config: Config, logger: Logger = createLogger(config)): Promise<RunningServer> {
  const store = await openStore(config.database, {
    poolSize: config.database_pool_size,
    onConnectionLost: (error) =>
      logger.warn({ err: error.message }, 'database dropped an idle connection; reconnecting'),
  });
  const authorizer = createPolicyAuthorizer();
  const services = createServices({ store, config, authz: authorizer, logger });
  const app = await createApiServer({ config, services, authorizer, logger });
  const { host, port } = parseListen(config.listen);
  try {
    await app.listen({ host, port });
  } catch (error) {
    await store.close();
    throw error;
  }
  const address = app.server.address();
  const boundPort = typeof address === 'object' && address ? address.port : port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  logger.info({ listen: `${urlHost}:${boundPort}`, database: store.dialect.describe }, 'octonet API listening');
  return {
    url: `http://${urlHost}:${boundPort}`,
    store,
    services,
    async close() {
      await app.close();
      await store.close();
    },
  };
}
