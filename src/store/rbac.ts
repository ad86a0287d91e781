/**
 * RBAC entries: on networks (`network_rbacs`, the rows behind `shared`, `router:external` and
 * sharing with one project) and on QoS policies (`qos_policy_rbacs`), listed, read, re-targeted
 * and deleted through `/v2.0/rbac-policies`.
 */
import { sql } from 'kysely';
import type { Db, Store, Tx } from './database.js';
import { listRows, type Condition, type FilterEnv, type ListTable } from './list.js';
import type { ListQuery } from '../core/list-query.js';
import type { NetworkRbacTable } from './schema.js';

/** The object types octonet serves RBAC on, each with its table (Neutron's `get_type_class_map`). */
export const RBAC_OBJECT_TABLES = { network: 'network_rbacs', qos_policy: 'qos_policy_rbacs' } as const;
export type RbacObjectType = keyof typeof RBAC_OBJECT_TABLES;
type RbacTableName = (typeof RBAC_OBJECT_TABLES)[RbacObjectType];

function rbacListTable(objectType: RbacObjectType): ListTable {
  const table = RBAC_OBJECT_TABLES[objectType];
  return {
    table,
    columns: {
      id: { column: `${table}.id`, type: 'text' },
      tenant_id: { column: `${table}.project_id`, type: 'text' },
      project_id: { column: `${table}.project_id`, type: 'text' },
      object_id: { column: `${table}.object_id`, type: 'text' },
      target_tenant: { column: `${table}.target_project`, type: 'text' },
      action: { column: `${table}.action`, type: 'text' },
    },
    customFilters: {
      object_type: (values) => (values.includes(objectType) ? sql`1 = 1` : sql`1 = 0`),
    },
  };
}

/** Policies a project sees: the ones it owns (admins see all). */
export function rbacVisibility(objectType: RbacObjectType, projectId: string | null): Condition {
  return sql`${sql.ref(`${RBAC_OBJECT_TABLES[objectType]}.project_id`)} = ${projectId ?? ''}`;
}

export interface RbacRow extends NetworkRbacTable {
  readonly object_type: RbacObjectType;
}

/**
 * Every type's policies, networks' first (Neutron concatenates per type, each sorted and paged on
 * its own). A marker pages from its row within its own type; the types after it start over.
 */
export async function listRbacRows(
  env: FilterEnv,
  query: ListQuery,
  scope: (objectType: RbacObjectType) => Condition,
): Promise<{ rows: RbacRow[]; markerFound: boolean }> {
  const types = Object.keys(RBAC_OBJECT_TABLES) as RbacObjectType[];
  const out: RbacRow[] = [];
  let markerSeen = query.marker === undefined || query.limit === undefined;
  for (const objectType of types) {
    const page = await listRows<NetworkRbacTable>(
      env,
      rbacListTable(objectType),
      markerSeen ? { ...query, marker: undefined } : query,
      scope(objectType),
    );
    if (!page.markerFound) continue;
    markerSeen = true;
    out.push(...page.rows.map((row) => ({ ...row, object_type: objectType })));
  }
  return { rows: query.limit === undefined ? out : out.slice(0, query.limit), markerFound: markerSeen };
}

/** The policy of any type with this id. */
export async function getRbacRow(db: Db, id: string): Promise<RbacRow | undefined> {
  for (const [objectType, table] of Object.entries(RBAC_OBJECT_TABLES) as [RbacObjectType, RbacTableName][]) {
    const row = await db.selectFrom(table).selectAll().where('id', '=', id).executeTakeFirst();
    if (row) return { ...row, object_type: objectType };
  }
  return undefined;
}

export async function retargetRbac(tx: Tx, objectType: RbacObjectType, id: string, target: string): Promise<void> {
  await tx.updateTable(RBAC_OBJECT_TABLES[objectType]).set({ target_project: target }).where('id', '=', id).execute();
}

export async function deleteRbacRow(tx: Tx, objectType: RbacObjectType, id: string): Promise<void> {
  await tx.deleteFrom(RBAC_OBJECT_TABLES[objectType]).where('id', '=', id).execute();
}

/** A QoS policy's entries (any action, any target). */
export async function qosRbacEntries(db: Db, policyId: string): Promise<NetworkRbacTable[]> {
  return db.selectFrom('qos_policy_rbacs').selectAll().where('object_id', '=', policyId).execute();
}

/**
 * Adds a QoS policy entry; the policy's `shared` column follows its wildcard entry (it is what
 * lists filter `shared` on and what an import writes).
 */
export async function insertQosRbac(store: Store, tx: Tx, row: NetworkRbacTable): Promise<void> {
  await tx.insertInto('qos_policy_rbacs').values(row).execute();
  await syncQosShared(store, tx, row.object_id);
}

export async function syncQosShared(store: Store, tx: Tx, policyId: string): Promise<void> {
  const wildcard = await tx
    .selectFrom('qos_policy_rbacs')
    .select('id')
    .where('object_id', '=', policyId)
    .where('target_project', '=', '*')
    .where('action', '=', 'access_as_shared')
    .executeTakeFirst();
  await tx
    .updateTable('qos_policies')
    .set({ shared: store.bool(wildcard !== undefined) })
    .where('id', '=', policyId)
    .execute();
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
