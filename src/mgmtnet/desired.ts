/**
 * What the spec wants in Neutron, as plain attribute sets (pure functions, no I/O): the networks and
 * subnets of each topology, the two security groups and their rules, the router and the per-node
 * ports. The reconcile compares these with what Neutron has, attribute by attribute.
 *
 * Topologies:
 * - `per-node-ports`: `lb-mgmt-net` is a tenant (geneve) network; controllers get one port each on it.
 * - `provider`: `lb-mgmt-net` is a flat or VLAN provider network; controllers get one port each on it.
 * - `link-router`: amphorae live on the tenant `lb-mgmt-net`; controllers get their ports on a provider
 *   network; a router with SNAT off joins them (gateway on the provider subnet, an interface port at
 *   the tenant subnet's first address), and the tenant subnet carries a host route back to the
 *   provider CIDR through that port, since it has no default gateway.
 */
import { addressAfter, addressBefore, cidrFamily, firstHost, lastHost } from './cidr.js';
import type { MgmtNetSpec } from './spec.js';

export interface DesiredNetwork {
  readonly role: 'mgmt-net' | 'provider-net';
  readonly attributes: Record<string, unknown>;
}

export interface DesiredSubnet {
  readonly role: 'mgmt-subnet-v4' | 'mgmt-subnet-v6' | 'provider-subnet';
  readonly network: 'mgmt-net' | 'provider-net';
  /** Attributes that can only be set at creation (compared, never updated). */
  readonly fixed: Record<string, unknown>;
  /** Attributes the reconcile keeps in line. */
  readonly attributes: Record<string, unknown>;
}

export interface DesiredRule {
  readonly direction: 'ingress' | 'egress';
  readonly ethertype: 'IPv4' | 'IPv6';
  readonly protocol: string | null;
  readonly port_range_min: number | null;
  readonly port_range_max: number | null;
  readonly remote_ip_prefix: string | null;
}

export interface DesiredSecurityGroup {
  readonly role: 'amphora-sg' | 'health-sg';
  readonly name: string;
  readonly description: string;
  readonly rules: readonly DesiredRule[];
}

/** The network the controllers' ports are on. */
export function controllerNetworkRole(spec: MgmtNetSpec): 'mgmt-net' | 'provider-net' {
  return spec.spec.topology === 'link-router' ? 'provider-net' : 'mgmt-net';
}

/** The CIDRs the controllers' addresses come from. */
function controllerCidrs(spec: MgmtNetSpec): readonly string[] {
  return spec.spec.topology === 'link-router' ? [spec.spec.linkRouter.cidr!] : spec.spec.network.cidrs;
}

function providerAttributes(spec: MgmtNetSpec): Record<string, unknown> {
  const p = spec.spec.provider;
  return {
    'provider:network_type': p.networkType,
    'provider:physical_network': p.physicalNetwork,
    ...(p.networkType === 'vlan' ? { 'provider:segmentation_id': p.segmentationId } : {}),
  };
}

export function desiredNetworks(spec: MgmtNetSpec): DesiredNetwork[] {
  const s = spec.spec;
  const mgmt: DesiredNetwork = {
    role: 'mgmt-net',
    attributes: {
      name: s.network.name,
      description: `Octavia management network (octonet mgmt-net ${spec.metadata.name})`,
      admin_state_up: true,
      ...(s.network.mtu !== undefined ? { mtu: s.network.mtu } : {}),
      ...(s.topology === 'provider' ? providerAttributes(spec) : {}),
    },
  };
  if (s.topology !== 'link-router') return [mgmt];
  return [
    {
      role: 'provider-net',
      attributes: {
        name: s.linkRouter.networkName,
        description: `Octavia controllers' provider network (octonet mgmt-net ${spec.metadata.name})`,
        admin_state_up: true,
        'router:external': true,
        ...providerAttributes(spec),
      },
    },
    mgmt,
  ];
}

function secondHost(cidr: string): string {
  return addressAfter(firstHost(cidr));
}

/** The address a router takes on a subnet: the first one, kept out of the allocation pool. */
export function routerAddress(cidr: string): string {
  return firstHost(cidr);
}

export function linkGatewayIp(spec: MgmtNetSpec): string {
  return spec.spec.linkRouter.gatewayIp ?? firstHost(spec.spec.linkRouter.cidr!);
}

