/**
 * Quota limits and their enforcement: a project's limit for a resource is its own override or the
 * configured default; usage is the number of rows the project owns. Creates call `enforce` inside
 * their transaction, after validating the body and before policy, as Neutron's hooks do.
 *
 * Under concurrent writers (PostgreSQL) the count and the insert must not interleave between two
 * requests of one project, so `enforce` holds a per-project, per-resource lock until commit. An
 * unlimited resource (-1) takes no lock and counts nothing.
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

export class QuotaEngine {
  constructor(
    private readonly store: Store,
    private readonly defaults: QuotaDefaults,
  ) {}

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
   * Every exceeded resource is named, sorted, as Neutron does.
   */
  async enforce(tx: Tx, projectId: string, deltas: Partial<Record<QuotaResource, number>>): Promise<void> {
    const wanted = Object.entries(deltas).filter(([, n]) => (n ?? 0) > 0) as [QuotaResource, number][];
    if (wanted.length === 0) return;
    const limits = await this.limits(tx, projectId);
    const overs: string[] = [];
    for (const [resource, delta] of wanted) {
      const limit = limits[resource];
      if (limit === UNLIMITED) continue;
      await this.store.lockKey(tx, `quota:${projectId}:${resource}`);
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
