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
 * Events of resources a write creates on the side, in its transaction (a project's `default`
 * security group, made with its first network or port): drivers hear of them with the write's own.
 * Keyed by transaction, so the events of an attempt the store rolled back and ran again are dropped.
 */
const sideEvents = new WeakMap<Tx, ResourceContext[]>();

/** Adds `event` to what drivers hear when the write running in `tx` commits (`writeTransaction`). */
export function emitInTransaction(tx: Tx, event: ResourceContext): void {
  const events = sideEvents.get(tx);
  if (events) events.push(event);
  else sideEvents.set(tx, [event]);
}

/**
 * The driver contract, kept by its owner: runs `fn` in a transaction; `fn` writes and returns the
 * contexts of every resource it wrote. Inside the same transaction, after the writes, each driver's
 * precommit runs for each context (drivers in order): a throw rolls back everything `fn` wrote,
 * rows and allocations alike (IPs, MACs and segments are rows in this transaction). The store may
 * run the callback again on a conflict, so precommit runs again with it. After commit, each
 * driver's postcommit runs; a failure there is logged and left to the driver's repair.
 */
export async function writeTransaction<T>(
  deps: CoreDeps,
  fn: (tx: Tx) => Promise<{ result: T; events: ResourceContext[] }>,
): Promise<T> {
  const { result, events } = await deps.store.transaction(async (tx) => {
    deps.quotas.deferLockedChecks(tx);
    const written = await fn(tx);
    // Quota locks late: held for a recount and the commit, not for the whole write.
    await deps.quotas.confirmDeferred(tx);
    // Resources made on the side come first: the write's own may refer to them.
    const all = [...(sideEvents.get(tx) ?? []), ...written.events];
    for (const event of all) deps.drivers.precommit(event);
    return { result: written.result, events: all };
  });
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
 * through the events `create` returns (precommit in the transaction, postcommit after).
 */
export async function bulkCreate<Lookup>(
  deps: CoreDeps,
  /** Null counts nothing: octonet's own resources (Neutron's internal create_port). */
  quota: QuotaResource | null,
  items: Body[],
  steps: {
    authorize(tx: Tx, item: Body): Promise<Lookup>;
    /** Writes one item; returns its view and what drivers hear of it. */
    create(tx: Tx, item: Body, lookup: Lookup): Promise<{ view: View; event: ResourceContext }>;
  },
): Promise<View[]> {
  return writeTransaction(deps, async (tx) => {
    if (quota) {
      for (const [project, count] of countByProject(items)) await deps.quotas.enforce(tx, project, { [quota]: count });
    }
    const lookups: Lookup[] = [];
    for (const item of items) lookups.push(await steps.authorize(tx, item));
    const views: View[] = [];
    const events: ResourceContext[] = [];
    for (const [i, item] of items.entries()) {
      const { view, event } = await steps.create(tx, item, lookups[i]!);
      views.push(view);
      events.push(event);
    }
    return { result: views, events };
  });
}
