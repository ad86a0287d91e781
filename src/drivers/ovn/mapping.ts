/**
 * Neutron resources → the OVN northbound rows ML2/OVN writes for them: pure functions, no I/O.
 *
 * Names, `external_ids` keys and column values follow `neutron/plugins/ml2/drivers/ovn/mech_driver/
 * ovsdb/ovn_client.py` and `neutron/common/ovn/{acl,utils,constants}.py` (Neutron master; see
 * `../shared/reference/ovn-mapping.md`), so `ovn-nbctl show` and an operator's OVN tooling read the
 * same as under Neutron. Where master writes something OVN 23.03 does not understand (the `VRRPv3`
 * port-security entries), the Zed form is written. The applier turns these specs into transactions;
 * references between rows (a port's DHCP options) stay symbolic here.
 */
import type {
  ExtraDhcpOpt,
  FloatingIpState,
  NetworkState,
  PortState,
  SecurityGroupState,
  SubnetState,
} from '../host.js';
import { acl, type AclSpec } from './acl.js';
import { isRouterPort, ROUTER_GATEWAY_OWNER, routerPortName } from './router-mapping.js';
import { dhcpOptionName, isMapOption, isStringOption } from './dhcp-option-names.js';

export type StringMap = Record<string, string>;

export const DROP_PORT_GROUP = 'neutron_pg_drop';
/** `ACL_PRIORITY_DROP` as ML2/OVN Zed writes it (an NB it wrote is taken over unchanged). */
export const DROP_PRIORITY = 1001;
export const METADATA_DEVICE_OWNER = 'network:distributed';
export const METADATA_DEVICE_ID_PREFIX = 'ovnmeta-';
/** What Neutron's metadata proxy answers on; reached through the metadata port. */
const METADATA_V4_CIDR = '169.254.169.254/32';

export const logicalSwitchName = (networkId: string): string => `neutron-${networkId}`;
export const provnetPortName = (segmentId: string): string => `provnet-${segmentId}`;
export const portGroupName = (securityGroupId: string): string => `pg_${securityGroupId.replace(/-/g, '_')}`;

/** The settings of `[ovn]` and `[OVS]` that shape rows; defaults as Neutron's. */
export interface MappingOptions {
  readonly igmpSnoopingEnable: boolean;
  readonly igmpFloodUnregistered: boolean;
  readonly igmpFloodReports: boolean;
  readonly igmpFlood: boolean;
  readonly localnetLearnFdb: boolean;
  readonly fdbAgeThreshold: number;
  readonly broadcastArpsToAllRouters: boolean;
  readonly dhcpLeaseTime: number;
  /** `[ovn] dns_servers`, then the host's resolvers: used when a subnet lists no DNS servers. */
  readonly fallbackDnsServers: readonly string[];
  /** Neutron's global `dns_domain`. */
  readonly dnsDomain: string;
  /** `ovn.vip_failover` (default `virtual-port`). */
  readonly vipFailover?: VipFailover;
}

export interface LogicalSwitchSpec {
  readonly name: string;
  readonly external_ids: StringMap;
  readonly other_config: StringMap;
}

/** Which DHCP_Options row a port points at: its subnet's, or its own (extra DHCP options). */
export type DhcpOptionsRef =
  | { readonly kind: 'subnet'; readonly subnetId: string }
  | { readonly kind: 'port'; readonly subnetId: string; readonly portId: string };

export interface SwitchPortSpec {
  readonly name: string;
  readonly type: string;
  readonly addresses: readonly string[];
  readonly port_security: readonly string[];
  readonly enabled: boolean | null;
  readonly tag_request: number | null;
  readonly parent_name: string | null;
  readonly tag: number | null;
  readonly options: StringMap;
  readonly external_ids: StringMap;
  readonly dhcpv4_options: DhcpOptionsRef | null;
  readonly dhcpv6_options: DhcpOptionsRef | null;
}

export interface DhcpOptionsSpec {
  readonly cidr: string;
  readonly options: StringMap;
  readonly external_ids: StringMap;
}

export interface PortGroupSpec {
  readonly name: string;
  readonly external_ids: StringMap;
  readonly acls: readonly AclSpec[];
}

