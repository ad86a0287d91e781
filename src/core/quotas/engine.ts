/**
 * Quota limits and their enforcement: a project's limit for a resource is its own override or the
 * configured default; usage is the number of rows the project owns. Creates call `enforce` inside
 * their transaction, after validating the body and before policy, as Neutron's hooks do.
 *
 * Under concurrent writers (PostgreSQL) the count and the insert must not interleave between two
 * requests of one project: a per-project, per-resource lock held until commit serialises them. An
 * unlimited resource (-1) takes no lock and counts nothing.
 *
 * The lock is taken late where it can be. In a transaction run by `writeTransaction`
 * (`deferLockedChecks`), `enforce` counts without the lock (so an over-quota request fails where
 * Neutron's does, before any other check of the write) and `confirmDeferred`, after the rows are
 * written and just before commit, takes the locks and counts again, the new rows included. The
 * lock is then held only for that count and the commit, not across the whole write (IP and MAC
 * allocation, inserts, round trips): one project's concurrent creates, on one replica or several,
 * no longer queue behind each other for the length of a write. The recount sees every row committed
 * before the lock was granted (READ COMMITTED takes a snapshot per statement), so the limit holds
 * exactly. Elsewhere (`enforce` in a transaction nobody confirms) the lock is taken at once.
 */
import type { QuotaDefaults } from '../../config/config.js';
import type { Db, Store, Tx } from '../../store/database.js';
import { countUsage, loadQuotaOverrides } from '../../store/quotas.js';
import { OverQuota, pythonRepr } from '../errors.js';

/**
 * Resources with quotas, in the order Neutron master with ML2/OVN and the OVN L3 plugin lists them:
 * its registration order (the core resources, then extensions by file name, `extraroute.py`
 * before `l3.py`). `trunk` is left out because octonet serves no trunks.
 */
export const QUOTA_RESOURCES = [
  'network',
  'subnet',
  'subnetpool',
  'port',
  'router_route',
  'router',
  'floatingip',
  'rbac_policy',
  'security_group',
  'security_group_rule',
] as const;
export type QuotaResource = (typeof QUOTA_RESOURCES)[number];

export const UNLIMITED = -1;

export function isQuotaResource(name: string): name is QuotaResource {
  return (QUOTA_RESOURCES as readonly string[]).includes(name);
}

/**
 * Resources whose late recount is exact: a create that asks for n of them inserts exactly n rows
 * of the project's. Security groups and their rules are not: a project's first group brings the
 * `default` group and its rules along, uncounted as in Neutron, so their lock stays early.
 */
const LATE_LOCK_RESOURCES: ReadonlySet<QuotaResource> = new Set([
  'network',
  'subnet',
  'subnetpool',
  'port',
  'router',
  'floatingip',
  'rbac_policy',
]);

/** A limited resource counted early in a transaction, to count again under its lock at the end. */
interface DeferredCheck {
  projectId: string;
  resource: QuotaResource;
  limit: number;
}

export class QuotaEngine {
  /** Per transaction that confirms its checks at the end: the checks to confirm, by lock key. */
  private readonly deferred = new WeakMap<Tx, Map<string, DeferredCheck>>();

  constructor(
    private readonly store: Store,
    private readonly defaults: QuotaDefaults,
  ) {}

  /**
   * Makes `enforce` in `tx` count without locking and leave the locked count to `confirmDeferred`,
   * which the caller promises to run after the transaction's writes. Only where writers run
   * concurrently: elsewhere (SQLite) writers are serialised already and one count is exact.
   */
  deferLockedChecks(tx: Tx): void {
    if (this.store.dialect.capabilities.concurrentWriters) this.deferred.set(tx, new Map());
  }

  /**
   * The deferred checks of `tx`: each lock taken (in key order, so two transactions never wait
   * on each other in a cycle), then usage counted with this transaction's own new rows in it.
   */
  async confirmDeferred(tx: Tx): Promise<void> {
    const checks = this.deferred.get(tx);
    if (!checks) return;
    this.deferred.delete(tx);
    const overs: string[] = [];
    for (const [key, check] of [...checks].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      await this.store.lockKey(tx, key);
      if ((await countUsage(tx, check.projectId, check.resource)) > check.limit) overs.push(check.resource);
    }
    if (overs.length) throw OverQuota({ overs: pythonRepr([...new Set(overs)].sort()) });
  }

  /** The configured defaults, in `QUOTA_RESOURCES` order. */
  defaultLimits(): Record<QuotaResource, number> {
    return Object.fromEntries(QUOTA_RESOURCES.map((r) => [r, this.defaults[r]])) as Record<QuotaResource, number>;
  }

  /** The effective limits of a project: its overrides on top of the defaults. */
  async limits(db: Db, projectId: string): Promise<Record<QuotaResource, number>> {
    const limits = this.defaultLimits();
    for (const [resource, limit] of await loadQuotaOverrides(db, projectId)) {
      if (isQuotaResource(resource)) limits[resource] = limit;
    }
    return limits;
  }

  async usage(db: Db, projectId: string, resource: QuotaResource): Promise<number> {
    return countUsage(db, projectId, resource);
  }

  /**
   * Refuses the request with OverQuota when adding `deltas` would exceed any limit of the project.
   * Every exceeded resource is named, sorted, as Neutron does. `deltas` are rows this transaction
   * goes on to insert (the deferred recount finds them among the project's rows).
   */
  async enforce(tx: Tx, projectId: string, deltas: Partial<Record<QuotaResource, number>>): Promise<void> {
    const wanted = Object.entries(deltas).filter(([, n]) => (n ?? 0) > 0) as [QuotaResource, number][];
    if (wanted.length === 0) return;
    const limits = await this.limits(tx, projectId);
    const deferred = this.deferred.get(tx);
    const overs: string[] = [];
    for (const [resource, delta] of wanted) {
      const limit = limits[resource];
      if (limit === UNLIMITED) continue;
      const key = `quota:${projectId}:${resource}`;
      if (deferred && LATE_LOCK_RESOURCES.has(resource)) deferred.set(key, { projectId, resource, limit });
      else await this.store.lockKey(tx, key);
      const used = await countUsage(tx, projectId, resource);
      if (used + delta > limit) overs.push(resource);
    }
    if (overs.length) throw OverQuota({ overs: pythonRepr(overs.sort()) });
  }

  /** `limit_check`: a count that is not usage (a router's routes) against the project's limit. */
  async limitCheck(db: Db, projectId: string, resource: QuotaResource, value: number): Promise<void> {
    const limit = (await this.limits(db, projectId))[resource];
    if (limit !== UNLIMITED && value > limit) throw OverQuota({ overs: pythonRepr([resource]) });
  }
}
