/**
 * Routers and floating IPs → the OVN northbound rows ML2/OVN writes for them (`create_router`,
 * `_create_lrouter_port`, `_add_router_ext_gw`, `update_nat_rules`, `_create_or_update_floatingip`
 * in `ovn_client.py`): pure functions, no I/O.
 *
 * - one `Logical_Router` `neutron-<router>`;
 * - one `Logical_Router_Port` `lrp-<port>` per interface port and for the gateway port, whose
 *   peer LSP is a `router` type port (see `mapping.ts`);
 * - the gateway LRP's `gateway_chassis`: one `Gateway_Chassis` row `lrp-<port>_<chassis>` per
 *   scheduled chassis, priorities N down to 1 in scheduling order, or the single placeholder
 *   `neutron-ovn-invalid-chassis` when no chassis can take it (Zed's form: `_create_lrouter_port`,
 *   `commands.py:_add_gateway_chassis`, `l3_ovn_scheduler.py`). Neutron 2023.2 moved to an
 *   `HA_Chassis_Group`; Zed's ovn-octavia-provider recognises a gateway port only by this column;
 * - a default route per gateway subnet with a gateway IP, and the extra routes;
 * - `snat` from each gateway IPv4 address for each attached IPv4 subnet (the per-subnet form, which
 *   master keeps when `ovn_router_indirect_snat` is off and Zed always wrote);
 * - a `dnat_and_snat` per associated floating IP, centralised on the gateway chassis (no
 *   `external_mac`: `enable_distributed_floating_ip` is off, as in ML2/OVN's default); with the
 *   option on, `external_mac` is the fixed port's MAC, so the NAT happens on the chassis that binds
 *   `logical_port` and north-south traffic leaves from there (`_create_or_update_floatingip`).
 */
import type { FloatingIpState, NetworkState, PortState, RouterState, SubnetState } from '../host.js';
import type { StringMap } from './mapping.js';

export const ROUTER_INTERFACE_OWNERS = ['network:router_interface', 'network:router_interface_distributed'];
export const ROUTER_GATEWAY_OWNER = 'network:router_gateway';
/**
 * `OVN_GATEWAY_INVALID_CHASSIS`: what Zed's scheduler writes when no chassis can take a gateway, so
 * that the LRP stays a gateway port (unhosted) until a chassis comes.
 */
export const INVALID_CHASSIS = 'neutron-ovn-invalid-chassis';
/** `MAX_GW_CHASSIS`: most chassis a gateway is scheduled on. */
export const MAX_GATEWAY_CHASSIS = 5;

export const logicalRouterName = (routerId: string): string => `neutron-${routerId}`;
export const routerPortName = (portId: string): string => `lrp-${portId}`;

export function isRouterPort(port: Pick<PortState, 'device_owner'>): boolean {
  return port.device_owner === ROUTER_GATEWAY_OWNER || ROUTER_INTERFACE_OWNERS.includes(port.device_owner);
}

export interface RouterOptions {
  readonly macBindingAgeThreshold: number;
  /** `[ovn] enable_distributed_floating_ip`. */
  readonly distributedFloatingIps?: boolean;
}

export interface LogicalRouterSpec {
  readonly name: string;
  readonly enabled: boolean;
  readonly external_ids: StringMap;
  readonly options: StringMap;
}

export interface RouterPortSpec {
  readonly name: string;
  readonly mac: string;
  readonly networks: readonly string[];
  readonly external_ids: StringMap;
  readonly options: StringMap;
  readonly ipv6_ra_configs: StringMap;
  /** The router's gateway port (it carries the gateway chassis). */
  readonly gateway: boolean;
  /** The gateway port's `Gateway_Chassis` rows, highest priority first; empty for interfaces. */
  readonly gatewayChassis: readonly GatewayChassisSpec[];
}

export interface NatSpec {
  readonly type: 'snat' | 'dnat_and_snat';
  readonly external_ip: string;
  readonly logical_ip: string;
  readonly logical_port: string | null;
  /** Set for a distributed floating IP: the MAC its chassis answers with. */
  readonly external_mac?: string | null;
  readonly options: StringMap;
  readonly external_ids: StringMap;
}

export interface StaticRouteSpec {
  readonly ip_prefix: string;
  readonly nexthop: string;
  readonly external_ids: StringMap;
}

