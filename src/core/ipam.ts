/**
 * IP address management as Neutron's reference IPAM does it: default gateways and allocation
 * pools of a subnet, pool validation, which addresses a port may hold, EUI-64 addresses for
 * auto-address IPv6 subnets, and the choice of a free address.
 *
 * Pure logic over numbers; whether an address is taken is asked through a callback so the store's
 * unique index stays the last word (a concurrent writer that took the same address makes the
 * transaction run again).
 */
import {
  InvalidAllocationPool,
  OutOfBoundsAllocationPool,
  OverlappingAllocationPools,
  GatewayConflictWithAllocationPools,
  pythonRepr,
} from './errors.js';
import {
  broadcastAddress,
  containsAddress,
  eui64Address,
  formatIp,
  formatNetwork,
  networkAddress,
  parseIp,
  parseNetwork,
  type IpNetwork,
  type IpVersion,
} from './ip.js';
import { decodeStringList } from '../store/rows.js';

export interface IpRange {
  readonly first: bigint;
  readonly last: bigint;
}

/** A subnet as IPAM sees it. */
export interface IpamSubnet {
  readonly id: string;
  readonly networkId: string;
  readonly version: IpVersion;
  readonly cidr: IpNetwork;
  readonly gateway: bigint | null;
  readonly pools: readonly IpRange[];
  readonly ipv6AddressMode: string | null;
  readonly ipv6RaMode: string | null;
  readonly serviceTypes: readonly string[];
}

export interface PoolText {
  start: string;
  end: string;
}

/** Owners whose ports are router interfaces: they hold gateway and subnet-router anycast addresses. */
export const ROUTER_INTERFACE_OWNERS = [
  'network:router_interface',
  'network:ha_router_replicated_interface',
  'network:router_interface_distributed',
];
/** Owners that take the gateway address (ROUTER_PORT_OWNERS in neutron-lib). */
export const ROUTER_PORT_OWNERS = [...ROUTER_INTERFACE_OWNERS, 'network:router_gateway'];

/** SLAAC and DHCPv6-stateless subnets give every port an EUI-64 address (`is_auto_address_subnet`). */
export function isAutoAddressSubnet(s: Pick<IpamSubnet, 'version' | 'ipv6AddressMode' | 'ipv6RaMode'>): boolean {
  const modes = ['slaac', 'dhcpv6-stateless'];
  return s.version === 6 && (modes.includes(s.ipv6AddressMode ?? '') || modes.includes(s.ipv6RaMode ?? ''));
}

export function formatRange(version: IpVersion, range: IpRange): PoolText {
  return { start: formatIp(version, range.first), end: formatIp(version, range.last) };
}

/** netaddr's `str(IPRange)`: `10.0.0.2-10.0.0.9`. */
function rangeText(version: IpVersion, range: IpRange): string {
  return `${formatIp(version, range.first)}-${formatIp(version, range.last)}`;
}

/** The gateway a subnet gets when the request does not say: network+1 for IPv4, the network address for IPv6. */
export function defaultGateway(cidr: IpNetwork): bigint {
  return cidr.version === 6 ? networkAddress(cidr) : networkAddress(cidr) + 1n;
}

/** The usable range of a subnet for pools (`validate_allocation_pools` bounds). */
function usableBounds(cidr: IpNetwork): IpRange {
  const first = networkAddress(cidr);
  const last = broadcastAddress(cidr);
  if (cidr.version === 4) return cidr.prefixLength <= 30 ? { first: first + 1n, last: last - 1n } : { first, last };
  return { first: first + 1n, last };
}

/** `generate_pools`: the whole usable range around the gateway. */
export function generatePools(cidr: IpNetwork, gateway: bigint | null): IpRange[] {
  const first = networkAddress(cidr);
  const last = broadcastAddress(cidr);
  if (first === last) return [{ first, last }];
  const bounds = usableBounds(cidr);
  if (gateway === null || gateway < bounds.first || gateway > bounds.last) return [bounds];
  const pools: IpRange[] = [];
  if (gateway > bounds.first) pools.push({ first: bounds.first, last: gateway - 1n });
  if (gateway < bounds.last) pools.push({ first: gateway + 1n, last: bounds.last });
  return pools;
}