const bool = (value: boolean): string => (value ? 'true' : 'false');

// ---------------------------------------------------------------------------------------------
// Networks: Logical_Switch and localnet ports (`_gen_network_parameters`, `create_provnet_port`)

export function isProviderNetwork(network: NetworkState): boolean {
  return !!network['provider:physical_network'];
}

export function logicalSwitch(network: NetworkState, options: MappingOptions): LogicalSwitchSpec {
  const external_ids: StringMap = {
    'neutron:network_name': network.name,
    'neutron:mtu': String(network.mtu),
    'neutron:revision_number': String(network.revision_number),
    'neutron:availability_zone_hints': network.availability_zone_hints.join(','),
    'neutron:provnet-network-type': network['provider:network_type'] ?? '',
  };
  if (network['provider:physical_network'])
    external_ids['neutron:provnet-physical-network'] = network['provider:physical_network'];
  const other_config: StringMap = {
    mcast_snoop: bool(options.igmpSnoopingEnable),
    mcast_flood_unregistered: bool(options.igmpFloodUnregistered),
    'vlan-passthru': 'false',
  };
  if (isProviderNetwork(network)) other_config.fdb_age_threshold = String(options.fdbAgeThreshold);
  if (network['router:external'])
    other_config['broadcast-arps-to-all-routers'] = bool(options.broadcastArpsToAllRouters);
  return { name: logicalSwitchName(network.id), external_ids, other_config };
}

/** One `localnet` port per segment on a physical network; tunnelled networks have none. */
export function localnetPorts(
  network: Pick<NetworkState, 'segments'>,
  options: Pick<MappingOptions, 'igmpFloodReports' | 'igmpFlood' | 'localnetLearnFdb'>,
): SwitchPortSpec[] {
  return network.segments
    .filter((segment) => segment.physical_network)
    .map((segment) => ({
      name: provnetPortName(segment.id),
      type: 'localnet',
      addresses: ['unknown'],
      port_security: [],
      enabled: null,
      // `tag`, as ML2/OVN writes it: a `tag_request` is copied into `tag` by ovn-northd, so a
      // planned `tag: null` beside it never matched and the network was "repaired" forever.
      tag_request: null,
      parent_name: null,
      tag: segment.network_type === 'vlan' ? segment.segmentation_id : null,
      options: {
        network_name: segment.physical_network!,
        mcast_flood_reports: bool(options.igmpFloodReports),
        mcast_flood: bool(options.igmpFlood),
        // Zed writes no key: off is OVN's default.
        ...(options.localnetLearnFdb ? { localnet_learn_fdb: 'true' } : {}),
      },
      external_ids: {},
      dhcpv4_options: null,
      dhcpv6_options: null,
    }));
}

// ---------------------------------------------------------------------------------------------
// Subnets: DHCP_Options (`_get_ovn_dhcp_options`, `_get_ovn_dhcpv4_opts`, `_get_ovn_dhcpv6_opts`)

/** SLAAC subnets get no row (`is_dhcp_options_ignored`), nor do subnets without DHCP. */
export function subnetHasDhcpOptions(subnet: SubnetState): boolean {
  return subnet.enable_dhcp && !(subnet.ip_version === 6 && subnet.ipv6_address_mode === 'slaac');
}

function dnsServersFor(subnet: SubnetState, options: MappingOptions): string[] {
  const version = subnet.ip_version;
  const ofVersion = (ips: readonly string[]) => ips.filter((ip) => ip.includes(':') === (version === 6));
  const servers =
    subnet.dns_nameservers.length > 0 ? [...subnet.dns_nameservers] : ofVersion(options.fallbackDnsServers);
  // "0.0.0.0" (or "::") among them means: announce no resolver at all.
  if (servers.some((ip) => ip === '0.0.0.0' || ip === '::')) return [];
  return servers;
}

/**
 * The subnet's row. `serverMac` is kept from the existing row (Neutron picks it at random once);
 * `metadataIp` is the network's metadata port address on this subnet, if it has one.
 */
