/**
 * Decoded row types of the OVN_Northbound tables octonet reads and writes, written from
 * `/usr/share/ovn/ovn-nb.ovsschema` (OVN 23.03, schema 7.0.0) in the shapes wire.ts decodes to:
 * a required column is its value, an optional one the value or `null`, a set a readonly array,
 * a map a readonly record keyed by the stringified key; uuids (references included) are strings.
 * Column meanings are in ovn-nb(5).
 *
 * This module owns types only. A column an older OVN lacks is absent at run time (the client
 * skips it with a warning), so code that must run against such servers should not rely on it.
 */
import type { Row } from './wire.js';

/** `NB_Global`: the one row of northbound configuration: `nb_cfg` sequence numbers, global options, connections. */
export interface NbGlobalRow extends Row {
  /** Connection uuids */
  readonly connections: readonly string[];
  readonly external_ids: Readonly<Record<string, string>>;
  readonly hv_cfg: number;
  readonly hv_cfg_timestamp: number;
  readonly ipsec: boolean;
  readonly name: string;
  readonly nb_cfg: number;
  readonly nb_cfg_timestamp: number;
  readonly options: Readonly<Record<string, string>>;
  readonly sb_cfg: number;
  readonly sb_cfg_timestamp: number;
  /** SSL uuid */
  readonly ssl: string | null;
}

/** `Logical_Switch`: an L2 logical switch (a Neutron network). */
export interface LogicalSwitchRow extends Row {
  /** ACL uuids */
  readonly acls: readonly string[];
  /** Copp uuid */
  readonly copp: string | null;
  /** DNS uuids */
  readonly dns_records: readonly string[];
  readonly external_ids: Readonly<Record<string, string>>;
  /** Forwarding_Group uuids */
  readonly forwarding_groups: readonly string[];
  /** Load_Balancer uuids */
  readonly load_balancer: readonly string[];
  /** Load_Balancer_Group uuids */
  readonly load_balancer_group: readonly string[];
  readonly name: string;
  readonly other_config: Readonly<Record<string, string>>;
  /** Logical_Switch_Port uuids */
  readonly ports: readonly string[];
  /** QoS uuids */
  readonly qos_rules: readonly string[];
}

/** `Logical_Switch_Port`: a port of a logical switch (a Neutron port); `up` is written by ovn-northd. */
export interface LogicalSwitchPortRow extends Row {
  readonly addresses: readonly string[];
  /** DHCP_Options uuid */
  readonly dhcpv4_options: string | null;
  /** DHCP_Options uuid */
  readonly dhcpv6_options: string | null;
  readonly dynamic_addresses: string | null;
  readonly enabled: boolean | null;
  readonly external_ids: Readonly<Record<string, string>>;
  /** HA_Chassis_Group uuid */
  readonly ha_chassis_group: string | null;
  /** Mirror uuids */
  readonly mirror_rules: readonly string[];
  readonly name: string;
  readonly options: Readonly<Record<string, string>>;
  readonly parent_name: string | null;
  readonly port_security: readonly string[];
  readonly tag: number | null;
  readonly tag_request: number | null;
  readonly type: string;
  readonly up: boolean | null;
}

/** `DHCP_Options`: native DHCP options for one CIDR (a Neutron subnet), referenced by ports. */
export interface DhcpOptionsRow extends Row {
  readonly cidr: string;
  readonly external_ids: Readonly<Record<string, string>>;
  readonly options: Readonly<Record<string, string>>;
}

/** `Port_Group`: a named set of switch ports that ACLs apply to (a Neutron security group). */
export interface PortGroupRow extends Row {
  /** ACL uuids */
  readonly acls: readonly string[];
  readonly external_ids: Readonly<Record<string, string>>;
  readonly name: string;
  /** Logical_Switch_Port uuids */
  readonly ports: readonly string[];
}

