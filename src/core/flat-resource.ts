/**
 * What resources that are one row each, with no children to load (address scopes, BGP peers),
 * share: a list within the caller's visibility, paged, then judged by policy; a row the caller may
 * see, or the resource's NotFound; and the update and delete steps around their own checks.
 */
import type { Db, Tx } from '../store/database.js';
import { updateRow, type RowPatch } from '../store/rows.js';
import type { ResourceSpec } from './attributes.js';
import { writeTransaction } from './deps.js';
import { policyTarget, type Body } from './resource.js';
import { listRows, TRUE, type Condition, type ListTable } from '../store/list.js';
import type { Schema } from '../store/schema.js';
import type { RequestContext } from './context.js';
import type { CoreDeps } from './deps.js';
import type { ListQuery } from './list-query.js';
import type { View } from './resource.js';

type FlatTable = 'address_scopes' | 'bgp_peers';

export abstract class FlatResource<T extends FlatTable> {
  constructor(
    protected readonly deps: CoreDeps,
    private readonly listTable: ListTable & { readonly table: T },
  ) {}

  abstract readonly spec: ResourceSpec;
  abstract notFound(id: string | null): Error;
  abstract view(row: Schema[T]): View;
  /** What a non-admin's list may hold at most (policy then judges each row). */
  protected abstract visibility(ctx: RequestContext): Condition;
  protected abstract canSee(ctx: RequestContext, view: View): boolean;

  async list(ctx: RequestContext, query: ListQuery): Promise<View[]> {
    const { store } = this.deps;
    const { rows, markerFound } = await listRows<Schema[T]>(
      { store, projectId: ctx.projectId },
      this.listTable,
      query,
      ctx.isAdmin ? TRUE : this.visibility(ctx),
    );
    if (!markerFound) throw this.notFound(query.marker ?? null);
    return rows.map((r) => this.view(r)).filter((v) => this.canSee(ctx, v));
  }

  /** The row if the caller may see it, else the resource's NotFound. */
  async getVisible(db: Db, ctx: RequestContext, id: string): Promise<Schema[T]> {
    const row = (await db
      .selectFrom(this.listTable.table as 'address_scopes')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst()) as Schema[T] | undefined;
    if (!row || !this.canSee(ctx, this.view(row))) throw this.notFound(id);
    return row;
  }

  async show(ctx: RequestContext, id: string): Promise<View> {
    return this.view(await this.getVisible(this.deps.store.db, ctx, id));
  }

  /** Policy, then `change` (which may refuse) gives the columns to write; answers the new view. */
  protected async updateWith(
    ctx: RequestContext,
    id: string,
    body: Body,
    change: (row: Schema[T]) => RowPatch<T>,
  ): Promise<View> {
    const { deps } = this;
    return writeTransaction(deps, async (tx) => {
      const row = await this.getVisible(tx, ctx, id);
      deps.authz.enforceUpdate(ctx, this.spec, policyTarget(this.view(row), body), body);
      const patch = change(row);
      if (Object.keys(patch).length) await updateRow(deps.store, tx, this.listTable.table, id, patch);
      return { result: this.view(await this.getVisible(tx, ctx, id)), events: [] };
    });
  }

  /** Policy, then `before` (which may refuse or clear what refers to the row), then the row goes. */
  protected async deleteWith(
    ctx: RequestContext,
    id: string,
    before: (tx: Tx) => Promise<void> = async () => {},
  ): Promise<void> {
    const { deps } = this;
    await writeTransaction(deps, async (tx) => {
      deps.authz.enforceDelete(ctx, this.spec, this.view(await this.getVisible(tx, ctx, id)));
      await before(tx);
      await tx
        .deleteFrom(this.listTable.table as 'address_scopes')
        .where('id', '=', id)
        .execute();
      return { result: undefined, events: [] };
    });
  }
}