export function subnetDhcpOptions(
  subnet: SubnetState,
  network: NetworkState,
  metadataIp: string | undefined,
  serverMac: string,
  options: MappingOptions,
): DhcpOptionsSpec {
  const external_ids: StringMap = {
    subnet_id: subnet.id,
    'neutron:network_id': network.id,
    'neutron:revision_number': String(subnet.revision_number),
  };
  const dhcp =
    subnet.ip_version === 4
      ? dhcpv4Options(subnet, network, metadataIp, serverMac, options)
      : dhcpv6Options(subnet, serverMac, options);
  return { cidr: subnet.cidr, options: dhcp, external_ids };
}

function dhcpv4Options(
  subnet: SubnetState,
  network: NetworkState,
  metadataIp: string | undefined,
  serverMac: string,
  options: MappingOptions,
): StringMap {
  const serverId = subnet.gateway_ip ?? metadataIp;
  if (!serverId) return {};
  const result: StringMap = {
    server_id: serverId,
    lease_time: String(options.dhcpLeaseTime),
    mtu: String(network.mtu),
  };
  if (options.dnsDomain && options.dnsDomain !== 'openstacklocal') result.domain_name = `"${options.dnsDomain}"`;
  if (subnet.gateway_ip) result.router = subnet.gateway_ip;
  result.server_mac = serverMac;
  const dns = dnsServersFor(subnet, options);
  if (dns.length > 0) result.dns_server = `{${dns.join(', ')}}`;
  const routes: string[] = [];
  if (metadataIp) routes.push(`${METADATA_V4_CIDR},${metadataIp}`);
  for (const route of subnet.host_routes) routes.push(`${route.destination},${route.nexthop}`);
  if (routes.length > 0) {
    // Clients ignore option 3 when 121 is present (RFC 3442): the default route goes in too.
    if (subnet.gateway_ip) routes.push(`0.0.0.0/0,${subnet.gateway_ip}`);
    result.classless_static_route = `{${routes.join(', ')}}`;
  }
  return result;
}

function dhcpv6Options(subnet: SubnetState, serverMac: string, options: MappingOptions): StringMap {
  const result: StringMap = { server_id: serverMac };
  const dns = dnsServersFor(subnet, options);
  if (dns.length > 0) result.dns_server = `{${dns.join(', ')}}`;
  if (subnet.ipv6_address_mode === 'dhcpv6-stateless') result.dhcpv6_stateless = 'true';
  return result;
}

// ---------------------------------------------------------------------------------------------
// Ports: Logical_Switch_Port (`_get_port_options`, `get_external_ids_from_port`, `create_port`)

/** `network:` and `neutron:` owners are trusted: no port security, no security groups. */
export function isTrustedPort(port: Pick<PortState, 'device_owner'>): boolean {
  return port.device_owner.startsWith('network:') || port.device_owner.startsWith('neutron:');
}

/** Floating IP ports never appear in OVN (`is_lsp_ignored`). */
export function isIgnoredPort(port: Pick<PortState, 'device_owner'>): boolean {
  return port.device_owner === 'network:floatingip';
}

export function isMetadataPort(port: Pick<PortState, 'device_owner' | 'device_id'>): boolean {
  return port.device_owner === METADATA_DEVICE_OWNER && port.device_id.startsWith(METADATA_DEVICE_ID_PREFIX);
}

/** `_get_allowed_addresses_from_port`, Zed form: entries for port security, and the extra MACs. */
function allowedAddresses(port: PortState): { portSecurity: string[]; extraMacs: string[] } {
  if (!port.port_security_enabled || isTrustedPort(port)) return { portSecurity: [], extraMacs: [] };
  let own = [port.mac_address, ...port.fixed_ips.map((ip) => ip.ip_address)].join(' ');
  const others = new Set<string>();
  const extraMacs = new Set<string>();
  for (const pair of port.allowed_address_pairs) {
    if (pair.mac_address === port.mac_address) own += ` ${pair.ip_address}`;
    else {
      others.add(`${pair.mac_address} ${pair.ip_address}`);
      extraMacs.add(pair.mac_address);
    }
  }
  return { portSecurity: [...others, own], extraMacs: [...extraMacs] };
}

