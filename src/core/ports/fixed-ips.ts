/**
 * A port's fixed IPs: which subnet each requested entry means, which addresses a new port gets,
 * and what an update keeps, adds and removes (Neutron's `_get_subnet_for_fixed_ip`,
 * `_allocate_ips_for_port`, `_test_fixed_ips_for_port` and `_get_changed_ips_for_port`).
 *
 * Auto-address (SLAAC, DHCPv6-stateless) subnets give every port except router interfaces their
 * EUI-64 address; such addresses cannot be chosen otherwise and stay until the subnet goes.
 */
import {
  AllocationOnAutoAddressSubnet,
  InvalidInput,
  InvalidIpForNetwork,
  InvalidIpForSubnet,
  IpAddressAlreadyAllocated,
  IpAddressGenerationFailure,
  IpAddressGenerationFailureNoMatchingSubnet,
  SubnetNotFound,
} from '../errors.js';
import { formatIp, parseIp } from '../ip.js';
import {
  chooseFreeAddress,
  eui64For,
  isAutoAddressSubnet,
  isValidPortAddress,
  LOWEST_ADDRESS_OWNERS,
  ROUTER_INTERFACE_OWNERS,
  type IpamSubnet,
} from '../ipam.js';

export interface FixedIpRequest {
  subnet_id?: string;
  ip_address?: string;
}

export interface Allocation {
  subnet_id: string;
  ip_address: string;
}

/** How IPAM reaches the database: taken-checks and lookups, all inside the caller's transaction. */
export interface AddressBook {
  isTaken(ip: string): Promise<boolean>;
  /** Which of `ips` are taken on the network, in one question (IPAM's random candidates). */
  takenAmong(ips: readonly string[]): Promise<ReadonlySet<string>>;
  allocatedOnSubnet(subnetId: string): Promise<ReadonlySet<string>>;
  /** How many addresses of the subnet are allocated (cheaper than reading them). */
  countAllocated(subnetId: string): Promise<number>;
  /** The network of a subnet that is not on this port's network (for the error message), if it exists. */
  networkOfSubnet(subnetId: string): Promise<string | undefined>;
}

interface PortIdentity {
  readonly networkId: string;
  readonly deviceOwner: string;
  readonly mac: string;
}

/** A requested entry resolved to its subnet: a specific address, any address, or the EUI-64 one. */
type Resolved = { subnet: IpamSubnet; ip?: string; eui64?: boolean };

async function subnetForFixedIp(
  fixed: FixedIpRequest,
  subnets: readonly IpamSubnet[],
  port: PortIdentity,
  book: AddressBook,
): Promise<IpamSubnet> {
  if (subnets.length === 0) throw InvalidInput({ error_message: 'IP allocation requires subnets for network' });
  if (fixed.subnet_id !== undefined) {
    const subnet = subnets.find((s) => s.id === fixed.subnet_id);
    if (!subnet) {
      if ((await book.networkOfSubnet(fixed.subnet_id)) === undefined) {
        throw SubnetNotFound({ subnet_id: fixed.subnet_id });
      }
      // Neutron names the port's network here, not the subnet's.
      throw InvalidInput({
        error_message: `Failed to create port on network ${port.networkId}, because fixed_ips included invalid subnet ${fixed.subnet_id}`,
      });
    }
    if (fixed.ip_address !== undefined) {
      const ip = parseIp(fixed.ip_address)!;
      if (ip.version !== subnet.version || !isValidPortAddress(subnet.cidr, ip.value, port.deviceOwner)) {
        throw InvalidIpForSubnet({ ip_address: fixed.ip_address });
      }
    }
    return subnet;
  }
  if (fixed.ip_address === undefined)
    throw InvalidInput({ error_message: 'IP allocation requires subnet_id or ip_address' });
  const ip = parseIp(fixed.ip_address)!;
  const subnet = subnets.find(
    (s) => s.version === ip.version && isValidPortAddress(s.cidr, ip.value, port.deviceOwner),
  );
  if (!subnet) throw InvalidIpForNetwork({ ip_address: fixed.ip_address });
  return subnet;
}

/** `_test_fixed_ips_for_port`: every entry must name a subnet of the network and a valid address. */
async function resolveRequests(
  requests: readonly FixedIpRequest[],
  subnets: readonly IpamSubnet[],
  port: PortIdentity,
  book: AddressBook,
): Promise<Resolved[]> {
  const isRouter = ROUTER_INTERFACE_OWNERS.includes(port.deviceOwner);
  const resolved: Resolved[] = [];
  for (const fixed of requests) {
    const subnet = await subnetForFixedIp(fixed, subnets, port, book);
    const auto = isAutoAddressSubnet(subnet);
    if (fixed.ip_address !== undefined) {
      const ip = formatIp(subnet.version, parseIp(fixed.ip_address)!.value);
      if (auto && !isRouter && ip !== formatIp(6, eui64For(subnet, port.mac))) {
        throw AllocationOnAutoAddressSubnet({ ip: fixed.ip_address, subnet_id: subnet.id });
      }
      resolved.push({ subnet, ip });
    } else if (isRouter || !auto) {
      resolved.push({ subnet });
    }
  }
  return resolved;
}

