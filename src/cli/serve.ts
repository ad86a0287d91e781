/**
 * `octonet serve`: opens the store (running migrations), builds the core services and the HTTP
 * API, and listens. Also what the demo and the tests start, in-process.
 */
import { pino, type Logger } from 'pino';
import { ConfigError, parseListen, type Config } from '../config/config.js';
import { createPolicyAuthorizer, isKnownRule } from '../auth/policy.js';
import { PolicyFile } from '../auth/policy-file.js';
import { mapNeutronConfig, type NeutronConfigMapping } from '../config/neutron-conf.js';
import { loadOsloConfig } from '../config/oslo-ini.js';
import { createApiServer } from '../api/server.js';
import { createServices, type Services } from '../core/services.js';
import { createDriverHost } from '../core/driver-host.js';
import type { MechanismDriver } from '../drivers/contract.js';
import { createNovaNotifier } from '../notifiers/nova.js';
import { openStore, type Store } from '../store/database.js';
import { deploymentIdentity } from '../store/identity.js';
import type { StoreEvents } from '../store/outage.js';
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { octonetVersion } from './version.js';
import { compactHeapOnce } from './serve-memory.js';

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
 * only then, so an API-only deployment never loads it), and Nova's notifier when `nova:` is set.
 */
async function createDrivers(
  config: Config,
  logger: Logger,
  metrics: Registry,
  store: Store,
): Promise<MechanismDriver[]> {
  // Nova's events listen to every committed write; first, so an event never waits for an NB write.
  const nova = await createNovaNotifier(config.nova, logger, metrics);
  return [...(nova ? [nova] : []), ...(await createDataPlaneDrivers(config, logger, metrics, store))];
}

async function createDataPlaneDrivers(
  config: Config,
  logger: Logger,
  metrics: Registry,
  store: Store,
): Promise<MechanismDriver[]> {
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
      deploymentId: await deploymentIdentity(store),
    }),
  ];
}

/** Neutron's `--config-file`s and `--config-dir`s as octonet config values, with what they set that octonet ignores. */
export function readNeutronConfig(files: readonly string[], dirs: readonly string[]): NeutronConfigMapping {
  return mapNeutronConfig(loadOsloConfig({ files, dirs }));
}

/** Says once, at start, what of the Neutron files octonet does not follow, and what the YAML lost to them. */
export function logNeutronConfig(
  logger: Logger,
  mapping: NeutronConfigMapping,
  yamlOverridden: readonly string[],
): void {
  if (mapping.ignored.length)
    logger.warn({ options: mapping.ignored }, `Neutron options octonet ignores: ${mapping.ignored.join(', ')}`);
  for (const warning of mapping.warnings) logger.warn(warning);
  if (yamlOverridden.length)
    logger.warn({ keys: yamlOverridden }, 'set in both the YAML config and the Neutron files; the Neutron value wins');
}

export function createLogger(config: Pick<Config, 'log_level'>): Logger {
  return pino({ level: config.log_level, base: { service: 'octonet' } });
}

/** Whether only this machine can reach `host`: a loopback address or `localhost`. */
function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * noauth trusts the X-Project-Id / X-Roles headers, and a request without them is admin: on an
 * address others can reach, that is everyone's admin. Refused unless `insecure_noauth` says it is
 * meant (a proxy in front sets the headers); said in the log either way.
 */
function checkNoauthExposure(config: Config, host: string, logger: Logger): void {
  if (config.auth !== 'noauth') return;
  if (isLoopbackHost(host)) {
    logger.warn(
      { listen: config.listen },
      'auth noauth: callers are trusted from their X-Project-Id / X-Roles headers',
    );
    return;
  }
  if (!config.insecure_noauth) {
    throw new ConfigError(
      `refusing --auth noauth on ${config.listen}, which other machines can reach: every caller there would be ` +
        'trusted from its own headers, and one without them is admin. Use --auth keystone, listen on 127.0.0.1, ' +
        'or pass --insecure-noauth (insecure_noauth: true) when a proxy in front sets those headers.',
    );
  }
  logger.warn(
    { listen: config.listen },
    'INSECURE: auth noauth on a non-loopback address (insecure_noauth): anyone who reaches it is trusted from their headers, and is admin without them',
  );
}