/**
 * The port's own DHCP options from `extra_dhcp_opts` of one IP version (`get_lsp_dhcp_opts`):
 * `disabled` when the port opts out (`dhcp_disabled=true`) or is a network device; names OVN does
 * not know are skipped, as Neutron skips them with a warning.
 */
export function portDhcpOverrides(port: PortState, version: 4 | 6): { disabled: boolean; options: StringMap } {
  if (port.device_owner.startsWith('network:') || port.device_owner.startsWith('neutron:'))
    return { disabled: true, options: {} };
  const options: StringMap = {};
  for (const opt of port.extra_dhcp_opts) {
    if (opt.ip_version !== version) continue;
    if (isDhcpDisabledOpt(opt)) return { disabled: true, options: {} };
    const name = dhcpOptionName(version, opt.opt_name);
    if (!name) continue;
    let value = opt.opt_value;
    if (isStringOption(name) && !(value.startsWith('"') && value.endsWith('"'))) value = `"${value}"`;
    else if (isMapOption(name) && !(value.startsWith('{') && value.endsWith('}'))) value = `{${value}}`;
    options[name] = value;
  }
  return { disabled: false, options };
}

function isDhcpDisabledOpt(opt: ExtraDhcpOpt): boolean {
  return opt.opt_name === 'dhcp_disabled' && opt.opt_value.toLowerCase() === 'true';
}

/** A port's row for one subnet: the subnet's options with the port's on top (maps merged). */
export function portDhcpOptions(port: PortState, subnetRow: DhcpOptionsSpec, overrides: StringMap): DhcpOptionsSpec {
  const options: StringMap = { ...subnetRow.options };
  for (const [name, value] of Object.entries(overrides)) {
    const inherited = subnetRow.options[name];
    // `_merge_map_dhcp_option`: the port's map entries come after the subnet's.
    options[name] = isMapOption(name) && inherited ? `{${inherited.slice(1, -1)}, ${value.slice(1, -1)}}` : value;
  }
  return { cidr: subnetRow.cidr, options, external_ids: { ...subnetRow.external_ids, port_id: port.id } };
}

/** What the port mapping needs besides the port. */
export interface PortContext {
  readonly network: Pick<NetworkState, 'id' | 'mtu'>;
  /** The subnets of the port's fixed IPs, by id. */
  readonly subnets: ReadonlyMap<string, SubnetState>;
  /** The subnet's DHCP_Options row as it is (or is about to be) in the NB, if it has one. */
  readonly subnetDhcp: (subnetId: string) => DhcpOptionsSpec | undefined;
  /** Ports on the network listing an address in their allowed address pairs, by address. */
  readonly addressPairHolders?: ReadonlyMap<string, readonly string[]>;
  /** `ovn.vip_failover`: how such a port is written (default `virtual-port`). */
  readonly vipFailover?: VipFailover;
  /** The address of a floating IP on the port, if one is associated (`neutron:port_fip`). */
  readonly floatingIp?: string;
}

/**
 * `OVN_PORT_FIP_EXT_ID_KEY`: ML2/OVN marks the port a floating IP points at with the floating
 * address (`_create_or_update_floatingip`; removed again in `_delete_floatingip`). The OVN Octavia
 * provider reads it on a VIP port to add the floating IP to its load balancer's vips.
 */
export const PORT_FIP_EXT_ID = 'neutron:port_fip';

/**
 * Which floating IP a port's LSP names. ML2/OVN writes the key at each association, so with two
 * floating IPs on one port (one per fixed IP) the later write wins; octonet, which rebuilds the
 * row from the database, names the lowest address so that every pass writes the same.
 */
export function portFloatingIp(
  floatingIps: readonly Pick<FloatingIpState, 'floating_ip_address'>[],
): string | undefined {
  return floatingIps.map((fip) => fip.floating_ip_address).sort()[0];
}

export type VipFailover = 'virtual-port' | 'learned-mac';

/**
 * `ovn.vip_failover` as the driver runs it. `auto` is `learned-mac`, whose failover takes no
 * ovn-northd pass (bench/failover: 31 ms against 1.3 s for the virtual port's rebinding with 11,000
 * ports in the NB), except with distributed floating IPs: their NAT row is resident on the chassis
 * that binds its `logical_port`, and a learned-MAC VIP is bound nowhere, so only a virtual port
 * (bound where its parent holds the address) lets the floating IP, and the BGP announcement that
 * follows the binding, reach the master.
 */
