/**
 * Floating IPs (`floatingips`): the address (held by a `network:floatingip` port on the external
 * network) and its association with a fixed address of an internal port, through a router.
 */
import { sql } from 'kysely';
import type { Db, Store, Tx } from './database.js';
import { listRows, type Condition, type FilterEnv, type ListTable } from './list.js';
import type { ListQuery } from '../core/list-query.js';
import type { FloatingIpTable } from './schema.js';
import { lockRow } from './rows.js';
import { loadTags } from './tags.js';

export const FLOATINGIP_OWNER = 'network:floatingip';

export interface FloatingIpRecord {
  readonly row: FloatingIpTable;
  readonly tags: string[];
}

export const FLOATINGIPS_TABLE: ListTable = {
  table: 'floatingips',
  tagType: 'floatingip',
  columns: {
    id: { column: 'floatingips.id', type: 'text' },
    floating_ip_address: { column: 'floatingips.floating_ip_address', type: 'text' },
    floating_network_id: { column: 'floatingips.floating_network_id', type: 'text' },
    router_id: { column: 'floatingips.router_id', type: 'text', nullable: true },
    port_id: { column: 'floatingips.fixed_port_id', type: 'text', nullable: true },
    fixed_ip_address: { column: 'floatingips.fixed_ip_address', type: 'text', nullable: true },
    tenant_id: { column: 'floatingips.project_id', type: 'text' },
    project_id: { column: 'floatingips.project_id', type: 'text' },
    status: { column: 'floatingips.status', type: 'text' },
    description: { column: 'floatingips.description', type: 'text' },
    dns_name: { column: 'floatingips.dns_name', type: 'text' },
    dns_domain: { column: 'floatingips.dns_domain', type: 'text' },
    revision_number: { column: 'floatingips.revision_number', type: 'int' },
    created_at: { column: 'floatingips.created_at', type: 'text' },
    updated_at: { column: 'floatingips.updated_at', type: 'text' },
  },
};

export async function loadFloatingIpRecords(db: Db, rows: readonly FloatingIpTable[]): Promise<FloatingIpRecord[]> {
  const tags = await loadTags(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((row) => ({ row, tags: tags.get(row.id) ?? [] }));
}

export async function listFloatingIpRecords(
  env: FilterEnv,
  query: ListQuery,
  scope: Condition,
): Promise<{ records: FloatingIpRecord[]; markerFound: boolean }> {
  const { rows, markerFound } = await listRows<FloatingIpTable>(env, FLOATINGIPS_TABLE, query, scope);
  return { records: await loadFloatingIpRecords(env.store.db, rows), markerFound };
}

/** Floating IPs a project sees: its own (admins see all; policy decides the rest). */
export function floatingIpVisibility(projectId: string | null): Condition {
  return sql`floatingips.project_id = ${projectId ?? ''}`;
}

export async function getFloatingIpRow(db: Db, id: string): Promise<FloatingIpTable | undefined> {
  return db.selectFrom('floatingips').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The floating IP row, locked until commit where the database has row locks (associations serialise on it). */
export async function lockFloatingIpRow(store: Store, tx: Tx, id: string): Promise<FloatingIpTable | undefined> {
  return lockRow(store, tx, 'floatingips', id);
}

export async function floatingIpsWhere(
  db: Db,
  where: Partial<Pick<FloatingIpTable, 'router_id' | 'fixed_port_id' | 'floating_network_id'>>,
): Promise<FloatingIpTable[]> {
  let q = db.selectFrom('floatingips').selectAll();
  for (const [key, value] of Object.entries(where)) q = q.where(key as 'router_id', '=', value as string);
  return q.orderBy('id').execute();
}

/** The floating IP already on this fixed address of the port, on this external network. */
export async function floatingIpOnFixedIp(
  db: Db,
  networkId: string,
  portId: string,
  fixedIp: string,
): Promise<FloatingIpTable | undefined> {
  return db
    .selectFrom('floatingips')
    .selectAll()
    .where('floating_network_id', '=', networkId)
    .where('fixed_port_id', '=', portId)
    .where('fixed_ip_address', '=', fixedIp)
    .executeTakeFirst();
}

/** Floating IPs on an external network that no port uses (deleted with the network). */
export async function disassociatedOnNetwork(db: Db, networkId: string): Promise<FloatingIpTable[]> {
  return db
    .selectFrom('floatingips')
    .selectAll()
    .where('floating_network_id', '=', networkId)
    .where('fixed_port_id', 'is', null)
    .execute();
}
