/**
 * Loads the facts `bgp/routes.ts` computes a speaker's routes from (its gateway networks, the
 * routers with a gateway there, their addresses, the subnets with their pools' address scopes,
 * the floating IPs on those networks) in a few queries, and computes them. Exported for the API
 * (`get_advertised_routes`) and for the node side, which also needs each route's gateway port.
 */
import type { Db } from '../../store/database.js';
import { toBool } from '../../store/schema.js';
import { selectScopedSubnets } from '../../store/address-scopes.js';
import { ROUTER_GATEWAY_OWNER } from '../../store/routers.js';
import {
  advertisedRoutes,
  type AdvertisedRoute,
  type FixedIpFacts,
  type RouterFacts,
  type RouteTopology,
  type SpeakerFacts,
} from '../../bgp/routes.js';

/** Router ports whose subnets are tenant networks behind it (n-d-r: not gateway, not SNAT). */
const INTERFACE_OWNERS = [
  'network:router_interface',
  'network:router_interface_distributed',
  'network:ha_router_replicated_interface',
];

async function fixedIpsOf(db: Db, portIds: readonly string[]): Promise<Map<string, FixedIpFacts[]>> {
  const byPort = new Map<string, FixedIpFacts[]>();
  if (portIds.length === 0) return byPort;
  const rows = await db
    .selectFrom('ip_allocations')
    .select(['port_id', 'subnet_id', 'ip_address'])
    .where('port_id', 'in', portIds)
    .execute();
  for (const r of rows) {
    byPort.set(r.port_id, [...(byPort.get(r.port_id) ?? []), { subnetId: r.subnet_id, ipAddress: r.ip_address }]);
  }
  return byPort;
}

/** The topology around a speaker's gateway networks. */
export async function loadRouteTopology(db: Db, networkIds: readonly string[]): Promise<RouteTopology> {
  if (networkIds.length === 0) return { subnets: [], routers: [], floatingIps: [] };
  const gatewayPorts = await db
    .selectFrom('ports')
    .select(['id', 'device_id'])
    .where('device_owner', '=', ROUTER_GATEWAY_OWNER)
    .where('network_id', 'in', networkIds)
    .execute();
  const routerIds = [...new Set(gatewayPorts.map((p) => p.device_id))];
  const routerRows = routerIds.length
    ? await db
        .selectFrom('routers')
        .select(['id', 'admin_state_up', 'gw_port_id'])
        .where('id', 'in', routerIds)
        .execute()
    : [];
  const interfacePorts = routerIds.length
    ? await db
        .selectFrom('ports')
        .select(['id', 'device_id'])
        .where('device_id', 'in', routerIds)
        .where('device_owner', 'in', INTERFACE_OWNERS)
        .execute()
    : [];
  const ips = await fixedIpsOf(db, [...gatewayPorts.map((p) => p.id), ...interfacePorts.map((p) => p.id)]);
  const routers: RouterFacts[] = routerRows.map((r) => ({
    id: r.id,
    adminStateUp: toBool(r.admin_state_up),
    gatewayPortId: r.gw_port_id,
    gatewayIps: r.gw_port_id ? (ips.get(r.gw_port_id) ?? []) : [],
    interfaceIps: interfacePorts.filter((p) => p.device_id === r.id).flatMap((p) => ips.get(p.id) ?? []),
  }));
  const subnetIds = new Set([...ips.values()].flat().map((ip) => ip.subnetId));
  const subnetRows = await selectScopedSubnets(db)
    .where((eb) =>
      eb.or([
        eb('subnets.network_id', 'in', networkIds),
        ...(subnetIds.size ? [eb('subnets.id', 'in', [...subnetIds])] : []),
      ]),
    )
    .execute();
  const fips = await db
    .selectFrom('floatingips')
    .select(['id', 'floating_ip_address', 'floating_network_id', 'router_id', 'fixed_port_id'])
    .where('floating_network_id', 'in', networkIds)
    .where('router_id', 'is not', null)
    .execute();
  return {
    subnets: subnetRows.map((s) => ({
      id: s.id,
      networkId: s.network_id,
      ipVersion: s.ip_version,
      cidr: s.cidr,
      addressScopeId: s.address_scope_id ?? null,
    })),
    routers,
    floatingIps: fips.map((f) => ({
      id: f.id,
      address: f.floating_ip_address,
      floatingNetworkId: f.floating_network_id,
      routerId: f.router_id,
      fixedPortId: f.fixed_port_id,
    })),
  };
}

/** The routes of a speaker (by its facts), read from the database now. */
export async function routesOfSpeaker(db: Db, speaker: SpeakerFacts): Promise<AdvertisedRoute[]> {
  return advertisedRoutes(speaker, await loadRouteTopology(db, speaker.networkIds));
}