export function resolveVipFailover(setting: VipFailover | 'auto', distributedFloatingIps: boolean): VipFailover {
  if (setting !== 'auto') return setting;
  return distributedFloatingIps ? 'virtual-port' : 'learned-mac';
}

/**
 * In `learned-mac` mode a VIP's logical port is marked with its address instead of being made
 * virtual; the driver finds the holder from the routers' learned MAC bindings.
 */
export const LEARNED_VIP_EXT_ID = 'octonet:learned-vip';

/**
 * `get_port_type_virtual_and_parents`: a port whose fixed IP other ports list as an allowed address
 * pair (a VIP that keepalived moves between them) is a `virtual` port; OVN binds it wherever one of
 * its parents answers ARP for the address. The first such address decides, as in ML2/OVN.
 */
function virtualOptions(port: PortState, context: PortContext): StringMap | undefined {
  for (const ip of port.fixed_ips) {
    if (!context.subnets.has(ip.subnet_id)) continue;
    const parents = (context.addressPairHolders?.get(ip.ip_address) ?? []).filter((id) => id !== port.id);
    if (parents.length) return { 'virtual-ip': ip.ip_address, 'virtual-parents': parents.join(',') };
  }
  return undefined;
}

export interface PortRows {
  readonly port: SwitchPortSpec;
  /** The port's own DHCP_Options rows (extra DHCP options), at most one per IP version. */
  readonly dhcpOptions: readonly DhcpOptionsSpec[];
  /** Names of the Port_Groups the port belongs to. */
  readonly portGroups: readonly string[];
}

/** `_get_subnet_dhcp_options_for_port` + `_get_port_dhcp_options` for one IP version. */
function dhcpFor(
  port: PortState,
  version: 4 | 6,
  context: PortContext,
): { ref: DhcpOptionsRef; own?: DhcpOptionsSpec } | null {
  const overrides = portDhcpOverrides(port, version);
  if (overrides.disabled) return null;
  const candidates: { subnetId: string; row: DhcpOptionsSpec }[] = [];
  for (const ip of port.fixed_ips) {
    const subnet = context.subnets.get(ip.subnet_id);
    const row = subnet?.ip_version === version ? context.subnetDhcp(ip.subnet_id) : undefined;
    if (row && !candidates.some((c) => c.subnetId === ip.subnet_id)) candidates.push({ subnetId: ip.subnet_id, row });
  }
  // IPv6: a stateful subnet wins over a stateless one, so the port gets one stateful address.
  const chosen =
    (version === 6 ? candidates.find((c) => c.row.options.dhcpv6_stateless !== 'true') : undefined) ?? candidates[0];
  if (!chosen) return null;
  if (Object.keys(overrides.options).length === 0) return { ref: { kind: 'subnet', subnetId: chosen.subnetId } };
  return {
    ref: { kind: 'port', subnetId: chosen.subnetId, portId: port.id },
    own: portDhcpOptions(port, chosen.row, overrides.options),
  };
}

/**
 * A router's port on a switch (`SetLRouterPortInLSwitchPortCommand`): `type=router`, the address
 * `router`, its peer LRP in `options:router-port`; the gateway port also announces the router's
 * NAT addresses (without which a new gateway chassis sends no GARPs for floating IPs).
 */
function routerSwitchPort(port: PortState, externalIds: StringMap): PortRows {
  const options: StringMap = { 'router-port': routerPortName(port.id) };
  if (port.device_owner === ROUTER_GATEWAY_OWNER) {
    options['nat-addresses'] = 'router';
    options['exclude-lb-vips-from-garp'] = 'true';
  }
  return {
    port: {
      name: port.id,
      type: 'router',
      addresses: ['router'],
      port_security: [],
      enabled: port.admin_state_up,
      tag_request: null,
      parent_name: null,
      tag: null,
      options,
      external_ids: externalIds,
      dhcpv4_options: null,
      dhcpv6_options: null,
    },
    dhcpOptions: [],
    portGroups: [],
  };
}