/** Parses and checks requested pools (`pools_to_ip_range`, `validate_allocation_pools`). */
export function validatePools(requested: readonly PoolText[], cidr: IpNetwork): IpRange[] {
  const cidrText = formatNetwork(cidr);
  const ranges: IpRange[] = [];
  for (const pool of requested) {
    const start = parseIp(pool.start);
    const end = parseIp(pool.end);
    if (!start || !end || start.version !== end.version || start.value > end.value) {
      throw InvalidAllocationPool({ pool: pythonRepr(pool) });
    }
    const range = { first: start.value, last: end.value };
    if (start.version !== cidr.version) throw InvalidAllocationPool({ pool: rangeText(start.version, range) });
    const bounds = usableBounds(cidr);
    if (range.first < bounds.first || range.last > bounds.last) {
      throw OutOfBoundsAllocationPool({ pool: rangeText(cidr.version, range), subnet_cidr: cidrText });
    }
    ranges.push(range);
  }
  for (let i = 0; i < ranges.length; i++) {
    for (let j = i + 1; j < ranges.length; j++) {
      const a = ranges[i]!;
      const b = ranges[j]!;
      if (a.first <= b.last && b.first <= a.last) {
        throw OverlappingAllocationPools({
          pool_1: rangeText(cidr.version, a),
          pool_2: rangeText(cidr.version, b),
          subnet_cidr: cidrText,
        });
      }
    }
  }
  return ranges;
}

export function checkGatewayOutOfPools(version: IpVersion, gateway: bigint, pools: readonly IpRange[]): void {
  for (const pool of pools) {
    if (gateway >= pool.first && gateway <= pool.last) {
      throw GatewayConflictWithAllocationPools({
        ip_address: formatIp(version, gateway),
        pool: rangeText(version, pool),
      });
    }
  }
}

/** `check_gateway_invalid_in_subnet`: an IPv4 gateway may not be the network or broadcast address. */
export function gatewayInvalidInSubnet(cidr: IpNetwork, gateway: bigint): boolean {
  return (
    cidr.version === 4 &&
    containsAddress(cidr, 4, gateway) &&
    (gateway === networkAddress(cidr) || gateway === broadcastAddress(cidr))
  );
}

/**
 * `check_subnet_ip`: whether a port may hold `ip` on the subnet. IPv4 never the network or
 * broadcast address; IPv6's subnet-router anycast (network) address only for router ports.
 */
export function isValidPortAddress(cidr: IpNetwork, ip: bigint, deviceOwner: string): boolean {
  if (!containsAddress(cidr, cidr.version, ip)) return false;
  if (cidr.version === 4) return ip !== networkAddress(cidr) && ip !== broadcastAddress(cidr);
  return ROUTER_PORT_OWNERS.includes(deviceOwner) || deviceOwner === '' || ip !== networkAddress(cidr);
}

export function eui64For(subnet: IpamSubnet, mac: string): bigint {
  return eui64Address(subnet.cidr, mac);
}

/** How many addresses the pools hold. */
export function poolSize(subnet: IpamSubnet): bigint {
  return subnet.pools.reduce((n, p) => n + (p.last - p.first + 1n), 0n);
}

/** Owners that Neutron gives the lowest free address (the DHCP and OVN metadata ports). */
export const LOWEST_ADDRESS_OWNERS = ['network:dhcp', 'network:distributed'];

/** Neutron picks at random among the first this-many free addresses of the pools, not sequentially. */
const FREE_WINDOW = 1000;
/**
 * Random candidates asked about in one round trip (almost always one is free when the window is
 * not dense). One question for the lot rather than one per guess: each round trip lengthens the
 * transaction, and under concurrent replicas time in a transaction is what writes share.
 */
const PROBE_BATCH = 16;

function randomBigInt(below: bigint): bigint {
  if (below <= BigInt(Number.MAX_SAFE_INTEGER)) return BigInt(Math.floor(Math.random() * Number(below)));
  let value = 0n;
  for (let bits = 0n; bits < 128n; bits += 32n) value = (value << 32n) | BigInt(Math.floor(Math.random() * 2 ** 32));
  return value % below;
}