/** A `Gateway_Chassis` row (no `external_ids` or `options`: ML2/OVN writes none). */
export interface GatewayChassisSpec {
  readonly name: string;
  readonly chassis_name: string;
  readonly priority: number;
}

export interface RouterRows {
  readonly router: LogicalRouterSpec;
  readonly ports: readonly RouterPortSpec[];
  readonly nats: readonly NatSpec[];
  readonly routes: readonly StaticRouteSpec[];
}

/** What the router mapping needs besides the router. */
export interface RouterContext {
  /** The router's interface ports and its gateway port. */
  readonly ports: readonly PortState[];
  readonly subnets: ReadonlyMap<string, SubnetState>;
  readonly networks: ReadonlyMap<string, NetworkState>;
  /** Floating IPs held through this router. */
  readonly floatingIps: readonly FloatingIpState[];
  /** MACs of the floating IPs' fixed ports (by port id), for distributed floating IPs. */
  readonly floatingIpPortMacs?: ReadonlyMap<string, string>;
  /** Gateway chassis, most preferred first (see `gateway-scheduler.ts`). */
  readonly gatewayChassis: readonly string[];
}

const isV4 = (ip: string): boolean => !ip.includes(':');
const prefixOf = (subnet: SubnetState): string => subnet.cidr.split('/')[1]!;
const OVN_ADDRESS_MODES: Readonly<Record<string, string>> = {
  slaac: 'slaac',
  'dhcpv6-stateful': 'dhcpv6_stateful',
  'dhcpv6-stateless': 'dhcpv6_stateless',
};

export function logicalRouter(router: RouterState, options: RouterOptions): LogicalRouterSpec {
  return {
    name: logicalRouterName(router.id),
    enabled: router.admin_state_up,
    external_ids: {
      'neutron:router_name': router.name,
      'neutron:revision_number': String(router.revision_number),
      'neutron:availability_zone_hints': router.availability_zone_hints.join(','),
      'neutron:gw_port_id': router.gw_port_id ?? '',
      'neutron:gw_network_id': router.external_gateway_info?.network_id ?? '',
    },
    options: {
      always_learn_from_arp_request: 'false',
      dynamic_neigh_routers: 'true',
      mac_binding_age_threshold: String(options.macBindingAgeThreshold),
    },
  };
}

function isProviderType(network: NetworkState | undefined): boolean {
  const type = network?.['provider:network_type'];
  return type === 'vlan' || type === 'flat';
}

/**
 * `_add_gateway_chassis`: `lrp-<port>_<chassis>`, priority N for the first of N chassis down to 1
 * for the last; the invalid-chassis placeholder when none was scheduled.
 */
function gatewayChassisRows(lrpName: string, chassis: readonly string[]): GatewayChassisSpec[] {
  const names = chassis.length > 0 ? chassis : [INVALID_CHASSIS];
  return names.map((name, i) => ({ name: `${lrpName}_${name}`, chassis_name: name, priority: names.length - i }));
}

/** `_get_nets_and_ipv6_ra_confs_for_router_port` + `_gen_router_port_options` + ext ids. */
function routerPort(
  router: RouterState,
  port: PortState,
  context: RouterContext,
  metadataEnabled: boolean,
): RouterPortSpec {
  const gateway = port.device_owner === ROUTER_GATEWAY_OWNER;
  const networks: string[] = [];
  const ra: StringMap = {};
  for (const ip of port.fixed_ips) {
    const subnet = context.subnets.get(ip.subnet_id);
    if (!subnet) continue;
    networks.push(`${ip.ip_address}/${prefixOf(subnet)}`);
    if (subnet.ipv6_address_mode && ra.address_mode === undefined) {
      const network = context.networks.get(subnet.network_id);
      ra.address_mode = OVN_ADDRESS_MODES[subnet.ipv6_address_mode] ?? subnet.ipv6_address_mode;
      // RAs of project networks must not leak onto a provider network through the gateway.
      ra.send_periodic = gateway && network?.['router:external'] ? 'false' : 'true';
      if (network) ra.mtu = String(network.mtu);
    }
  }
  if (ra.address_mode !== undefined && metadataEnabled) ra.route_info = 'MEDIUM-fe80::a9fe:a9fe/128';
  const options: StringMap = {};
  // Routing for provider networks is centralised on the chassis of the gateway port.
  if (isProviderType(context.networks.get(port.network_id))) options['reside-on-redirect-chassis'] = 'true';
  if (gateway) {
    const mtus = [...new Set(context.ports.map((p) => p.network_id))]
      .map((id) => context.networks.get(id)?.mtu)
      .filter((mtu): mtu is number => mtu !== undefined);
    if (mtus.length > 0) options.gateway_mtu = String(Math.min(...mtus));
  }
  const name = routerPortName(port.id);
  return {
    name,
    mac: port.mac_address,
    networks,
    external_ids: {
      'neutron:revision_number': String(port.revision_number),
      'neutron:subnet_ids': port.fixed_ips.map((ip) => ip.subnet_id).join(' '),
      'neutron:network_name': `neutron-${port.network_id}`,
      'neutron:is_ext_gw': gateway ? 'True' : 'False',
      // The bare router id (`_gen_router_port_ext_ids`), unlike NAT's `neutron-<id>`: the OVN
      // Octavia provider looks the router up as `neutron-` + this on a new interface.
      'neutron:router_name': router.id,
    },
    options,
    ipv6_ra_configs: ra,
    gateway,
    gatewayChassis: gateway ? gatewayChassisRows(name, context.gatewayChassis) : [],
  };
}

