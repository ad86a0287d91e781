/** Subnet pools (`subnetpools`, `subnetpool_prefixes`) and the subnets allocated from them. */
import { sql } from 'kysely';
import type { Db, Store, Tx } from './database.js';
import { listRows, type Condition, type FilterEnv, type ListTable } from './list.js';
import type { ListQuery } from '../core/list-query.js';
import type { SubnetPoolTable } from './schema.js';
import { loadTags } from './tags.js';

export interface SubnetPoolRecord {
  readonly row: SubnetPoolTable;
  readonly prefixes: string[];
  readonly tags: string[];
}

export const SUBNETPOOLS_TABLE: ListTable = {
  table: 'subnetpools',
  tagType: 'subnetpool',
  columns: {
    id: { column: 'subnetpools.id', type: 'text' },
    name: { column: 'subnetpools.name', type: 'text' },
    tenant_id: { column: 'subnetpools.project_id', type: 'text' },
    project_id: { column: 'subnetpools.project_id', type: 'text' },
    ip_version: { column: 'subnetpools.ip_version', type: 'int' },
    default_prefixlen: { column: 'subnetpools.default_prefixlen', type: 'int' },
    min_prefixlen: { column: 'subnetpools.min_prefixlen', type: 'int' },
    max_prefixlen: { column: 'subnetpools.max_prefixlen', type: 'int' },
    default_quota: { column: 'subnetpools.default_quota', type: 'int', nullable: true },
    is_default: { column: 'subnetpools.is_default', type: 'bool' },
    shared: { column: 'subnetpools.shared', type: 'bool' },
    address_scope_id: { column: 'subnetpools.address_scope_id', type: 'text', nullable: true },
    description: { column: 'subnetpools.description', type: 'text' },
    revision_number: { column: 'subnetpools.revision_number', type: 'int' },
    created_at: { column: 'subnetpools.created_at', type: 'text' },
    updated_at: { column: 'subnetpools.updated_at', type: 'text' },
  },
};

/** Pools a project sees: its own and the shared ones. */
export function subnetPoolVisibility(store: Store, projectId: string | null): Condition {
  return sql`(subnetpools.project_id = ${projectId ?? ''} or subnetpools.shared = ${store.bool(true)})`;
}

export async function loadSubnetPoolRecords(db: Db, rows: readonly SubnetPoolTable[]): Promise<SubnetPoolRecord[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const prefixes = new Map<string, string[]>();
  for (const p of await db.selectFrom('subnetpool_prefixes').selectAll().where('subnetpool_id', 'in', ids).execute()) {
    prefixes.set(p.subnetpool_id, [...(prefixes.get(p.subnetpool_id) ?? []), p.cidr]);
  }
  const tags = await loadTags(db, ids);
  return rows.map((row) => ({ row, prefixes: prefixes.get(row.id) ?? [], tags: tags.get(row.id) ?? [] }));
}

export async function listSubnetPoolRecords(
  env: FilterEnv,
  query: ListQuery,
  scope: Condition,
): Promise<{ records: SubnetPoolRecord[]; markerFound: boolean }> {
  const { rows, markerFound } = await listRows<SubnetPoolTable>(env, SUBNETPOOLS_TABLE, query, scope);
  return { records: await loadSubnetPoolRecords(env.store.db, rows), markerFound };
}

export async function getSubnetPoolRecord(db: Db, id: string): Promise<SubnetPoolRecord | undefined> {
  const row = await db.selectFrom('subnetpools').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? (await loadSubnetPoolRecords(db, [row]))[0] : undefined;
}

export async function replacePrefixes(tx: Tx, poolId: string, prefixes: readonly string[]): Promise<void> {
  await tx.deleteFrom('subnetpool_prefixes').where('subnetpool_id', '=', poolId).execute();
  if (prefixes.length === 0) return;
  await tx
    .insertInto('subnetpool_prefixes')
    .values(prefixes.map((cidr) => ({ subnetpool_id: poolId, cidr })))
    .execute();
}

/** The CIDRs of the subnets allocated from a pool. */
export async function allocatedFromPool(db: Db, poolId: string): Promise<string[]> {
  const rows = await db.selectFrom('subnets').select('cidr').where('subnetpool_id', '=', poolId).execute();
  return rows.map((r) => r.cidr);
}