/**
 * Subnets a port of this owner may use (`find_candidate_subnets`), explicit requests included: those
 * reserved for its owner first, then the unreserved ones (tried in that order when full).
 */
export function candidateSubnets(subnets: readonly IpamSubnet[], deviceOwner: string, networkId: string): IpamSubnet[] {
  if (subnets.length === 0) return [];
  const reserved = subnets.filter((s) => s.serviceTypes.includes(deviceOwner));
  const open = subnets.filter((s) => s.serviceTypes.length === 0);
  if (reserved.length || open.length) return [...reserved, ...open];
  throw IpAddressGenerationFailureNoMatchingSubnet({ network_id: networkId, service_type: deviceOwner });
}

function autoAddresses(
  subnets: readonly IpamSubnet[],
  port: PortIdentity,
  exclude: ReadonlySet<string> = new Set(),
): Resolved[] {
  if (ROUTER_INTERFACE_OWNERS.includes(port.deviceOwner)) return [];
  return subnets.filter((s) => isAutoAddressSubnet(s) && !exclude.has(s.id)).map((subnet) => ({ subnet, eui64: true }));
}

/** Turns resolved entries into addresses: specific ones must be free, open ones get a free one. */
async function allocate(resolved: readonly Resolved[], port: PortIdentity, book: AddressBook): Promise<Allocation[]> {
  const result: Allocation[] = [];
  const claimed = new Set<string>();
  for (const r of resolved) {
    let ip = r.ip ?? (r.eui64 ? formatIp(6, eui64For(r.subnet, port.mac)) : undefined);
    if (ip !== undefined) {
      if (claimed.has(ip) || (await book.isTaken(ip))) throw IpAddressAlreadyAllocated({ ip, subnet_id: r.subnet.id });
    } else {
      ip = (await chooseAmong([r.subnet], book, claimed, port)) ?? undefined;
      // Neutron's subnet group turns a full subnet into the network-wide error, even for one subnet.
      if (ip === undefined) throw IpAddressGenerationFailure({ net_id: port.networkId });
    }
    claimed.add(ip);
    result.push({ subnet_id: r.subnet.id, ip_address: ip });
  }
  return result;
}

async function chooseAmong(
  subnets: readonly IpamSubnet[],
  book: AddressBook,
  claimed: ReadonlySet<string>,
  port: PortIdentity,
): Promise<string | null> {
  for (const subnet of subnets) {
    const ip = await chooseFreeAddress(
      subnet,
      {
        takenAmong: async (ips) => new Set([...ips.filter((c) => claimed.has(c)), ...(await book.takenAmong(ips))]),
        allocated: async () => new Set([...(await book.allocatedOnSubnet(subnet.id)), ...claimed]),
        allocatedCount: async () => (await book.countAllocated(subnet.id)) + claimed.size,
      },
      LOWEST_ADDRESS_OWNERS.includes(port.deviceOwner),
    );
    if (ip !== null) return ip;
  }
  return null;
}

/**
 * The addresses of a new port. Without `requests`: one IPv4 address (first subnet with room), one
 * stateful/static IPv6 address, and the EUI-64 address of every auto-address subnet. With
 * `requests`: exactly those, plus the auto addresses (even for `[]`, as Neutron does).
 */
export async function allocateForNewPort(
  subnets: readonly IpamSubnet[],
  requests: readonly FixedIpRequest[] | undefined,
  port: PortIdentity,
  book: AddressBook,
): Promise<Allocation[]> {
  const candidates = candidateSubnets(subnets, port.deviceOwner, port.networkId);
  if (requests !== undefined) {
    const resolved = await resolveRequests(requests, candidates, port, book);
    const requestedAuto = new Set(
      resolved.filter((r) => r.eui64 || isAutoAddressSubnet(r.subnet)).map((r) => r.subnet.id),
    );
    return allocate([...resolved, ...autoAddresses(candidates, port, requestedAuto)], port, book);
  }
  const result: Allocation[] = [];
  const claimed = new Set<string>();
  const groups = [
    candidates.filter((s) => s.version === 4),
    candidates.filter((s) => s.version === 6 && !isAutoAddressSubnet(s)),
  ];
  for (const group of groups) {
    if (group.length === 0) continue;
    const ip = await chooseAmong(group, book, claimed, port);
    if (ip === null) throw IpAddressGenerationFailure({ net_id: port.networkId });
    const version = group[0]!.version;
    const subnet = group.find(
      (s) => s.version === version && isValidPortAddress(s.cidr, parseIp(ip)!.value, port.deviceOwner),
    )!;
    claimed.add(ip);
    result.push({ subnet_id: subnet.id, ip_address: ip });
  }
  return [...result, ...(await allocate(autoAddresses(candidates, port), port, book))];
}

