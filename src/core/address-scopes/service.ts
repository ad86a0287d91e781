/**
 * Address scopes (`/v2.0/address-scopes`, `address_scope_db.py`): a project's (or a shared) routing
 * domain that subnet pools join. A shared scope stays shared; a scope with pools cannot go. Also
 * the check a subnet pool runs when it joins one (`_validate_address_scope_id`).
 */
import { randomUUID } from 'node:crypto';
import type { Db } from '../../store/database.js';
import { ADDRESS_SCOPES_TABLE, addressScopeVisibility, poolsInScope } from '../../store/address-scopes.js';
import type { Condition } from '../../store/list.js';
import { FlatResource } from '../flat-resource.js';
import { insertRow } from '../../store/rows.js';
import { toBool, type AddressScopeTable } from '../../store/schema.js';
import type { RequestContext } from '../context.js';
import { writeTransaction, type CoreDeps } from '../deps.js';
import { networksOverlap, parseNetwork } from '../ip.js';
import { stringField, type Body, type ResourceService, type View } from '../resource.js';
import { ADDRESS_SCOPE_SPEC } from './attributes.js';
import {
  AddressScopeInUse,
  AddressScopeNotFound,
  AddressScopePrefixConflict,
  AddressScopeUpdateError,
  IllegalSubnetPoolAssociationToAddressScope,
  IllegalSubnetPoolIpVersionAssociationToAddressScope,
  IllegalSubnetPoolUpdate,
  NetworkAddressScopeAffinityError,
} from './errors.js';

/** A subnet pool joining a scope: what the check needs to know of it. */
export interface PoolJoining {
  readonly id: string | null;
  readonly ipVersion: number;
  readonly prefixes: readonly string[];
}

export class AddressScopeService extends FlatResource<'address_scopes'> implements ResourceService {
  readonly spec = ADDRESS_SCOPE_SPEC;

  constructor(deps: CoreDeps) {
    super(deps, ADDRESS_SCOPES_TABLE);
  }

  protected visibility(ctx: RequestContext): Condition {
    return addressScopeVisibility(this.deps.store, ctx.projectId);
  }

  notFound(id: string | null): Error {
    return AddressScopeNotFound({ address_scope_id: id });
  }

  view(row: AddressScopeTable): View {
    return {
      id: row.id,
      name: row.name,
      tenant_id: row.project_id,
      shared: toBool(row.shared),
      ip_version: row.ip_version,
      project_id: row.project_id,
    };
  }

  protected canSee(ctx: RequestContext, view: View): boolean {
    const mine = ctx.isAdmin || view.project_id === ctx.projectId || view.shared === true;
    return mine && this.deps.authz.canRead(ctx, 'address_scope', view);
  }

  async create(ctx: RequestContext, items: Body[]): Promise<View[]> {
    const { deps } = this;
    return writeTransaction(deps, async (tx) => {
      for (const item of items) deps.authz.enforceCreate(ctx, this.spec, item);
      const views: View[] = [];
      for (const item of items) {
        const row = await insertRow(deps.store, tx, 'address_scopes', {
          id: randomUUID(),
          project_id: stringField(item, 'project_id'),
          name: stringField(item, 'name'),
          shared: item.shared === true,
          ip_version: item.ip_version as number,
        });
        views.push(this.view(row));
      }
      return { result: views, events: [] };
    });
  }

  async update(ctx: RequestContext, id: string, body: Body): Promise<View> {
    return this.updateWith(ctx, id, body, (row) => {
      if (toBool(row.shared) && body.shared === false) {
        throw AddressScopeUpdateError({ address_scope_id: id, reason: "Shared address scope can't be unshared" });
      }
      const patch: { name?: string; shared?: boolean } = {};
      if (typeof body.name === 'string') patch.name = body.name;
      if (typeof body.shared === 'boolean') patch.shared = body.shared;
      return patch;
    });
  }

  async delete(ctx: RequestContext, id: string): Promise<void> {
    await this.deleteWith(ctx, id, async (tx) => {
      if ((await poolsInScope(tx, id)).length > 0) throw AddressScopeInUse({ address_scope_id: id });
    });
  }

