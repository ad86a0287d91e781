/**
 * What core offers a mechanism driver beyond the hook contexts: a read-only view of the database in
 * Neutron's own shapes (for level-triggered reconciles and repair), and the few writes a driver
 * reports back (port status from the data plane, the metadata port ML2/OVN keeps per network).
 *
 * The shapes are the admin views of the API with the attributes drivers use, typed; they carry no
 * database rows, so a driver never depends on the store's schema.
 */

export interface SegmentState {
  readonly id: string;
  readonly network_type: string;
  readonly physical_network: string | null;
  readonly segmentation_id: number | null;
}

export interface NetworkState {
  readonly id: string;
  readonly name: string;
  readonly project_id: string;
  readonly mtu: number;
  readonly admin_state_up: boolean;
  readonly shared: boolean;
  readonly 'router:external': boolean;
  readonly port_security_enabled: boolean;
  readonly availability_zone_hints: readonly string[];
  readonly 'provider:network_type': string | null;
  readonly 'provider:physical_network': string | null;
  readonly 'provider:segmentation_id': number | null;
  readonly segments: readonly SegmentState[];
  /** The QoS policy of the network (its ports without one of their own follow it). */
  readonly qos_policy_id: string | null;
  readonly revision_number: number;
}

export interface HostRoute {
  readonly destination: string;
  readonly nexthop: string;
}

export interface SubnetState {
  readonly id: string;
  readonly name: string;
  readonly network_id: string;
  readonly project_id: string;
  readonly ip_version: 4 | 6;
  readonly cidr: string;
  readonly gateway_ip: string | null;
  readonly enable_dhcp: boolean;
  readonly dns_nameservers: readonly string[];
  readonly host_routes: readonly HostRoute[];
  readonly ipv6_ra_mode: string | null;
  readonly ipv6_address_mode: string | null;
  readonly subnetpool_id: string | null;
  readonly revision_number: number;
}

export interface FixedIp {
  readonly subnet_id: string;
  readonly ip_address: string;
}

export interface AddressPair {
  readonly ip_address: string;
  readonly mac_address: string;
}

export interface ExtraDhcpOpt {
  readonly opt_name: string;
  readonly opt_value: string;
  readonly ip_version: number;
}

export interface PortState {
  readonly id: string;
  readonly name: string;
  readonly network_id: string;
  readonly project_id: string;
  readonly mac_address: string;
  readonly fixed_ips: readonly FixedIp[];
  readonly admin_state_up: boolean;
  readonly status: string;
  readonly device_id: string;
  readonly device_owner: string;
  readonly port_security_enabled: boolean;
  readonly security_groups: readonly string[];
  readonly allowed_address_pairs: readonly AddressPair[];
  readonly extra_dhcp_opts: readonly ExtraDhcpOpt[];
  readonly 'binding:host_id': string;
  readonly 'binding:vnic_type': string;
  readonly 'binding:profile': Readonly<Record<string, unknown>>;
  readonly 'binding:vif_type': string;
  /** The port's own QoS policy (`qos_policy_id`), and its network's (`qos_network_policy_id`). */
  readonly qos_policy_id: string | null;
  readonly qos_network_policy_id: string | null;
  readonly revision_number: number;
}

/** A QoS rule; the attributes of other rule types are null, `direction` '' where the type has none. */
export interface QosRuleState {
  readonly id: string;
  readonly type: string;
  readonly direction: string;
  readonly max_kbps: number | null;
  readonly max_burst_kbps: number | null;
  readonly dscp_mark: number | null;
  readonly min_kbps: number | null;
}

/** A QoS policy as drivers hear of it: a change of its rules reaches every port that uses it. */
export interface QosPolicyState {
  readonly id: string;
  readonly revision_number: number;
  readonly rules: readonly QosRuleState[];
}

export interface SecurityGroupRuleState {
  readonly id: string;
  readonly security_group_id: string;
  readonly direction: 'ingress' | 'egress';
  readonly ethertype: 'IPv4' | 'IPv6';
  readonly protocol: string | null;
  /** `protocol` as an IP protocol number (names resolved as Neutron does); null for any. */
  readonly protocol_number: number | null;
  readonly port_range_min: number | null;
  readonly port_range_max: number | null;
  readonly remote_ip_prefix: string | null;
  readonly remote_group_id: string | null;
  readonly normalized_cidr: string | null;
}

export interface SecurityGroupState {
  readonly id: string;
  readonly name: string;
  readonly project_id: string;
  readonly stateful: boolean;
  readonly revision_number: number;
  readonly rules: readonly SecurityGroupRuleState[];
}

export interface ExternalGatewayInfo {
  readonly network_id: string;
  readonly enable_snat: boolean;
  readonly external_fixed_ips: readonly FixedIp[];
}

