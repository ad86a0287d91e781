/**
 * RBAC policies on networks (`network_rbacs`): the rows behind `shared`, `router:external` and
 * sharing with one project, listed, read, re-targeted and deleted through `/v2.0/rbac-policies`.
 */
import { sql } from 'kysely';
import type { Db, Tx } from './database.js';
import { listRows, type Condition, type FilterEnv, type ListTable } from './list.js';
import type { ListQuery } from '../core/list-query.js';
import type { NetworkRbacTable } from './schema.js';

export const RBAC_TABLE: ListTable = {
  table: 'network_rbacs',
  columns: {
    id: { column: 'network_rbacs.id', type: 'text' },
    tenant_id: { column: 'network_rbacs.project_id', type: 'text' },
    project_id: { column: 'network_rbacs.project_id', type: 'text' },
    object_id: { column: 'network_rbacs.object_id', type: 'text' },
    target_tenant: { column: 'network_rbacs.target_project', type: 'text' },
    action: { column: 'network_rbacs.action', type: 'text' },
  },
  customFilters: {
    // Networks are the only object type octonet serves.
    object_type: (values) => (values.includes('network') ? sql`1 = 1` : sql`1 = 0`),
  },
};

/** Policies a project sees: the ones it owns (admins see all). */
export function rbacVisibility(projectId: string | null): Condition {
  return sql`network_rbacs.project_id = ${projectId ?? ''}`;
}

export async function listRbacRows(
  env: FilterEnv,
  query: ListQuery,
  scope: Condition,
): Promise<{ rows: NetworkRbacTable[]; markerFound: boolean }> {
  return listRows<NetworkRbacTable>(env, RBAC_TABLE, query, scope);
}

export async function getRbacRow(db: Db, id: string): Promise<NetworkRbacTable | undefined> {
  return db.selectFrom('network_rbacs').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function retargetRbac(tx: Tx, id: string, targetProject: string): Promise<void> {
  await tx.updateTable('network_rbacs').set({ target_project: targetProject }).where('id', '=', id).execute();
}

export async function deleteRbacRow(tx: Tx, id: string): Promise<void> {
  await tx.deleteFrom('network_rbacs').where('id', '=', id).execute();
}

/** Whether the network still has an entry of this action (any target). */
export async function hasRbacAction(tx: Tx, networkId: string, action: string): Promise<boolean> {
  const row = await tx
    .selectFrom('network_rbacs')
    .select('id')
    .where('object_id', '=', networkId)
    .where('action', '=', action)
    .executeTakeFirst();
  return row !== undefined;
}

/** Whether a project has ports of its own (not Neutron's `network:*` ones) on the network. */
export async function projectHasPorts(tx: Tx, networkId: string, projectId: string): Promise<boolean> {
  const row = await tx
    .selectFrom('ports')
    .select('id')
    .where('network_id', '=', networkId)
    .where('project_id', '=', projectId)
    .where('device_owner', 'not like', 'network:%')
    .executeTakeFirst();
  return row !== undefined;
}

/** The projects of the routers whose gateway port is on the network (what an external policy gives access to). */
export async function projectsWithGatewayOn(tx: Tx, networkId: string): Promise<string[]> {
  const rows = await tx
    .selectFrom('routers')
    .innerJoin('ports', 'ports.id', 'routers.gw_port_id')
    .select('routers.project_id')
    .distinct()
    .where('ports.network_id', '=', networkId)
    .execute();
  return rows.map((r) => r.project_id);
}

/** Whether the network is the default external network (`is_default`). */
export async function isDefaultExternal(tx: Tx, networkId: string): Promise<boolean> {
  const row = await tx
    .selectFrom('external_networks')
    .select('is_default')
    .where('network_id', '=', networkId)
    .executeTakeFirst();
  return row !== undefined && Boolean(row.is_default);
}
