/**
 * The quotas API (`quotas`, `quota_details`, `quota-check-limit` extensions): reading a project's
 * limits, their defaults and usage, listing the projects with their own limits, changing and
 * resetting them. Semantics are Neutron master's `QuotaSetsController` and `DbQuotaDriver`.
 *
 * Policy targets are always the caller's own project, as Neutron builds them, so `get_quota`
 * passes for a manager of any project. What a non-admin then reads is scoped to its own project,
 * as Neutron's database queries are: another project's limits read as the defaults.
 *
 * Enforcement on create lives in `engine.ts`; this module never blocks a create.
 */
import type { ResourceSpec } from '../attributes.js';
import { prepareRequestBody } from '../attributes.js';
import type { RequestContext } from '../context.js';
import { convertToInt } from '../converters.js';
import type { CoreDeps } from '../deps.js';
import { AdminRequired, HTTPBadRequest, QuotaMissingTenant, TenantQuotaNotFound } from '../errors.js';
import { isPlainObject, validateRange } from '../validators.js';
import { countUsage, deleteQuotas, loadAllQuotaOverrides, upsertQuotas } from '../../store/quotas.js';
import { QUOTA_RESOURCES, UNLIMITED, isQuotaResource, type QuotaResource } from './engine.js';

export type QuotaLimits = Record<QuotaResource, number>;
export interface QuotaUsage {
  readonly limit: number;
  readonly used: number;
  /** Reservations of requests in flight; octonet checks and writes in one transaction, so none. */
  readonly reserved: number;
}

/** Largest limit Neutron stores (`DB_INTEGER_MAX_VALUE`). */
const MAX_LIMIT = 2147483647;

/** The PUT body's attribute map: every quota resource, an integer from -1 up. */
const QUOTA_SPEC: ResourceSpec = {
  name: 'quota',
  collection: 'quotas',
  path: 'quotas',
  allowBulk: false,
  attributes: Object.fromEntries(
    QUOTA_RESOURCES.map((r) => [
      r,
      { post: false, put: true, convert: convertToInt, validate: validateRange(UNLIMITED, MAX_LIMIT), visible: true },
    ]),
  ),
};

export class QuotaSetService {
  constructor(private readonly deps: CoreDeps) {}

  /** `GET /quotas/project` (`/quotas/tenant`): whose quotas the caller would read. */
  callerProject(ctx: RequestContext): string {
    if (!ctx.projectId) throw QuotaMissingTenant({});
    return ctx.projectId;
  }

  /** Projects that have limits of their own, each with its effective limits. */
  async list(ctx: RequestContext): Promise<(QuotaLimits & { project_id: string; tenant_id: string })[]> {
    this.enforceGetQuota(ctx);
    const defaults = this.deps.quotas.defaultLimits();
    const result = [];
    for (const [projectId, overrides] of await loadAllQuotaOverrides(this.deps.store.db)) {
      if (!this.seesOverridesOf(ctx, projectId)) continue;
      result.push({ ...applyOverrides(defaults, overrides), project_id: projectId, tenant_id: projectId });
    }
    return result;
  }

  async show(ctx: RequestContext, projectId: string): Promise<QuotaLimits> {
    if (projectId !== ctx.projectId) this.enforceGetQuota(ctx);
    return this.effectiveLimits(ctx, projectId);
  }

  defaults(ctx: RequestContext, projectId: string): QuotaLimits {
    if (projectId !== ctx.projectId) this.enforceGetQuota(ctx);
    return this.deps.quotas.defaultLimits();
  }

  /** Limit, usage and reservations per resource; another project's need the admin role itself. */
  async details(ctx: RequestContext, projectId: string): Promise<Record<QuotaResource, QuotaUsage>> {
    if (projectId !== ctx.projectId && !ctx.isAdmin) {
      throw AdminRequired({ reason: 'Only admin is authorized to access quotas for another project' });
    }
    const db = this.deps.store.db;
    const limits = await this.deps.quotas.limits(db, projectId);
    const details = {} as Record<QuotaResource, QuotaUsage>;
    for (const resource of QUOTA_RESOURCES) {
      details[resource] = { limit: limits[resource], used: await countUsage(db, projectId, resource), reserved: 0 };
    }
    return details;
  }

  /**
   * Sets the limits named in `{"quota": {...}}` and returns the project's effective limits. As Zed
   * (`quota-check-limit`): a limit below what the project already uses is refused only when the body
   * says `"check_limit": true`; `force` is accepted and changes nothing. (Neutron 2024.2 checks by
   * default, `quota-check-limit-default`; a cloud moving from Zed keeps Zed's answers.)
   */
  async update(ctx: RequestContext, projectId: string, body: unknown): Promise<QuotaLimits> {
    this.deps.authz.enforceRule(ctx, 'update_quota', { project_id: ctx.projectId });
    // Legacy `prepare_request_body`: no body, or an empty one, is refused before anything else.
    if (!isPlainObject(body) || Object.keys(body).length === 0) throw HTTPBadRequest('Resource body required');
    let checkLimit = false;
    if (isPlainObject(body.quota)) {
      checkLimit = isTruthyFlag(body.quota.check_limit);
      delete body.quota.force;
      delete body.quota.check_limit;
    }
    const limits = prepareRequestBody(ctx, QUOTA_SPEC, body, false).items[0] as Partial<QuotaLimits>;
    await this.deps.store.transaction(async (tx) => {
      for (const [resource, limit] of Object.entries(limits) as [QuotaResource, number][]) {
        if (!checkLimit || limit === UNLIMITED) continue;
        const used = await countUsage(tx, projectId, resource);
        if (used > limit) {
          throw HTTPBadRequest(
            `Quota limit ${limit} for ${resource} must be greater than or equal to already used ${used}`,
          );
        }
      }
      await upsertQuotas(tx, projectId, Object.entries(limits) as [string, number][]);
    });
    return this.effectiveLimits(ctx, projectId);
  }

  /** Drops the project's own limits; it had none → TenantQuotaNotFound. */
  async delete(ctx: RequestContext, projectId: string): Promise<void> {
    this.deps.authz.enforceRule(ctx, 'delete_quota', { project_id: ctx.projectId });
    const deleted = await this.deps.store.transaction((tx) => deleteQuotas(tx, projectId));
    if (deleted === 0) throw TenantQuotaNotFound({ tenant_id: projectId });
  }

  private enforceGetQuota(ctx: RequestContext): void {
    this.deps.authz.enforceRule(ctx, 'get_quota', { project_id: ctx.projectId });
  }

  /** Neutron scopes a non-admin's reads of the quotas table to its own project. */
  private seesOverridesOf(ctx: RequestContext, projectId: string): boolean {
    return ctx.isAdmin || projectId === ctx.projectId;
  }

  private async effectiveLimits(ctx: RequestContext, projectId: string): Promise<QuotaLimits> {
    if (!this.seesOverridesOf(ctx, projectId)) return this.deps.quotas.defaultLimits();
    return this.deps.quotas.limits(this.deps.store.db, projectId);
  }
}

function applyOverrides(defaults: QuotaLimits, overrides: Map<string, number>): QuotaLimits {
  const limits = { ...defaults };
  for (const [resource, limit] of overrides) if (isQuotaResource(resource)) limits[resource] = limit;
  return limits;
}

/** Python truthiness of a JSON value, as Zed's `if check_limit:` reads the popped body value. */
function isTruthyFlag(value: unknown): boolean {
  if (typeof value === 'string') return value.length > 0;
  if (Array.isArray(value)) return value.length > 0;
  if (isPlainObject(value)) return Object.keys(value).length > 0;
  return Boolean(value);
}