export interface RouterState {
  readonly id: string;
  readonly name: string;
  readonly project_id: string;
  readonly admin_state_up: boolean;
  readonly external_gateway_info: ExternalGatewayInfo | null;
  /** The gateway port (`network:router_gateway` on the external network), when there is a gateway. */
  readonly gw_port_id: string | null;
  readonly routes: readonly HostRoute[];
  readonly availability_zone_hints: readonly string[];
  /**
   * Where an operator pinned the gateway (`POST /v2.0/agents/<id>/l3-routers`): agent (chassis)
   * ids, most preferred first; empty means "schedule it yourself".
   */
  readonly l3_agents: readonly string[];
  readonly revision_number: number;
}

export interface FloatingIpState {
  readonly id: string;
  readonly project_id: string;
  readonly floating_ip_address: string;
  readonly floating_network_id: string;
  readonly router_id: string | null;
  readonly port_id: string | null;
  readonly fixed_ip_address: string | null;
  readonly status: string;
  readonly revision_number: number;
}

/** Everything a full comparison needs, read in one pass. */
export interface Snapshot {
  readonly networks: readonly NetworkState[];
  readonly subnets: readonly SubnetState[];
  readonly ports: readonly PortState[];
  readonly securityGroups: readonly SecurityGroupState[];
  readonly routers: readonly RouterState[];
  readonly floatingIps: readonly FloatingIpState[];
}

/** Reads the database as an admin sees it. Undefined or empty means "not (or no longer) there". */
export interface ResourceReader {
  network(id: string): Promise<NetworkState | undefined>;
  subnet(id: string): Promise<SubnetState | undefined>;
  subnetsOfNetwork(networkId: string): Promise<SubnetState[]>;
  subnets(ids: readonly string[]): Promise<SubnetState[]>;
  port(id: string): Promise<PortState | undefined>;
  /** Ports on a network, optionally only those with an address on one subnet. */
  portsOfNetwork(networkId: string, subnetId?: string): Promise<PortState[]>;
  /** The network's `network:distributed` port, if it has one. */
  metadataPort(networkId: string): Promise<PortState | undefined>;
  /**
   * For each address, the ports on the network that list it among their allowed address pairs
   * (by id): a port holding such an address as a fixed IP is a virtual port with those parents.
   */
  addressPairHolders(networkId: string, addresses: readonly string[]): Promise<ReadonlyMap<string, readonly string[]>>;
  /** Ports on the network holding any of these addresses as a fixed IP. */
  portsWithAddresses(networkId: string, addresses: readonly string[]): Promise<PortState[]>;
  securityGroup(id: string): Promise<SecurityGroupState | undefined>;
  /** Ids of the ports that are members of a security group. */
  portIdsOfSecurityGroup(id: string): Promise<string[]>;
  router(id: string): Promise<RouterState | undefined>;
  /** The router's interface and gateway ports (`device_id` = router, `network:router_*` owners). */
  portsOfRouter(id: string): Promise<PortState[]>;
  floatingIp(id: string): Promise<FloatingIpState | undefined>;
  /** Floating IPs held through a router (for its NAT rows). */
  floatingIpsOfRouter(routerId: string): Promise<FloatingIpState[]>;
  /** The rules of each QoS policy (absent: no such policy, or no rules). */
  qosRules(policyIds: readonly string[]): Promise<ReadonlyMap<string, readonly QosRuleState[]>>;
  /** Ids of the ports that use a QoS policy, their own or through their network. */
  portIdsUsingQosPolicy(policyId: string): Promise<string[]>;
  /** Floating IPs associated with a port (its LSP names one of them: `neutron:port_fip`). */
  floatingIpsOfPort(portId: string): Promise<FloatingIpState[]>;
  snapshot(): Promise<Snapshot>;
}

export interface DriverHost {
  readonly reader: ResourceReader;
  /**
   * The data plane says whether the port's VIF is up. Core applies Neutron's rules (only a bound
   * port with `admin_state_up` goes ACTIVE) and, when the status changes, bumps the revision and
   * runs the drivers' update hooks like any other port update.
   */
  reportPortUp(portId: string, up: boolean): Promise<void>;
  /**
   * A virtual port (a VIP) is now held on `host` (a chassis hostname), or nowhere (''): core makes
   * it the port's `binding:host_id` (the binding stays unbound, as in ML2/OVN) and the status ACTIVE
   * while held. Resolves the port as it now is when anything changed, undefined otherwise.
   */
  reportVirtualPortHost(portId: string, host: string): Promise<PortState | undefined>;
  /**
   * Creates the network's metadata port when it has none, and gives it one address on each IPv4
   * subnet with DHCP (none on the others), as ML2/OVN's `update_metadata_port` does.
   */
  ensureMetadataPort(networkId: string): Promise<void>;
  /** The data plane says a floating IP's NAT is (not) in place: `ACTIVE` / `DOWN`, as ML2/OVN sets it. */
  reportFloatingIpStatus(id: string, status: 'ACTIVE' | 'DOWN'): Promise<void>;
  /**
   * Runs `fn` only while this process holds the named lock among all replicas sharing the
   * database (PostgreSQL advisory lock); resolves false without running it when another holds it.
   */
  exclusively(name: string, fn: () => Promise<void>): Promise<boolean>;
}