/** `ACL`: an access-control rule on a switch or port group (a security group rule). */
export interface AclRow extends Row {
  readonly action: 'allow' | 'allow-related' | 'allow-stateless' | 'drop' | 'reject';
  readonly direction: 'from-lport' | 'to-lport';
  readonly external_ids: Readonly<Record<string, string>>;
  readonly label: number;
  readonly log: boolean;
  readonly match: string;
  readonly meter: string | null;
  readonly name: string | null;
  readonly options: Readonly<Record<string, string>>;
  readonly priority: number;
  readonly severity: 'alert' | 'warning' | 'notice' | 'info' | 'debug' | null;
}

/** `Address_Set`: a named set of addresses that ACL matches can refer to. */
export interface AddressSetRow extends Row {
  readonly addresses: readonly string[];
  readonly external_ids: Readonly<Record<string, string>>;
  readonly name: string;
}

/** `DNS`: DNS records a switch answers for its ports. */
export interface DnsRow extends Row {
  readonly external_ids: Readonly<Record<string, string>>;
  readonly records: Readonly<Record<string, string>>;
}

/** `HA_Chassis_Group`: a set of chassis, by priority, that host a port in turn (external ports, gateways). */
export interface HaChassisGroupRow extends Row {
  readonly external_ids: Readonly<Record<string, string>>;
  /** HA_Chassis uuids */
  readonly ha_chassis: readonly string[];
  readonly name: string;
}

/** `HA_Chassis`: one chassis and its priority in an `HA_Chassis_Group`. */
export interface HaChassisRow extends Row {
  readonly chassis_name: string;
  readonly external_ids: Readonly<Record<string, string>>;
  readonly priority: number;
}

/** `Gateway_Chassis`: one chassis and its priority for a distributed gateway router port. */
export interface GatewayChassisRow extends Row {
  readonly chassis_name: string;
  readonly external_ids: Readonly<Record<string, string>>;
  readonly name: string;
  readonly options: Readonly<Record<string, string>>;
  readonly priority: number;
}

/** `Logical_Router`: an L3 logical router (a Neutron router). */
export interface LogicalRouterRow extends Row {
  /** Copp uuid */
  readonly copp: string | null;
  readonly enabled: boolean | null;
  readonly external_ids: Readonly<Record<string, string>>;
  /** Load_Balancer uuids */
  readonly load_balancer: readonly string[];
  /** Load_Balancer_Group uuids */
  readonly load_balancer_group: readonly string[];
  readonly name: string;
  /** NAT uuids */
  readonly nat: readonly string[];
  readonly options: Readonly<Record<string, string>>;
  /** Logical_Router_Policy uuids */
  readonly policies: readonly string[];
  /** Logical_Router_Port uuids */
  readonly ports: readonly string[];
  /** Logical_Router_Static_Route uuids */
  readonly static_routes: readonly string[];
}

/** `Logical_Router_Port`: a router interface; `gateway_chassis`/`ha_chassis_group` make it a gateway port. */
export interface LogicalRouterPortRow extends Row {
  readonly enabled: boolean | null;
  readonly external_ids: Readonly<Record<string, string>>;
  /** Gateway_Chassis uuids */
  readonly gateway_chassis: readonly string[];
  /** HA_Chassis_Group uuid */
  readonly ha_chassis_group: string | null;
  readonly ipv6_prefix: readonly string[];
  readonly ipv6_ra_configs: Readonly<Record<string, string>>;
  readonly mac: string;
  readonly name: string;
  readonly networks: readonly string[];
  readonly options: Readonly<Record<string, string>>;
  readonly peer: string | null;
}

/** `Logical_Router_Static_Route`: a static route of a router. */
export interface LogicalRouterStaticRouteRow extends Row {
  /** BFD uuid */
  readonly bfd: string | null;
  readonly external_ids: Readonly<Record<string, string>>;
  readonly ip_prefix: string;
  readonly nexthop: string;
  readonly options: Readonly<Record<string, string>>;
  readonly output_port: string | null;
  readonly policy: 'src-ip' | 'dst-ip' | null;
  readonly route_table: string;
}

