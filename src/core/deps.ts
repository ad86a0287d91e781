/**
 * What every core service is built from. One object so services do not grow long constructor
 * lists, and so a test can build a service with a real store and the real policy.
 */
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import type { DriverManager, DriverResource, ResourceContext } from '../drivers/contract.js';
import type { Store, Tx } from '../store/database.js';
import type { Authorizer } from './authorizer.js';
import type { SegmentConfig } from './networks/segments.js';
import type { RequestContext } from './context.js';
import type { QuotaEngine, QuotaResource } from './quotas/engine.js';
import { countByProject, type Body, type View } from './resource.js';

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
      deps.logger.error(
        { err: error, driver, resource: event.resource, op: event.operation },
        'driver postcommit failed',
      ),
    );
  }
  return result;
}

/**
 * Neutron's native bulk create, for one item or many: the quota of every project first, then each
 * item's policy check (`authorize` looks up what the check needs and hands it on), then the rows,
 * all in one transaction, so one failing item creates nothing. Drivers hear of each new resource
 * after commit.
 */
export async function bulkCreate<Lookup>(
  deps: CoreDeps,
  ctx: RequestContext,
  /** Without `quota`, nothing is counted: octonet's own resources (Neutron's internal create_port). */
  kind: { resource: DriverResource; quota?: QuotaResource },
  items: Body[],
  steps: {
    authorize(tx: Tx, item: Body): Promise<Lookup>;
    create(tx: Tx, item: Body, lookup: Lookup): Promise<View>;
  },
): Promise<View[]> {
  return writeTransaction(deps, async (tx) => {
    if (kind.quota) {
      for (const [project, count] of countByProject(items))
        await deps.quotas.enforce(tx, project, { [kind.quota]: count });
    }
    const lookups: Lookup[] = [];
    for (const item of items) lookups.push(await steps.authorize(tx, item));
    const views: View[] = [];
    for (const [i, item] of items.entries()) views.push(await steps.create(tx, item, lookups[i]!));
    return {
      result: views,
      events: views.map((current) => ({
        resource: kind.resource,
        operation: 'create' as const,
        request: ctx,
        current,
      })),
    };
  });
}
