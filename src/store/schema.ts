/**
 * The database schema as TypeScript types, one interface per table.
 *
 * Column conventions (shared by SQLite and PostgreSQL so one suite tests both):
 * - ids are UUID text; timestamps are `YYYY-MM-DDTHH:MM:SSZ` text, as the API prints them;
 * - booleans are real booleans on PostgreSQL and 0/1 on SQLite (`DbBool`; read with `toBool`);
 * - short lists that are never filtered on (allocation pools, host routes, ...) are JSON text;
 * - resource rows are written through `rows.ts`, which takes booleans and JSON values as such and
 *   encodes them for the dialect;
 * - "no value" in a uniqueness key is '' or 0, never NULL, since NULLs never collide in a unique index.
 */
export type DbBool = number | boolean;

export function toBool(value: DbBool | null | undefined): boolean {
  return value === true || value === 1;
}

/** Columns every resource with Neutron's standard attributes carries. */
export interface StandardColumns {
  description: string;
  revision_number: number;
  created_at: string;
  updated_at: string;
}

export interface NetworkTable extends StandardColumns {
  id: string;
  project_id: string;
  name: string;
  admin_state_up: DbBool;
  status: string;
  mtu: number;
  port_security_enabled: DbBool;
  dns_domain: string;
  /** JSON array of availability zone names. */
  availability_zone_hints: string;
}

/** A network's `router:external` flag (Neutron's externalnetworks table). */
export interface ExternalNetworkTable {
  network_id: string;
  is_default: DbBool;
}

/** Who may use a network besides its owner: `*` or one project, as shared or as external. */
export interface NetworkRbacTable {
  id: string;
  project_id: string;
  object_id: string;
  target_project: string;
  action: string;
}

export interface NetworkSegmentTable {
  id: string;
  network_id: string;
  network_type: string;
  /** '' for tunnel types. */
  physical_network: string;
  /** 0 for flat networks. */
  segmentation_id: number;
  segment_index: number;
}

export interface SubnetTable extends StandardColumns {
  id: string;
  /** The pool the CIDR was allocated from (subnet_allocation); null for a CIDR given outright. */
  subnetpool_id?: string | null;
  project_id: string;
  network_id: string;
  name: string;
  ip_version: number;
  cidr: string;
  gateway_ip: string | null;
  enable_dhcp: DbBool;
  ipv6_ra_mode: string | null;
  ipv6_address_mode: string | null;
  /** JSON `[{start, end}]` in the order given. */
  allocation_pools: string;
  /** JSON array of addresses, in order. */
  dns_nameservers: string;
  /** JSON `[{destination, nexthop}]`. */
  host_routes: string;
  /** JSON array of device_owner strings. */
  service_types: string;
  dns_publish_fixed_ip: DbBool;
  /** Creation order among the network's subnets (the `subnets` list order). */
  position: number;
}

export interface PortTable extends StandardColumns {
  id: string;
  project_id: string;
  network_id: string;
  name: string;
  mac_address: string;
  admin_state_up: DbBool;
  status: string;
  device_id: string;
  device_owner: string;
  port_security_enabled: DbBool;
  dns_name: string;
  dns_domain: string;
  ip_allocation: string;
  binding_host_id: string;
  binding_vnic_type: string;
  /** JSON object. */
  binding_profile: string;
  binding_vif_type: string;
  /** JSON object. */
  binding_vif_details: string;
}

/** A port's binding on a host other than its active one (INACTIVE, `binding-extended`). */
export interface PortBindingTable {
  port_id: string;
  host: string;
  vnic_type: string;
  /** JSON object. */
  profile: string;
  vif_type: string;
  /** JSON object. */
  vif_details: string;
}

export interface IpAllocationTable {
  port_id: string;
  network_id: string;
  subnet_id: string;
  ip_address: string;
}

export interface AllowedAddressPairTable {
  port_id: string;
  mac_address: string;
  ip_address: string;
}

export interface ExtraDhcpOptTable {
  port_id: string;
  opt_name: string;
  opt_value: string;
  ip_version: number;
}

export interface PortSecurityGroupTable {
  port_id: string;
  security_group_id: string;
}

export interface SecurityGroupTable extends StandardColumns {
  id: string;
  project_id: string;
  name: string;
  stateful: DbBool;
}

/** One row per project: which of its security groups is `default`. */
export interface DefaultSecurityGroupTable {
  project_id: string;
  security_group_id: string;
}

export interface SecurityGroupRuleTable extends Omit<StandardColumns, 'description'> {
  /** null for rules made from the default-rule templates, as Neutron returns them. */
  description: string | null;
  id: string;
  project_id: string;
  security_group_id: string;
  remote_group_id: string | null;
  direction: string;
  ethertype: string;
  protocol: string | null;
  port_range_min: number | null;
  port_range_max: number | null;
  remote_ip_prefix: string | null;
}

export interface QuotaTable {
  project_id: string;
  resource: string;
  limit: number;
}

export interface TagTable {
  resource_type: string;
  resource_id: string;
  tag: string;
}

export interface RouterTable extends StandardColumns {
  id: string;
  project_id: string;
  name: string;
  admin_state_up: DbBool;
  status: string;
  enable_snat: DbBool;
  /** The `network:router_gateway` port; null without a gateway. */
  gw_port_id: string | null;
  /** JSON array of availability zone names. */
  availability_zone_hints: string;
}