function nthPoolAddress(subnet: IpamSubnet, n: bigint): bigint {
  for (const pool of subnet.pools) {
    const size = pool.last - pool.first + 1n;
    if (n < size) return pool.first + n;
    n -= size;
  }
  throw new Error('pool index out of range');
}

/** How IPAM asks the database about addresses (the unique index stays the last word). */
export interface AddressQueries {
  /** Which of `ips` are taken, in one question. */
  takenAmong(ips: readonly string[]): Promise<ReadonlySet<string>>;
  /** Every address taken on the subnet (the fallback on a dense subnet). */
  allocated(): Promise<ReadonlySet<string>>;
  /** How many addresses the subnet has allocated (where to look past them). */
  allocatedCount?(): Promise<number>;
}

const pickRandom = <T>(items: readonly T[]): T | null =>
  items.length ? items[Math.floor(Math.random() * items.length)]! : null;

/**
 * A free address of the subnet's pools, or null when they are full. Random candidates first, one
 * question for a batch of them: among the first FREE_WINDOW addresses, then, on a subnet that
 * dense, among the FREE_WINDOW addresses after its `allocatedCount()` lowest ones, where its first
 * free addresses almost always are (Neutron's window slides as the pools fill from the bottom).
 * Only when those all hit is the allocated set read and the choice made among the first free
 * addresses, as Neutron's IPAM does. `lowest` takes the first free address instead.
 */
export async function chooseFreeAddress(
  subnet: IpamSubnet,
  queries: AddressQueries,
  lowest = false,
): Promise<string | null> {
  const size = poolSize(subnet);
  if (size === 0n) return null;
  const gateway = subnet.gateway === null ? null : formatIp(subnet.version, subnet.gateway);
  const probing = !lowest && size > BigInt(PROBE_BATCH * 4);
  const span = size < BigInt(FREE_WINDOW) ? size : BigInt(FREE_WINDOW);
  const probe = async (base: bigint): Promise<string | null> => {
    const candidates = new Set<string>();
    for (let i = 0; i < PROBE_BATCH; i++) {
      candidates.add(formatIp(subnet.version, nthPoolAddress(subnet, base + randomBigInt(span))));
    }
    if (gateway !== null) candidates.delete(gateway);
    const asked = [...candidates];
    const taken = await queries.takenAmong(asked);
    return pickRandom(asked.filter((ip) => !taken.has(ip)));
  };
  if (probing) {
    const early = await probe(0n);
    if (early !== null) return early;
    if (queries.allocatedCount && size > span * 2n) {
      const count = BigInt(await queries.allocatedCount());
      const base = count + span <= size ? count : size - span;
      const later = base >= span ? await probe(base) : null;
      if (later !== null) return later;
    }
  }
  const taken = await queries.allocated();
  const free: string[] = [];
  const window = lowest ? 1 : FREE_WINDOW;
  for (const pool of subnet.pools) {
    for (let ip = pool.first; ip <= pool.last && free.length < window; ip++) {
      const text = formatIp(subnet.version, ip);
      if (!taken.has(text) && text !== gateway) free.push(text);
    }
    if (free.length >= window) break;
  }
  return pickRandom(free);
}

/** A subnet row as IPAM sees it. */
export function toIpamSubnet(row: {
  id: string;
  network_id: string;
  ip_version: number;
  cidr: string;
  gateway_ip: string | null;
  allocation_pools: string;
  ipv6_address_mode: string | null;
  ipv6_ra_mode: string | null;
  service_types: string;
}): IpamSubnet {
  const cidr = parseNetwork(row.cidr)!;
  const pools = (JSON.parse(row.allocation_pools) as PoolText[]).map((p) => ({
    first: parseIp(p.start)!.value,
    last: parseIp(p.end)!.value,
  }));
  return {
    id: row.id,
    networkId: row.network_id,
    version: row.ip_version as IpVersion,
    cidr,
    gateway: row.gateway_ip === null ? null : parseIp(row.gateway_ip)!.value,
    pools,
    ipv6AddressMode: row.ipv6_address_mode,
    ipv6RaMode: row.ipv6_ra_mode,
    serviceTypes: decodeStringList(row.service_types),
  };
}
