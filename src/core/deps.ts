/**
 * What every core service is built from. One object so services do not grow long constructor
 * lists, and so a test can build a service with a real store and the real policy.
 */
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import type { DriverManager, ResourceContext } from '../drivers/contract.js';
import type { Store, Tx } from '../store/database.js';
import type { Authorizer } from './authorizer.js';
import type { SegmentConfig } from './networks/segments.js';
import type { QuotaEngine } from './quotas/engine.js';

export interface CoreDeps {
  readonly store: Store;
  readonly config: Config;
  readonly segments: SegmentConfig;
  readonly authz: Authorizer;
  readonly quotas: QuotaEngine;
  readonly drivers: DriverManager;
  readonly logger: Logger;
}

/**
 * Runs `fn` in a transaction, then the drivers' postcommit hooks for the contexts it returns.
 * Precommit hooks are the service's to call inside `fn`, once its rows are written.
 */
export async function writeTransaction<T>(
  deps: CoreDeps,
  fn: (tx: Tx) => Promise<{ result: T; events: ResourceContext[] }>,
): Promise<T> {
  const { result, events } = await deps.store.transaction(fn);
  for (const event of events) {
    await deps.drivers.postcommit(event, (driver, error) =>
      deps.logger.error({ err: error, driver, resource: event.resource, op: event.operation }, 'driver postcommit failed'),
    );
  }
  return result;
}