/**
 * What the store reports about the database, as log lines (one when an outage starts, one when it
 * ends, with its duration) and metrics; requests failing during the outage log at debug only.
 */
function databaseEvents(logger: Logger, metrics: Registry, recovered: () => void): StoreEvents {
  const errors = new Counter({
    name: 'octonet_database_errors_total',
    help: 'Database errors by kind (conflicts retried, outages answered 503 when retries did not help)',
    labelNames: ['kind'],
    registers: [metrics],
  });
  const outages = new Counter({
    name: 'octonet_database_outages_total',
    help: 'Times the database stopped answering (an outage ends with the next successful statement)',
    registers: [metrics],
  });
  const down = new Gauge({
    name: 'octonet_database_outage',
    help: '1 while the database is unavailable, else 0',
    registers: [metrics],
  });
  const outageSeconds = new Counter({
    name: 'octonet_database_outage_seconds_total',
    help: 'Seconds spent in database outages that have ended',
    registers: [metrics],
  });
  return {
    onError: (kind) => errors.inc({ kind }),
    onOutage(kind, error) {
      outages.inc();
      down.set(1);
      logger.error(
        { kind, err: (error as { message?: unknown } | null)?.message },
        'database unavailable: answering 503 until it returns',
      );
    },
    onRecovered(durationMs, kind) {
      down.set(0);
      outageSeconds.inc(durationMs / 1000);
      logger.warn({ kind, duration_ms: durationMs }, 'database available again');
      recovered();
    },
  };
}

/**
 * `extraDrivers` run after the configured ones (tests register contract-test drivers here).
 * `compactAfterStart`: compact the heap once the drivers have started, before the API opens
 * (`octonet serve`: gives back what the full OVN pass left committed; see serve-memory.ts); off for
 * the servers tests and the demo start in-process.
 */
export async function startServer(
  config: Config,
  logger: Logger = createLogger(config),
  extraDrivers: readonly MechanismDriver[] = [],
  options: { readonly compactAfterStart?: boolean } = {},
): Promise<RunningServer> {
  const { host, port } = parseListen(config.listen);
  checkNoauthExposure(config, host, logger);
  // Before the store opens: a policy file that does not parse stops the start with nothing to close.
  const authorizer = createPolicyAuthorizer(
    config.policy_file === undefined
      ? undefined
      : new PolicyFile(config.policy_file, logger.child({ component: 'policy' }), isKnownRule),
  );
  const metrics = new Registry();
  collectDefaultMetrics({ register: metrics, prefix: 'octonet_' });
  // The drivers exist only once the store is open: they hear of a recovery from then on.
  let databaseRecovered = () => {};
  const store = await openStore(config.database, {
    poolSize: config.database_pool_size,
    connectTimeoutMs: config.database_connect_timeout * 1000,
    idleTimeoutMs: config.database_idle_timeout * 1000,
    statementTimeoutMs: config.database_statement_timeout * 1000,
    retryBudgetMs: config.database_retry_budget * 1000,
    // Every connection of a restarting server breaks at once: the outage line says it once.
    onConnectionLost: (error) =>
      logger.debug({ err: error.message }, 'database dropped a connection; the pool replaces it'),
    events: databaseEvents(logger, metrics, () => databaseRecovered()),
  });
  let drivers: MechanismDriver[] = [];
  let services: Services;
  let app;
  try {
    drivers = [...(await createDrivers(config, logger, metrics, store)), ...extraDrivers];
    services = createServices({ store, config, authz: authorizer, logger, drivers });
    const manager = services.deps.drivers;
    databaseRecovered = () => manager.databaseRecovered();
    // Drivers connect (and the OVN driver compares the NB with the database) before the API opens.
    await services.deps.drivers.start(createDriverHost(services));
    if (options.compactAfterStart) compactHeapOnce(logger);
    app = await createApiServer({ config, services, authorizer, logger, metrics, version: octonetVersion() });
    await app.listen({ host, port });
  } catch (error) {
    await app?.close();
    await Promise.all(drivers.map(async (d) => d.stop?.()));
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