/** `NAT`: an SNAT, DNAT or DNAT-and-SNAT rule of a router (floating IPs, router gateways). */
export interface NatRow extends Row {
  /** Address_Set uuid */
  readonly allowed_ext_ips: string | null;
  /** Address_Set uuid */
  readonly exempted_ext_ips: string | null;
  readonly external_ids: Readonly<Record<string, string>>;
  readonly external_ip: string;
  readonly external_mac: string | null;
  readonly external_port_range: string;
  /** Logical_Router_Port uuid */
  readonly gateway_port: string | null;
  readonly logical_ip: string;
  readonly logical_port: string | null;
  readonly options: Readonly<Record<string, string>>;
  readonly type: 'dnat' | 'snat' | 'dnat_and_snat';
}

/** `Load_Balancer`: VIPs and their backends, attached to switches and routers. */
export interface LoadBalancerRow extends Row {
  readonly external_ids: Readonly<Record<string, string>>;
  /** Load_Balancer_Health_Check uuids */
  readonly health_check: readonly string[];
  readonly ip_port_mappings: Readonly<Record<string, string>>;
  readonly name: string;
  readonly options: Readonly<Record<string, string>>;
  readonly protocol: 'tcp' | 'udp' | 'sctp' | null;
  readonly selection_fields: readonly ('eth_src' | 'eth_dst' | 'ip_src' | 'ip_dst' | 'tp_src' | 'tp_dst')[];
  readonly vips: Readonly<Record<string, string>>;
}

/** `Meter`: a rate limiter (bands), e.g. for ACL logging. */
export interface MeterRow extends Row {
  /** Meter_Band uuids */
  readonly bands: readonly string[];
  readonly external_ids: Readonly<Record<string, string>>;
  readonly fair: boolean | null;
  readonly name: string;
  readonly unit: 'kbps' | 'pktps';
}

/** `QoS`: a rate limit (`bandwidth`) and/or DSCP mark (`action`) on a switch's traffic that `match`es. */
export interface QosRow extends Row {
  readonly priority: number;
  readonly direction: 'from-lport' | 'to-lport';
  readonly match: string;
  readonly action: Readonly<Record<string, number>>;
  readonly bandwidth: Readonly<Record<string, number>>;
  readonly external_ids: Readonly<Record<string, string>>;
}

/** Table name → row type, for `OvsdbClient<NbTables>` and `operationsFor<NbTables>()`. */
export type NbTables = {
  NB_Global: NbGlobalRow;
  Logical_Switch: LogicalSwitchRow;
  Logical_Switch_Port: LogicalSwitchPortRow;
  DHCP_Options: DhcpOptionsRow;
  Port_Group: PortGroupRow;
  ACL: AclRow;
  Address_Set: AddressSetRow;
  DNS: DnsRow;
  HA_Chassis_Group: HaChassisGroupRow;
  HA_Chassis: HaChassisRow;
  Gateway_Chassis: GatewayChassisRow;
  Logical_Router: LogicalRouterRow;
  Logical_Router_Port: LogicalRouterPortRow;
  Logical_Router_Static_Route: LogicalRouterStaticRouteRow;
  NAT: NatRow;
  Load_Balancer: LoadBalancerRow;
  Meter: MeterRow;
  QoS: QosRow;
};

/** The tables above, for `OvsdbClientOptions.tables` (every column of each). */
export const NB_TABLES: Readonly<Record<keyof NbTables, 'all'>> = {
  NB_Global: 'all',
  Logical_Switch: 'all',
  Logical_Switch_Port: 'all',
  DHCP_Options: 'all',
  Port_Group: 'all',
  ACL: 'all',
  Address_Set: 'all',
  DNS: 'all',
  HA_Chassis_Group: 'all',
  HA_Chassis: 'all',
  Gateway_Chassis: 'all',
  Logical_Router: 'all',
  Logical_Router_Port: 'all',
  Logical_Router_Static_Route: 'all',
  NAT: 'all',
  Load_Balancer: 'all',
  Meter: 'all',
  QoS: 'all',
};
