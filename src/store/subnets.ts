/** Subnets and the IP allocations made from them. */
import { sql } from 'kysely';
import type { Db, Tx } from './database.js';
import { inList, or, type Condition, type ListTable } from './list.js';
import type { SubnetTable } from './schema.js';

export const SUBNETS_TABLE: ListTable = {
  table: 'subnets',
  tagType: 'subnet',
  columns: {
    id: { column: 'subnets.id', type: 'text' },
    name: { column: 'subnets.name', type: 'text' },
    ip_version: { column: 'subnets.ip_version', type: 'int' },
    network_id: { column: 'subnets.network_id', type: 'text' },
    cidr: { column: 'subnets.cidr', type: 'text' },
    gateway_ip: { column: 'subnets.gateway_ip', type: 'text' },
    tenant_id: { column: 'subnets.project_id', type: 'text' },
    project_id: { column: 'subnets.project_id', type: 'text' },
    enable_dhcp: { column: 'subnets.enable_dhcp', type: 'bool' },
    ipv6_ra_mode: { column: 'subnets.ipv6_ra_mode', type: 'text' },
    ipv6_address_mode: { column: 'subnets.ipv6_address_mode', type: 'text' },
    description: { column: 'subnets.description', type: 'text' },
    revision_number: { column: 'subnets.revision_number', type: 'int' },
  },
  customFilters: {
    subnetpool_id: (values) => {
      const ids = values.filter((v) => v !== null && v !== '');
      const conditions = ids.length ? [inList('subnets.subnetpool_id', ids)] : [];
      if (ids.length < values.length) conditions.push(sql`subnets.subnetpool_id is null`);
      return or(conditions);
    },
    'router:external': (values) => {
      const external = sql`exists (select 1 from external_networks e where e.network_id = subnets.network_id)`;
      const wanted = new Set(values.map((v) => v === true));
      if (wanted.size === 2) return sql`1 = 1`;
      return wanted.has(true) ? external : sql`not ${external}`;
    },
    shared: (values, env) => {
      const targets = env.projectId ? ['*', env.projectId] : ['*'];
      const shared = sql`exists (select 1 from network_rbacs r where r.object_id = subnets.network_id and r.action = 'access_as_shared' and ${inList('r.target_project', targets)})`;
      const wanted = new Set(values.map((v) => v === true));
      if (wanted.size === 2) return sql`1 = 1`;
      return wanted.has(true) ? shared : sql`not ${shared}`;
    },
  },
};

/** Subnets a non-admin may see: its own, on its networks, or on networks shared with it or external. */
export function subnetVisibility(projectId: string | null): Condition {
  const targets = projectId ? ['*', projectId] : ['*'];
  // Shared networks' subnets only: an external network's are not shown to other projects (Zed,
  // and the tempest this project runs; master's subnet-external-network shows them).
  const viaRbac = sql`exists (select 1 from network_rbacs r where r.object_id = subnets.network_id and r.action = 'access_as_shared' and ${inList('r.target_project', targets)})`;
  if (!projectId) return viaRbac;
  return or([
    sql`subnets.project_id = ${projectId}`,
    sql`exists (select 1 from networks n where n.id = subnets.network_id and n.project_id = ${projectId})`,
    viaRbac,
  ]);
}

export async function getSubnetRow(db: Db, id: string): Promise<SubnetTable | undefined> {
  return db.selectFrom('subnets').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function subnetsOfNetwork(db: Db, networkId: string): Promise<SubnetTable[]> {
  return db.selectFrom('subnets').selectAll().where('network_id', '=', networkId).orderBy('position').execute();
}

/** The next position among the network's subnets (their order in the network's `subnets`). */
export async function nextSubnetPosition(tx: Tx, networkId: string): Promise<number> {
  const row = await tx
    .selectFrom('subnets')
    .select(sql<number | null>`max(position)`.as('max'))
    .where('network_id', '=', networkId)
    .executeTakeFirst();
  return Number(row?.max ?? -1) + 1;
}

export async function bumpNetworkRevision(tx: Tx, networkId: string, now: string): Promise<void> {
  await sql`update networks set revision_number = revision_number + 1, updated_at = ${now} where id = ${networkId}`.execute(
    tx,
  );
}

/** Allocations on a subnet with their port's owner (what decides whether a delete may release them). */
export async function allocationsOnSubnet(
  db: Db,
  subnetId: string,
): Promise<{ port_id: string; ip_address: string; device_owner: string }[]> {
  return db
    .selectFrom('ip_allocations')
    .innerJoin('ports', 'ports.id', 'ip_allocations.port_id')
    .select(['ip_allocations.port_id', 'ip_allocations.ip_address', 'ports.device_owner'])
    .where('ip_allocations.subnet_id', '=', subnetId)
    .execute();
}

export async function deleteAllocations(tx: Tx, subnetId: string, portIds: readonly string[]): Promise<void> {
  if (portIds.length === 0) return;
  await tx.deleteFrom('ip_allocations').where('subnet_id', '=', subnetId).where('port_id', 'in', portIds).execute();
}

export async function countAllocatedOnSubnet(db: Db, subnetId: string): Promise<number> {
  const row = await db
    .selectFrom('ip_allocations')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('subnet_id', '=', subnetId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Which of `ips` are allocated on the network (one query for IPAM's batch of random candidates). */
export async function takenAddresses(db: Db, networkId: string, ips: readonly string[]): Promise<Set<string>> {
  if (ips.length === 0) return new Set();
  const rows = await db
    .selectFrom('ip_allocations')
    .select('ip_address')
    .where('network_id', '=', networkId)
    .where('ip_address', 'in', ips)
    .execute();
  return new Set(rows.map((r) => r.ip_address));
}

export async function allocatedOnSubnet(db: Db, subnetId: string): Promise<Set<string>> {
  const rows = await db.selectFrom('ip_allocations').select('ip_address').where('subnet_id', '=', subnetId).execute();
  return new Set(rows.map((r) => r.ip_address));
}
