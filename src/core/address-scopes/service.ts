/**
 * Address scopes (`/v2.0/address-scopes`, `address_scope_db.py`): a project's (or a shared) routing
 * domain that subnet pools join. A shared scope stays shared; a scope with pools cannot go. Also
 * the check a subnet pool runs when it joins one (`_validate_address_scope_id`).
 */
import { randomUUID } from 'node:crypto';
import type { Db } from '../../store/database.js';
import { ADDRESS_SCOPES_TABLE, addressScopeVisibility, poolsInScope } from '../../store/address-scopes.js';
import { listRows, TRUE } from '../../store/list.js';
import { insertRow, updateRow } from '../../store/rows.js';
import { toBool, type AddressScopeTable } from '../../store/schema.js';
import type { RequestContext } from '../context.js';
import { writeTransaction, type CoreDeps } from '../deps.js';
import { networksOverlap, parseNetwork } from '../ip.js';
import type { ListQuery } from '../list-query.js';
import { policyTarget, stringField, type Body, type ResourceService, type View } from '../resource.js';
import { ADDRESS_SCOPE_SPEC } from './attributes.js';
import {
  AddressScopeInUse,
  AddressScopeNotFound,
  AddressScopePrefixConflict,
  AddressScopeUpdateError,
  IllegalSubnetPoolAssociationToAddressScope,
  IllegalSubnetPoolIpVersionAssociationToAddressScope,
} from './errors.js';

/** A subnet pool joining a scope: what the check needs to know of it. */
export interface PoolJoining {
  readonly id: string | null;
  readonly ipVersion: number;
  readonly prefixes: readonly string[];
}

export class AddressScopeService implements ResourceService {
  readonly spec = ADDRESS_SCOPE_SPEC;

  constructor(private readonly deps: CoreDeps) {}

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

  private canSee(ctx: RequestContext, view: View): boolean {
    const mine = ctx.isAdmin || view.project_id === ctx.projectId || view.shared === true;
    return mine && this.deps.authz.canRead(ctx, 'address_scope', view);
  }

  async list(ctx: RequestContext, query: ListQuery): Promise<View[]> {
    const { store } = this.deps;
    const scope = ctx.isAdmin ? TRUE : addressScopeVisibility(store, ctx.projectId);
    const { rows, markerFound } = await listRows<AddressScopeTable>(
      { store, projectId: ctx.projectId },
      ADDRESS_SCOPES_TABLE,
      query,
      scope,
    );
    if (!markerFound) throw this.notFound(query.marker ?? null);
    return rows.map((r) => this.view(r)).filter((v) => this.canSee(ctx, v));
  }

  /** The scope if the caller may see it (own, shared, or any for an admin), else AddressScopeNotFound. */
  async getVisible(db: Db, ctx: RequestContext, id: string): Promise<AddressScopeTable> {
    const row = await db.selectFrom('address_scopes').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row || !this.canSee(ctx, this.view(row))) throw this.notFound(id);
    return row;
  }

  async show(ctx: RequestContext, id: string): Promise<View> {
    return this.view(await this.getVisible(this.deps.store.db, ctx, id));
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
    const { deps } = this;
    return writeTransaction(deps, async (tx) => {
      const row = await this.getVisible(tx, ctx, id);
      deps.authz.enforceUpdate(ctx, this.spec, policyTarget(this.view(row), body), body);
      if (toBool(row.shared) && body.shared === false) {
        throw AddressScopeUpdateError({ address_scope_id: id, reason: "Shared address scope can't be unshared" });
      }
      const patch: { name?: string; shared?: boolean } = {};
      if (typeof body.name === 'string') patch.name = body.name;
      if (typeof body.shared === 'boolean') patch.shared = body.shared;
      if (Object.keys(patch).length) await updateRow(deps.store, tx, 'address_scopes', id, patch);
      return { result: this.view((await this.getVisible(tx, ctx, id))!), events: [] };
    });
  }

  async delete(ctx: RequestContext, id: string): Promise<void> {
    const { deps } = this;
    await writeTransaction(deps, async (tx) => {
      const row = await this.getVisible(tx, ctx, id);
      deps.authz.enforceDelete(ctx, this.spec, this.view(row));
      if ((await poolsInScope(tx, id)).length > 0) throw AddressScopeInUse({ address_scope_id: id });
      await tx.deleteFrom('address_scopes').where('id', '=', id).execute();
      return { result: undefined, events: [] };
    });
  }

  /**
   * `_validate_address_scope_id`: the scope exists and the caller sees it (AddressScopeNotFound),
   * the caller owns it or is an admin (a shared scope of another project cannot be joined), it
   * has the pool's IP version, and the pool's prefixes overlap no other pool's in the scope.
   */
  async checkPoolJoins(db: Db, ctx: RequestContext, scopeId: string, pool: PoolJoining): Promise<void> {
    const scope = await this.getVisible(db, ctx, scopeId);
    if (!ctx.isAdmin && scope.project_id !== ctx.projectId) {
      throw IllegalSubnetPoolAssociationToAddressScope({ subnetpool_id: pool.id, address_scope_id: scopeId });
    }
    if (scope.ip_version !== pool.ipVersion) {
      throw IllegalSubnetPoolIpVersionAssociationToAddressScope({
        subnetpool_id: pool.id,
        address_scope_id: scopeId,
        ip_version: scope.ip_version,
      });
    }
    const others = (await poolsInScope(db, scopeId)).filter((p) => p.id !== pool.id).map((p) => p.id);
    if (others.length === 0) return;
    const taken = await db.selectFrom('subnetpool_prefixes').select('cidr').where('subnetpool_id', 'in', others).execute();
    const mine = pool.prefixes.map((p) => parseNetwork(p)!);
    if (taken.some((t) => mine.some((m) => networksOverlap(parseNetwork(t.cidr)!, m)))) {
      throw AddressScopePrefixConflict({});
    }
  }
}