export interface FixedIpChanges {
  keep: Allocation[];
  add: Allocation[];
  remove: Allocation[];
}

/**
 * A fixed_ips update: entries naming a current address keep it; entries naming only a subnet reuse
 * one of the port's addresses there (EUI-64 ones are recomputed); everything else is new. Unclaimed
 * addresses go, except auto addresses, which stay while their subnet exists.
 */
export async function changeFixedIps(
  subnets: readonly IpamSubnet[],
  current: readonly Allocation[],
  requests: readonly FixedIpRequest[],
  port: PortIdentity,
  book: AddressBook,
): Promise<FixedIpChanges> {
  const resolved = await resolveRequests(requests, subnets, port, book);
  const byIp = new Map(current.map((a) => [a.ip_address, a]));
  const keep: Allocation[] = [];
  const wanted: Resolved[] = [];
  for (const r of resolved) {
    if (r.ip === undefined) continue;
    const existing = byIp.get(r.ip);
    if (existing) {
      keep.push(existing);
      byIp.delete(r.ip);
    } else {
      wanted.push(r);
    }
  }
  const bySubnet = new Map<string, Allocation[]>();
  for (const a of byIp.values()) bySubnet.set(a.subnet_id, [...(bySubnet.get(a.subnet_id) ?? []), a]);
  const removeCandidates: Allocation[] = [];
  for (const r of resolved) {
    if (r.ip !== undefined) continue;
    const reusable = bySubnet.get(r.subnet.id)?.pop();
    if (!reusable) wanted.push(r);
    else if (isAutoAddressSubnet(r.subnet)) {
      wanted.push(r);
      removeCandidates.push(reusable);
    } else keep.push(reusable);
  }
  for (const rest of bySubnet.values()) removeCandidates.push(...rest);
  const subnetById = new Map(subnets.map((s) => [s.id, s]));
  const remove: Allocation[] = [];
  for (const a of removeCandidates) {
    const subnet = subnetById.get(a.subnet_id);
    const required = ROUTER_INTERFACE_OWNERS.includes(port.deviceOwner) || !subnet || !isAutoAddressSubnet(subnet);
    if (required) remove.push(a);
    else keep.push(a);
  }
  // The addresses being given up may be taken again by this very update.
  const releasing = new Set(remove.map((a) => a.ip_address));
  const releasingBook: AddressBook = {
    ...book,
    isTaken: async (ip) => !releasing.has(ip) && (await book.isTaken(ip)),
    takenAmong: async (ips) => new Set([...(await book.takenAmong(ips))].filter((ip) => !releasing.has(ip))),
    allocatedOnSubnet: async (id) =>
      new Set([...(await book.allocatedOnSubnet(id))].filter((ip) => !releasing.has(ip))),
    countAllocated: async (id) => (await book.countAllocated(id)) - remove.filter((a) => a.subnet_id === id).length,
  };
  const add = await allocate(wanted, port, releasingBook);
  return { keep, add, remove };
}

/**
 * A MAC change moves the port's EUI-64 addresses (`update_port_with_ips`): on each auto-address
 * subnet the address derived from the old MAC gives way to the one derived from the new MAC.
 */
export async function moveEui64Addresses(
  subnets: readonly IpamSubnet[],
  changes: FixedIpChanges,
  port: PortIdentity,
  book: AddressBook,
): Promise<FixedIpChanges> {
  if (ROUTER_INTERFACE_OWNERS.includes(port.deviceOwner)) return changes;
  const auto = new Map(subnets.filter(isAutoAddressSubnet).map((s) => [s.id, s]));
  const result: FixedIpChanges = { keep: [], add: [...changes.add], remove: [...changes.remove] };
  for (const a of changes.keep) {
    const subnet = auto.get(a.subnet_id);
    const moved = subnet ? formatIp(6, eui64For(subnet, port.mac)) : a.ip_address;
    if (moved === a.ip_address) {
      result.keep.push(a);
      continue;
    }
    if (await book.isTaken(moved)) throw IpAddressAlreadyAllocated({ ip: moved, subnet_id: a.subnet_id });
    result.remove.push(a);
    result.add.push({ subnet_id: a.subnet_id, ip_address: moved });
  }
  return result;
}
