/**
 * The rows behind network IP availability: every network with each of its subnets and the number
 * of addresses allocated from that subnet. Totals (pool sizes) are computed by core from the
 * subnet's allocation pools; this module only reads.
 */
import { sql } from 'kysely';
import type { Db } from './database.js';

/** One network and one of its subnets; a network without subnets comes once, with null subnet fields. */
export interface NetworkSubnetUsageRow {
  network_id: string;
  network_name: string;
  project_id: string;
  subnet_id: string | null;
  subnet_name: string | null;
  cidr: string | null;
  ip_version: number | null;
  /** JSON `[{start, end}]`. */
  allocation_pools: string | null;
  used_ips: number;
}

/** The column each filter of the API compares with (Neutron's `SUPPORTED_FILTERS`). */
const FILTER_COLUMNS = {
  network_id: 'networks.id',
  network_name: 'networks.name',
  tenant_id: 'networks.project_id',
  project_id: 'networks.project_id',
  ip_version: 'subnets.ip_version',
} as const;

export type IpAvailabilityFilter = keyof typeof FILTER_COLUMNS;

/**
 * Networks matching every filter (a value list is an IN), ordered by network id and, within a
 * network, by subnet creation order. An `ip_version` filter keeps only matching subnets and drops
 * networks without any, as Neutron's inner filter on the outer join does.
 */
export async function loadNetworkSubnetUsage(
  db: Db,
  filters: Partial<Record<IpAvailabilityFilter, readonly (string | number)[]>>,
): Promise<NetworkSubnetUsageRow[]> {
  let query = db
    .selectFrom('networks')
    .leftJoin('subnets', 'subnets.network_id', 'networks.id')
    .select([
      'networks.id as network_id',
      'networks.name as network_name',
      'networks.project_id as project_id',
      'subnets.id as subnet_id',
      'subnets.name as subnet_name',
      'subnets.cidr as cidr',
      'subnets.ip_version as ip_version',
      'subnets.allocation_pools as allocation_pools',
      sql<number>`(select count(*) from ip_allocations a where a.subnet_id = subnets.id)`.as('used_ips'),
    ]);
  for (const [key, values] of Object.entries(filters) as [IpAvailabilityFilter, (string | number)[]][]) {
    if (values.length === 0) continue;
    query = query.where(sql.ref(FILTER_COLUMNS[key]), 'in', values);
  }
  const rows = await query.orderBy('networks.id').orderBy('subnets.position').execute();
  return rows.map((row) => ({ ...row, used_ips: Number(row.used_ips) }));
}