  /**
   * `_validate_address_scope_id`: the scope exists and the caller sees it (AddressScopeNotFound:
   * their own, a shared one, or any for an admin), it has the pool's IP version, re-scoping the
   * pool leaves no network with subnets in two scopes, and the pool's prefixes overlap no other
   * pool's in the scope.
   */
  async checkPoolJoins(db: Db, ctx: RequestContext, scopeId: string, pool: PoolJoining): Promise<void> {
    const scope = await this.getVisible(db, ctx, scopeId);
    if (!ctx.isAdmin && scope.project_id !== ctx.projectId && !toBool(scope.shared)) {
      throw IllegalSubnetPoolAssociationToAddressScope({ subnetpool_id: pool.id, address_scope_id: scopeId });
    }
    if (scope.ip_version !== pool.ipVersion) {
      throw IllegalSubnetPoolIpVersionAssociationToAddressScope({
        subnetpool_id: pool.id,
        address_scope_id: scopeId,
        ip_version: scope.ip_version,
      });
    }
    if (pool.id !== null) await checkRescopeAffinity(db, pool.id, pool.ipVersion);
    const others = (await poolsInScope(db, scopeId)).filter((p) => p.id !== pool.id).map((p) => p.id);
    if (others.length === 0) return;
    const taken = await db
      .selectFrom('subnetpool_prefixes')
      .select('cidr')
      .where('subnetpool_id', 'in', others)
      .execute();
    const mine = pool.prefixes.map((p) => parseNetwork(p)!);
    if (taken.some((t) => mine.some((m) => networksOverlap(parseNetwork(t.cidr)!, m)))) {
      throw AddressScopePrefixConflict({});
    }
  }

  /**
   * `_check_subnetpool_update_allowed`: a pool in a scope the caller neither owns nor administers
   * (a shared one) cannot be changed by them.
   */
  async checkPoolUpdateAllowed(db: Db, ctx: RequestContext, poolId: string, scopeId: string): Promise<void> {
    const scope = await this.getVisible(db, ctx, scopeId);
    if (ctx.isAdmin || scope.project_id === ctx.projectId) return;
    throw IllegalSubnetPoolUpdate({
      reason: `subnetpool ${poolId} cannot be updated when associated with shared address scope ${scopeId}`,
    });
  }

  /**
   * `_validate_network_subnetpools`, the address scope part: once a network has subnets of a family
   * in a scope, a new subnet of that family must come from a pool of the same scope.
   */
  async checkSubnetJoins(db: Db, networkId: string, ipVersion: number, poolScopeId: string | null): Promise<void> {
    const networkScope = await db
      .selectFrom('subnets')
      .innerJoin('subnetpools', 'subnetpools.id', 'subnets.subnetpool_id')
      .select('subnetpools.address_scope_id')
      .where('subnets.network_id', '=', networkId)
      .where('subnets.ip_version', '=', ipVersion)
      .where('subnetpools.address_scope_id', 'is not', null)
      .executeTakeFirst();
    const scope = networkScope?.address_scope_id ?? null;
    if (scope !== null && poolScopeId !== scope) throw NetworkAddressScopeAffinityError({});
  }
}

/**
 * `_check_subnetpool_address_scope_network_affinity`: re-scoping a pool must not leave a network
 * hosting its subnets with other subnets of that family (which would stay in another scope).
 */
async function checkRescopeAffinity(db: Db, poolId: string, ipVersion: number): Promise<void> {
  const stray = await db
    .selectFrom('subnets')
    .select('id')
    .where('ip_version', '=', ipVersion)
    .where('network_id', 'in', db.selectFrom('subnets').select('network_id').where('subnetpool_id', '=', poolId))
    .where((eb) => eb.or([eb('subnetpool_id', 'is', null), eb('subnetpool_id', '!=', poolId)]))
    .executeTakeFirst();
  if (stray) throw NetworkAddressScopeAffinityError({});
}