/**
 * A VIP in `learned-mac` mode: no addresses (so no router holds a static ARP entry for it and no
 * ARP responder answers for it: the master amphora answers, and routers learn its MAC from its
 * gratuitous ARPs), no port security, not in any port group; it is never bound. The NAT row of a
 * floating IP still names it.
 */
function learnedVipSwitchPort(port: PortState, vipAddress: string, context: PortContext): PortRows {
  return {
    port: {
      name: port.id,
      type: '',
      addresses: [],
      port_security: [],
      enabled: port.admin_state_up,
      tag_request: null,
      parent_name: null,
      tag: null,
      options: {},
      external_ids: { ...switchPortExternalIds(port, context, []), [LEARNED_VIP_EXT_ID]: vipAddress },
      dhcpv4_options: null,
      dhcpv6_options: null,
    },
    dhcpOptions: [],
    portGroups: [],
  };
}

/**
 * `_configure_requested_chassis_options`: the bound host, and during a live migration (Nova puts
 * the target in `binding:profile.migrating_to`) the target too, so OVN (multi-chassis bindings,
 * 22.09 and later) sets the port up on both; `activation-strategy=rarp` keeps the target's copy
 * blocked until the migrated VM announces itself there.
 */
function requestedChassis(host: string, profile: Readonly<Record<string, unknown>>): StringMap {
  const target = profile.migrating_to;
  if (typeof target !== 'string' || !target || target === host) return { 'requested-chassis': host };
  return { 'requested-chassis': `${host},${target}`, 'activation-strategy': 'rarp' };
}

export function switchPortRows(port: PortState, context: PortContext): PortRows {
  if (isRouterPort(port)) return routerSwitchPort(port, switchPortExternalIds(port, context, []));
  const learned =
    context.vipFailover === 'learned-mac' && !isMetadataPort(port) ? virtualOptions(port, context) : undefined;
  if (learned) return learnedVipSwitchPort(port, learned['virtual-ip']!, context);
  const dhcp4 = dhcpFor(port, 4, context);
  const dhcp6 = dhcpFor(port, 6, context);
  const metadata = isMetadataPort(port);
  const virtual = metadata ? undefined : virtualOptions(port, context);
  const type = metadata ? 'localport' : virtual ? 'virtual' : '';
  const { portSecurity, extraMacs } = allowedAddresses(port);
  const address = [port.mac_address, ...port.fixed_ips.map((ip) => ip.ip_address)].join(' ');
  const addresses: string[] = [];
  if (portSecurity.length > 0 || type || dhcp4 || dhcp6) addresses.push(address, ...extraMacs);
  // Without port security the port may send from any MAC: OVN needs "unknown" for that.
  if (portSecurity.length === 0 && !type) addresses.push('unknown');
  if (isUnboundLbVip(port)) addresses.length = 0;
  const trusted = isTrustedPort(port);
  const securityGroups = trusted ? [] : [...port.security_groups];
  // `_get_port_options`: every port but localport, router and vtep ones.
  const options: StringMap = { ...virtual, ...(type === 'localport' ? {} : { mcast_flood_reports: 'true' }) };
  const profile = port['binding:profile'];
  // A virtual port is bound wherever a parent holds its address; its host only reports that.
  if (port['binding:host_id'] && !virtual) Object.assign(options, requestedChassis(port['binding:host_id'], profile));
  const external_ids = switchPortExternalIds(port, context, securityGroups);
  const lsp: SwitchPortSpec = {
    name: port.id,
    type,
    addresses,
    port_security: portSecurity,
    enabled: port.admin_state_up,
    tag_request: null,
    parent_name: typeof profile.parent_name === 'string' ? profile.parent_name : null,
    tag: typeof profile.tag === 'number' ? profile.tag : null,
    options,
    external_ids,
    dhcpv4_options: dhcp4?.ref ?? null,
    dhcpv6_options: dhcp6?.ref ?? null,
  };
  const portGroups = securityGroups.map(portGroupName);
  if (!trusted && portSecurity.length > 0) portGroups.unshift(DROP_PORT_GROUP);
  const own = [dhcp4?.own, dhcp6?.own].filter((row): row is DhcpOptionsSpec => row !== undefined);
  return { port: lsp, dhcpOptions: own, portGroups };
}