export function desiredSubnets(spec: MgmtNetSpec): DesiredSubnet[] {
  const s = spec.spec;
  const dual = s.network.cidrs.length > 1;
  const subnets: DesiredSubnet[] = s.network.cidrs.map((cidr) => {
    const v = cidrFamily(cidr);
    const name = dual && v === 6 ? `${s.network.subnetName}-v6` : s.network.subnetName;
    const linkRouter = s.topology === 'link-router';
    return {
      role: v === 4 ? 'mgmt-subnet-v4' : 'mgmt-subnet-v6',
      network: 'mgmt-net',
      fixed: {
        cidr,
        ip_version: v,
        ...(v === 6 ? { ipv6_address_mode: 'dhcpv6-stateful' } : {}),
        // Neutron refuses a router interface on an IPv6 subnet that expects RAs from elsewhere.
        ...(v === 6 && linkRouter ? { ipv6_ra_mode: 'dhcpv6-stateful' } : {}),
      },
      attributes: {
        name,
        description: `Octavia management subnet (octonet mgmt-net ${spec.metadata.name})`,
        // No default gateway: amphorae and controllers only route what is routed explicitly.
        gateway_ip: null,
        // Amphorae take their address by DHCP; the controllers' side is static (node agent).
        enable_dhcp: true,
        ...(linkRouter
          ? {
              allocation_pools: [{ start: secondHost(cidr), end: lastHost(cidr) }],
              host_routes: [{ destination: s.linkRouter.cidr!, nexthop: routerAddress(cidr) }],
            }
          : { host_routes: [] }),
      },
    };
  });
  if (s.topology !== 'link-router') return subnets;
  const cidr = s.linkRouter.cidr!;
  const gateway = linkGatewayIp(spec);
  return [
    {
      role: 'provider-subnet',
      network: 'provider-net',
      fixed: { cidr, ip_version: cidrFamily(cidr) },
      attributes: {
        name: s.linkRouter.subnetName,
        description: `Octavia controllers' provider subnet (octonet mgmt-net ${spec.metadata.name})`,
        gateway_ip: null,
        enable_dhcp: false,
        allocation_pools: poolsWithout(cidr, gateway),
        host_routes: [],
      },
    },
    ...subnets,
  ];
}

/** The subnet's usable range minus one address (the router's). */
function poolsWithout(cidr: string, hole: string): { start: string; end: string }[] {
  const first = firstHost(cidr);
  const last = lastHost(cidr);
  if (hole === first) return [{ start: secondHost(cidr), end: last }];
  const before = addressBefore(hole);
  const after = addressAfter(hole);
  return [{ start: first, end: before }, ...(hole === last ? [] : [{ start: after, end: last }])];
}

function ethertype(cidr: string): 'IPv4' | 'IPv6' {
  return cidrFamily(cidr) === 4 ? 'IPv4' : 'IPv6';
}

function portRule(protocol: string, port: number, from: string): DesiredRule {
  return {
    direction: 'ingress',
    ethertype: ethertype(from),
    protocol,
    port_range_min: port,
    port_range_max: port,
    remote_ip_prefix: from,
  };
}

function icmpRule(from: string): DesiredRule {
  return {
    direction: 'ingress',
    ethertype: ethertype(from),
    protocol: cidrFamily(from) === 4 ? 'icmp' : 'ipv6-icmp',
    port_range_min: null,
    port_range_max: null,
    remote_ip_prefix: from,
  };
}

/** Neutron's two default egress rules: kept, so amphorae can answer and send heartbeats. */
const EGRESS: DesiredRule[] = (['IPv4', 'IPv6'] as const).map((e) => ({
  direction: 'egress',
  ethertype: e,
  protocol: null,
  port_range_min: null,
  port_range_max: null,
  remote_ip_prefix: null,
}));

export function desiredSecurityGroups(spec: MgmtNetSpec): DesiredSecurityGroup[] {
  const g = spec.spec.securityGroups;
  const amphoraCidrs = spec.spec.network.cidrs;
  const controllers = controllerCidrs(spec);
  const everyone = [...new Set([...amphoraCidrs, ...controllers])];
  const amphora: DesiredRule[] = [
    ...EGRESS,
    ...controllers.map((c) => portRule('tcp', g.amphoraAgentPort, c)),
    ...(g.ssh ? controllers.map((c) => portRule('tcp', 22, c)) : []),
    ...(g.icmp ? everyone.map(icmpRule) : []),
  ];
  const health: DesiredRule[] = [
    ...EGRESS,
    ...amphoraCidrs.map((c) => portRule('udp', g.healthManagerPort, c)),
    ...(g.icmp ? everyone.map(icmpRule) : []),
  ];
  return [
    {
      role: 'amphora-sg',
      name: g.amphoraName,
      description: `Octavia amphorae: agent ${g.amphoraAgentPort}/tcp from the controllers (octonet mgmt-net ${spec.metadata.name})`,
      rules: amphora,
    },
    {
      role: 'health-sg',
      name: g.healthManagerName,
      description: `Octavia health managers: heartbeats ${g.healthManagerPort}/udp from amphorae (octonet mgmt-net ${spec.metadata.name})`,
      rules: health,
    },
  ];
}

/** A rule's identity for the diff: the attributes that make two rules the same rule. */
export function ruleKey(given: object): string {
  // A desired rule, a Neutron answer or a test's literal: whatever it is, these attributes decide.
  const rule: Partial<Record<string, unknown>> = { ...given };
  // Neutron may answer a protocol given by name with the name, and `icmpv6` for `ipv6-icmp`.
  const protocol = rule.protocol === 'icmpv6' || rule.protocol === '58' ? 'ipv6-icmp' : (rule.protocol ?? 'any');
  return [
    rule.direction,
    rule.ethertype,
    protocol,
    rule.port_range_min ?? '',
    rule.port_range_max ?? '',
    rule.remote_ip_prefix ?? '',
    rule.remote_group_id ?? '',
    rule.remote_address_group_id ?? '',
  ].join('|');
}

export function describeRule(sgName: string, rule: DesiredRule): string {
  const ports = rule.port_range_min === null ? '' : ` ${rule.port_range_min}`;
  const from = rule.remote_ip_prefix ?? 'any';
  return `${sgName} ${rule.direction} ${rule.ethertype} ${rule.protocol ?? 'any'}${ports} ${rule.direction === 'ingress' ? 'from' : 'to'} ${from}`;
}