export function routerRows(
  router: RouterState,
  context: RouterContext,
  options: RouterOptions & { metadataEnabled: boolean },
): RouterRows {
  const ports = context.ports.filter((p) => p.device_id === router.id && isRouterPort(p));
  const gatewayPort = ports.find((p) => p.device_owner === ROUTER_GATEWAY_OWNER && p.id === router.gw_port_id);
  const interfaces = ports.filter((p) => ROUTER_INTERFACE_OWNERS.includes(p.device_owner));
  const lrps = [...interfaces, ...(gatewayPort ? [gatewayPort] : [])].map((p) =>
    routerPort(router, p, { ...context, ports }, options.metadataEnabled),
  );

  const routes: StaticRouteSpec[] = [];
  const nats: NatSpec[] = [];
  if (gatewayPort) {
    for (const ip of gatewayPort.fixed_ips) {
      const subnet = context.subnets.get(ip.subnet_id);
      if (!subnet?.gateway_ip) continue;
      routes.push({
        ip_prefix: subnet.ip_version === 4 ? '0.0.0.0/0' : '::/0',
        nexthop: subnet.gateway_ip,
        external_ids: {
          'neutron:is_ext_gw': 'true',
          'neutron:subnet_id': subnet.id,
        },
      });
    }
    if (router.external_gateway_info?.enable_snat) {
      const gatewayIps = gatewayPort.fixed_ips.map((ip) => ip.ip_address).filter(isV4);
      const cidrs = new Set<string>();
      for (const port of interfaces) {
        for (const ip of port.fixed_ips) {
          const subnet = context.subnets.get(ip.subnet_id);
          if (subnet?.ip_version === 4) cidrs.add(subnet.cidr);
        }
      }
      for (const external_ip of gatewayIps) {
        for (const logical_ip of cidrs) {
          nats.push({ type: 'snat', external_ip, logical_ip, logical_port: null, options: {}, external_ids: {} });
        }
      }
    }
    for (const fip of context.floatingIps) {
      if (fip.router_id !== router.id || !fip.port_id || !fip.fixed_ip_address) continue;
      const externalMac = options.distributedFloatingIps ? context.floatingIpPortMacs?.get(fip.port_id) : undefined;
      nats.push({
        type: 'dnat_and_snat',
        external_ip: fip.floating_ip_address,
        logical_ip: fip.fixed_ip_address,
        logical_port: fip.port_id,
        ...(options.distributedFloatingIps ? { external_mac: externalMac ?? null } : {}),
        options: {},
        external_ids: {
          'neutron:fip_id': fip.id,
          'neutron:revision_number': String(fip.revision_number),
          'neutron:fip_port_id': fip.port_id,
          'neutron:router_name': logicalRouterName(router.id),
          'neutron:fip_external_mac': externalMac ?? '',
          'neutron:fip_network_id': fip.floating_network_id,
        },
      });
    }
  }
  for (const route of router.routes) {
    routes.push({
      ip_prefix: route.destination,
      nexthop: route.nexthop,
      external_ids: {},
    });
  }

  return { router: logicalRouter(router, options), ports: lrps, nats, routes };
}