/** `LB_VIP_PORT_PREFIX`: ovn-octavia-provider names its VIP ports `ovn-lb-vip-<load balancer id>`. */
const LB_VIP_PORT_PREFIX = 'ovn-lb-vip-';

/**
 * ML2/OVN's `create_port`/`update_port` (bug 1789686): an OVN load balancer's VIP port, unbound and
 * without an owner, gets no addresses, so that no ARP responder or static binding answers for the
 * VIP with the port's MAC (a port nothing binds) instead of the load balancer.
 */
function isUnboundLbVip(port: PortState): boolean {
  return port.name.startsWith(LB_VIP_PORT_PREFIX) && !port.device_owner && port['binding:vif_type'] === 'unbound';
}

/** `get_external_ids_from_port`: what every Neutron LSP carries (`neutron:port_name` marks it as ours). */
function switchPortExternalIds(port: PortState, context: PortContext, securityGroups: readonly string[]): StringMap {
  const cidrs = port.fixed_ips
    .filter((ip) => context.subnets.has(ip.subnet_id))
    .map((ip) => `${ip.ip_address}/${context.subnets.get(ip.subnet_id)!.cidr.split('/')[1]}`)
    .join(' ');
  const profile = port['binding:profile'];
  // Only joined into text, so the items need no type.
  const capabilities: readonly unknown[] = Array.isArray(profile.capabilities) ? profile.capabilities : [];
  const external_ids: StringMap = {
    'neutron:port_name': port.name,
    'neutron:device_id': port.device_id,
    'neutron:project_id': port.project_id,
    'neutron:cidrs': cidrs,
    'neutron:device_owner': port.device_owner,
    'neutron:subnet_pool_addr_scope4': '',
    'neutron:subnet_pool_addr_scope6': '',
    'neutron:network_name': logicalSwitchName(port.network_id),
    'neutron:security_group_ids': securityGroups.join(' '),
    'neutron:revision_number': String(port.revision_number),
    'neutron:vnic_type': port['binding:vnic_type'],
    'neutron:port_capabilities': capabilities.join(';'),
    'neutron:mtu': isMetadataPort(port) ? String(context.network.mtu) : '',
  };
  if (port.status === 'ACTIVE' && port['binding:host_id']) external_ids['neutron:host_id'] = port['binding:host_id'];
  if (context.floatingIp) external_ids[PORT_FIP_EXT_ID] = context.floatingIp;
  return external_ids;
}

// ---------------------------------------------------------------------------------------------
// Security groups: Port_Group with one ACL per rule (`create_security_group`, `acl.py`)

export function securityGroupPortGroup(group: SecurityGroupState): PortGroupSpec {
  const name = portGroupName(group.id);
  const acls: AclSpec[] = [];
  const seen = new Set<string>();
  for (const rule of group.rules) {
    const spec = acl(name, group.stateful, rule);
    // Rules that make the same match share one ACL (pg_acl_add with may_exist): the first keeps it.
    const key = `${spec.direction}|${spec.priority}|${spec.match}`;
    if (seen.has(key)) continue;
    seen.add(key);
    acls.push(spec);
  }
  return { name, external_ids: { 'neutron:security_group_id': group.id }, acls };
}

/** `neutron_pg_drop`: drops all IP traffic of its members unless a group's ACL allows it. */
export function dropPortGroup(): PortGroupSpec {
  const drop = (direction: 'from-lport' | 'to-lport', port: 'inport' | 'outport'): AclSpec => ({
    direction,
    priority: DROP_PRIORITY,
    match: `${port} == @${DROP_PORT_GROUP} && ip`,
    action: 'drop',
    log: false,
    name: null,
    severity: null,
    meter: null,
    external_ids: {},
  });
  return { name: DROP_PORT_GROUP, external_ids: {}, acls: [drop('from-lport', 'inport'), drop('to-lport', 'outport')] };
}

export type { AclSpec };
