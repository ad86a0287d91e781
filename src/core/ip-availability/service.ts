/**
 * Network IP availability (`network-ip-availability` extension): per network and per subnet, how
 * many addresses the allocation pools hold and how many are allocated. Semantics are Neutron's
 * `IpAvailabilityMixin`:
 * - a subnet's total is the sum of its pool sizes, or the whole CIDR (network and broadcast
 *   addresses included) when it has no pool; a network's total is the sum over its subnets;
 * - `used_ips` counts every allocation in the subnet, inside a pool or not;
 * - only admins and services may read it (`get_network_ip_availability`): others list nothing,
 *   and a show of an existing network is a plain 404.
 *
 * IPv6 totals exceed 2^53, so totals are bigints; the API layer prints them as exact integers.
 */
import type { ResourceSpec } from '../attributes.js';
import type { Authorizer } from '../authorizer.js';
import type { RequestContext } from '../context.js';
import { HTTPNotFound, NetworkNotFound } from '../errors.js';
import { networkSize, parseIp, parseNetwork } from '../ip.js';
import type { ListQuery } from '../list-query.js';
import type { Store } from '../../store/database.js';
import {
  loadNetworkSubnetUsage,
  type IpAvailabilityFilter,
  type NetworkSubnetUsageRow,
} from '../../store/ip-availability.js';

export interface SubnetIpAvailability {
  subnet_id: string;
  ip_version: number;
  cidr: string;
  subnet_name: string;
  used_ips: number;
  total_ips: bigint;
}

export interface NetworkIpAvailability {
  network_id: string;
  network_name: string;
  tenant_id: string;
  project_id: string;
  subnet_ip_availability: SubnetIpAvailability[];
  used_ips: number;
  total_ips: bigint;
}

const SHOWN = { post: false, put: false, visible: true } as const;
const FILTER = { ...SHOWN, filter: true } as const;

/** neutron-lib's attribute map plus `project_id`; `ip_version` only filters. */
export const IP_AVAILABILITY_SPEC: ResourceSpec = {
  name: 'network_ip_availability',
  collection: 'network_ip_availabilities',
  path: 'network-ip-availabilities',
  allowBulk: false,
  attributes: {
    network_id: { ...FILTER, sort: true },
    network_name: FILTER,
    tenant_id: FILTER,
    project_id: FILTER,
    total_ips: SHOWN,
    used_ips: SHOWN,
    subnet_ip_availability: SHOWN,
    ip_version: { post: false, put: false, visible: false, filter: true },
  },
};

/** Addresses a subnet offers: its pools' sizes, or its whole CIDR when it has no pool. */
export function subnetTotalIps(cidr: string, allocationPoolsJson: string | null): bigint {
  const pools = JSON.parse(allocationPoolsJson ?? '[]') as { start: string; end: string }[];
  if (pools.length === 0) {
    const network = parseNetwork(cidr);
    return network ? networkSize(network) : 0n;
  }
  let total = 0n;
  for (const pool of pools) {
    const first = parseIp(pool.start);
    const last = parseIp(pool.end);
    if (first && last && last.value >= first.value) total += last.value - first.value + 1n;
  }
  return total;
}

/** Groups the per-subnet rows (ordered by network) into one availability per network. */
function toAvailabilities(rows: readonly NetworkSubnetUsageRow[]): NetworkIpAvailability[] {
  const byNetwork = new Map<string, NetworkIpAvailability>();
  for (const row of rows) {
    let network = byNetwork.get(row.network_id);
    if (!network) {
      network = {
        network_id: row.network_id,
        network_name: row.network_name,
        tenant_id: row.project_id,
        project_id: row.project_id,
        subnet_ip_availability: [],
        used_ips: 0,
        total_ips: 0n,
      };
      byNetwork.set(row.network_id, network);
    }
    if (row.subnet_id === null) continue;
    const subnet: SubnetIpAvailability = {
      subnet_id: row.subnet_id,
      ip_version: row.ip_version!,
      cidr: row.cidr!,
      subnet_name: row.subnet_name!,
      used_ips: row.used_ips,
      total_ips: subnetTotalIps(row.cidr!, row.allocation_pools),
    };
    network.subnet_ip_availability.push(subnet);
    network.used_ips += subnet.used_ips;
    network.total_ips += subnet.total_ips;
  }
  return [...byNetwork.values()];
}

/**
 * Neutron pages this collection in memory (its plugin has no native sorting or pagination): sort
 * by the requested keys, then `network_id`; a marker that is not in the list yields nothing.
 */
function page(items: NetworkIpAvailability[], query: ListQuery): NetworkIpAvailability[] {
  const sorts = [...query.sorts, { key: 'network_id', ascending: true }];
  items.sort((a, b) => {
    for (const { key, ascending } of sorts) {
      // Only `network_id` sorts (the query parser refuses the rest), so both are text already.
      const x = String(a[key as keyof NetworkIpAvailability]);
      const y = String(b[key as keyof NetworkIpAvailability]);
      if (x !== y) return (x < y ? -1 : 1) * (ascending ? 1 : -1);
    }
    return 0;
  });
  if (query.limit === undefined) return items;
  let start = query.pageReverse ? items.length : 0;
  if (query.marker !== undefined) {
    start = items.findIndex((item) => item.network_id === query.marker);
    if (start < 0) return [];
  }
  if (query.pageReverse) return items.slice(Math.max(start - query.limit, 0), start);
  if (query.marker !== undefined) start += 1;
  return items.slice(start, start + query.limit);
}

export class IpAvailabilityService {
  constructor(
    private readonly store: Store,
    private readonly authz: Authorizer,
  ) {}

  async list(ctx: RequestContext, query: ListQuery): Promise<NetworkIpAvailability[]> {
    const filters = storeFilters(query.filters);
    if (!filters) return [];
    const items = toAvailabilities(await loadNetworkSubnetUsage(this.store.db, filters));
    return page(
      items.filter((item) => this.canRead(ctx, item)),
      query,
    );
  }

  async show(ctx: RequestContext, networkId: string): Promise<NetworkIpAvailability> {
    const [item] = toAvailabilities(await loadNetworkSubnetUsage(this.store.db, { network_id: [networkId] }));
    if (!item) throw NetworkNotFound({ net_id: networkId });
    if (!this.canRead(ctx, item)) throw HTTPNotFound();
    return item;
  }

  private canRead(ctx: RequestContext, item: NetworkIpAvailability): boolean {
    return this.authz.canRead(ctx, 'network_ip_availability', { ...item });
  }
}

/**
 * The list filters as the store takes them. `ip_version` has no converter in Neutron (a
 * non-number reaches the database and fails there); here it simply matches nothing. Returns null
 * when a filter can match nothing at all.
 */
function storeFilters(
  filters: ListQuery['filters'],
): Partial<Record<IpAvailabilityFilter, readonly (string | number)[]>> | null {
  const result: Partial<Record<IpAvailabilityFilter, readonly (string | number)[]>> = {};
  for (const [key, values] of Object.entries(filters) as [IpAvailabilityFilter, readonly unknown[]][]) {
    if (key !== 'ip_version') {
      result[key] = values.map(String);
      continue;
    }
    const versions = values.filter((v) => /^\s*\d+\s*$/.test(String(v))).map(Number);
    if (values.length > 0 && versions.length === 0) return null;
    result.ip_version = versions;
  }
  return result;
}