export interface RouterRouteTable {
  router_id: string;
  destination: string;
  nexthop: string;
}

/** An operator's pin of a router's gateway to an agent (chassis); lower position is preferred. */
export interface RouterL3AgentTable {
  router_id: string;
  agent_id: string;
  position: number;
}

export interface FloatingIpTable extends StandardColumns {
  id: string;
  project_id: string;
  floating_network_id: string;
  /** The floating IP's own `network:floatingip` port on the external network. */
  floating_port_id: string;
  floating_ip_address: string;
  /** The associated port and address; NULL (not '') when unassociated, see migration 0002. */
  fixed_port_id: string | null;
  fixed_ip_address: string | null;
  router_id: string | null;
  status: string;
  dns_name: string;
  dns_domain: string;
}

export interface SubnetPoolTable extends StandardColumns {
  id: string;
  project_id: string;
  name: string;
  ip_version: number;
  default_prefixlen: number;
  min_prefixlen: number;
  max_prefixlen: number;
  default_quota: number | null;
  is_default: DbBool;
  shared: DbBool;
  /** The pool's address scope (`address-scope`); null for none. */
  address_scope_id?: string | null;
}

export interface SubnetPoolPrefixTable {
  subnetpool_id: string;
  cidr: string;
}

export interface AddressScopeTable {
  id: string;
  project_id: string;
  name: string;
  shared: DbBool;
  ip_version: number;
}

/** AS numbers are `bigint` columns: PostgreSQL hands them back as strings (read with `Number`). */
export interface BgpSpeakerTable {
  id: string;
  project_id: string;
  name: string;
  local_as: number | string;
  ip_version: number;
  advertise_floating_ip_host_routes: DbBool;
  advertise_tenant_networks: DbBool;
}

export interface BgpPeerTable {
  id: string;
  project_id: string;
  name: string;
  peer_ip: string;
  remote_as: number | string;
  auth_type: string;
  /** The MD5 secret; never returned by the API. */
  password: string | null;
}

export interface BgpSpeakerPeerBindingTable {
  bgp_speaker_id: string;
  bgp_peer_id: string;
}

export interface BgpSpeakerNetworkBindingTable {
  bgp_speaker_id: string;
  network_id: string;
  ip_version: number;
}

/** The DR agent (an SB chassis' `octonet:bgp-agent-id`) that hosts a speaker; one speaker per agent. */
export interface BgpSpeakerDrAgentBindingTable {
  agent_id: string;
  bgp_speaker_id: string;
}

/** A QoS policy (`qos` service plugin); `is_default` lives in `qos_policy_defaults`. */
export interface QosPolicyTable extends StandardColumns {
  id: string;
  project_id: string;
  name: string;
  shared: DbBool;
}

/** A QoS rule of any type; the columns of other types are null, `direction` '' where it has none. */
export interface QosRuleTable {
  id: string;
  qos_policy_id: string;
  type: string;
  direction: string;
  max_kbps: number | null;
  max_burst_kbps: number | null;
  dscp_mark: number | null;
  min_kbps: number | null;
  created_at: string;
}

/** A project's default QoS policy (`qos-default`): given to its new networks that name none. */
export interface QosPolicyDefaultTable {
  project_id: string;
  qos_policy_id: string;
}

export interface QosPortBindingTable {
  port_id: string;
  policy_id: string;
}

export interface QosNetworkBindingTable {
  network_id: string;
  policy_id: string;
}

/** One row (`id` 1): the deployment's identity, see migrations/0007-deployment-identity.ts. */
export interface DeploymentTable {
  id: number;
  deployment_id: string;
  created_at: string;
}

export interface Schema {
  octonet_deployment: DeploymentTable;
  networks: NetworkTable;
  external_networks: ExternalNetworkTable;
  network_rbacs: NetworkRbacTable;
  network_segments: NetworkSegmentTable;
  subnets: SubnetTable;
  ports: PortTable;
  port_bindings: PortBindingTable;
  ip_allocations: IpAllocationTable;
  allowed_address_pairs: AllowedAddressPairTable;
  extra_dhcp_opts: ExtraDhcpOptTable;
  port_security_groups: PortSecurityGroupTable;
  security_groups: SecurityGroupTable;
  default_security_groups: DefaultSecurityGroupTable;
  security_group_rules: SecurityGroupRuleTable;
  quotas: QuotaTable;
  tags: TagTable;
  routers: RouterTable;
  router_routes: RouterRouteTable;
  router_l3_agents: RouterL3AgentTable;
  floatingips: FloatingIpTable;
  subnetpools: SubnetPoolTable;
  subnetpool_prefixes: SubnetPoolPrefixTable;
  address_scopes: AddressScopeTable;
  bgp_speakers: BgpSpeakerTable;
  bgp_peers: BgpPeerTable;
  bgp_speaker_peer_bindings: BgpSpeakerPeerBindingTable;
  bgp_speaker_network_bindings: BgpSpeakerNetworkBindingTable;
  bgp_speaker_dragent_bindings: BgpSpeakerDrAgentBindingTable;
  qos_policies: QosPolicyTable;
  /** RBAC entries on QoS policies: the same columns as `network_rbacs` (migration 0008). */
  qos_policy_rbacs: NetworkRbacTable;
  qos_rules: QosRuleTable;
  qos_policy_defaults: QosPolicyDefaultTable;
  qos_port_policy_bindings: QosPortBindingTable;
  qos_network_policy_bindings: QosNetworkBindingTable;
}
