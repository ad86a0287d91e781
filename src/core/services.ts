/**
 * Builds every core service from one set of dependencies. The wiring lives here, in one place,
 * so a reader sees which service uses which.
 */
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import { DriverManager, type MechanismDriver } from '../drivers/contract.js';
import type { Store } from '../store/database.js';
import type { Authorizer } from './authorizer.js';
import type { CoreDeps } from './deps.js';
import { NetworkService } from './networks/service.js';
import { parseSegmentConfig } from './networks/segments.js';
import { QuotaEngine } from './quotas/engine.js';
import type { ResourceService } from './resource.js';
import { TagService } from './tags/service.js';

export interface Services {
  readonly deps: CoreDeps;
  readonly networks: NetworkService;
  readonly quotas: QuotaEngine;
  readonly tags: TagService;
  /** Every collection served with the generic routes, in registration order. */
  readonly resources: readonly ResourceService[];
}

export function createServices(options: {
  store: Store;
  config: Config;
  authz: Authorizer;
  logger: Logger;
  drivers?: readonly MechanismDriver[];
}): Services {
  const deps: CoreDeps = {
    store: options.store,
    config: options.config,
    segments: parseSegmentConfig(options.config.network),
    authz: options.authz,
    quotas: new QuotaEngine(options.store, options.config.quotas),
    drivers: new DriverManager(options.drivers),
    logger: options.logger,
  };
  const networks = new NetworkService(deps);
  const tags = new TagService(deps, [{ path: 'networks', table: 'networks', service: networks }]);
  return { deps, networks, quotas: deps.quotas, tags, resources: [networks] };
}
