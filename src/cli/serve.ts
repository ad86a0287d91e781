/**
 * `octonet serve`: opens the store (running migrations), builds the core services and the HTTP
 * API, and listens. Also what the demo and the tests start, in-process.
 */
import { pino, type Logger } from 'pino';
import { ConfigError, parseListen, type Config } from '../config/config.js';
import { createPolicyAuthorizer } from '../auth/policy.js';
import { createApiServer } from '../api/server.js';
import { createServices, type Services } from '../core/services.js';
import { createDriverHost } from '../core/driver-host.js';
import type { MechanismDriver } from '../drivers/contract.js';
import { openStore, type Store } from '../store/database.js';
import { collectDefaultMetrics, Registry } from 'prom-client';

export interface RunningServer {
  /** Base URL of the API, e.g. `http://127.0.0.1:9696`. */
  readonly url: string;
  readonly store: Store;
  readonly services: Services;
  readonly drivers: readonly MechanismDriver[];
  close(): Promise<void>;
}

/**
 * The mechanism drivers the config asks for: the OVN driver when an NB connection is set (loaded
 * only then, so an API-only deployment never loads it).
 */
async function createDrivers(config: Config, logger: Logger, metrics: Registry): Promise<MechanismDriver[]> {
  const { nb_connection, sb_connection } = config.ovn;
  if (!nb_connection) return [];
  if (!sb_connection) throw new ConfigError('ovn.sb_connection (--ovn-sb) is needed with ovn.nb_connection (--ovn-nb)');
  const { OvnMechanismDriver } = await import('../drivers/ovn/driver.js');
  return [
    new OvnMechanismDriver({
      ovn: { ...config.ovn, nb_connection, sb_connection },
      dnsDomain: config.network.dns_domain,
      baseMac: config.network.base_mac,
      logger: logger.child({ component: 'ovn' }),
      registry: metrics,
    }),
  ];
}

export function createLogger(config: Pick<Config, 'log_level'>): Logger {
  return pino({ level: config.log_level, base: { service: 'octonet' } });
}

/** `extraDrivers` run after the configured ones (tests register contract-test drivers here). */
export async function startServer(
  config: Config,
  logger: Logger = createLogger(config),
  extraDrivers: readonly MechanismDriver[] = [],
): Promise<RunningServer> {
  const store = await openStore(config.database, {
    poolSize: config.database_pool_size,
    onConnectionLost: (error) =>
      logger.warn({ err: error.message }, 'database dropped an idle connection; reconnecting'),
  });
  const metrics = new Registry();
  collectDefaultMetrics({ register: metrics, prefix: 'octonet_' });
  const authorizer = createPolicyAuthorizer();
  const { host, port } = parseListen(config.listen);
  let drivers: MechanismDriver[] = [];
  let services: Services;
  let app;
  try {
    drivers = [...(await createDrivers(config, logger, metrics)), ...extraDrivers];
    services = createServices({ store, config, authz: authorizer, logger, drivers });
    // Drivers connect (and the OVN driver compares the NB with the database) before the API opens.
    await services.deps.drivers.start(createDriverHost(services));
    app = await createApiServer({ config, services, authorizer, logger, metrics });
    await app.listen({ host, port });
  } catch (error) {
    await app?.close();
    await Promise.all(drivers.map((d) => d.stop?.()));
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
    drivers,
    async close() {
      await app.close();
      await services.deps.drivers.stop();
      await store.close();
    },
  };
}
