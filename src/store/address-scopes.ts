/** Address scopes (`address_scopes`) and the subnet pools that belong to one. */
import { sql } from 'kysely';
import type { Db, Store } from './database.js';
import type { Condition, ListTable } from './list.js';

export const ADDRESS_SCOPES_TABLE: ListTable & { readonly table: 'address_scopes' } = {
  table: 'address_scopes',
  columns: {
    id: { column: 'address_scopes.id', type: 'text' },
    name: { column: 'address_scopes.name', type: 'text' },
    tenant_id: { column: 'address_scopes.project_id', type: 'text' },
    project_id: { column: 'address_scopes.project_id', type: 'text' },
    shared: { column: 'address_scopes.shared', type: 'bool' },
    ip_version: { column: 'address_scopes.ip_version', type: 'int' },
  },
};

/** Scopes a project sees: its own and the shared ones. */
export function addressScopeVisibility(store: Store, projectId: string | null): Condition {
  return sql`(address_scopes.project_id = ${projectId ?? ''} or address_scopes.shared = ${store.bool(true)})`;
}

/** The subnet pools in a scope, with their prefixes (for the overlap check). */
export async function poolsInScope(db: Db, scopeId: string): Promise<{ id: string; project_id: string }[]> {
  return db.selectFrom('subnetpools').select(['id', 'project_id']).where('address_scope_id', '=', scopeId).execute();
}

/** Subnets with the address scope of their pool (null without a pool or a scope); callers filter. */
export function selectScopedSubnets(db: Db) {
  return db
    .selectFrom('subnets')
    .leftJoin('subnetpools', 'subnetpools.id', 'subnets.subnetpool_id')
    .select([
      'subnets.id as id',
      'subnets.network_id as network_id',
      'subnets.ip_version as ip_version',
      'subnets.cidr as cidr',
      'subnetpools.address_scope_id as address_scope_id',
    ]);
}
