/**
 * What a BGP speaker advertises, as neutron-dynamic-routing computes it
 * (`db/bgp_db.py:get_routes_by_bgp_speaker_id`), over plain facts about the topology. Pure: the
 * core loads the facts (`core/bgp/advertised-routes.ts`), the API prints the routes, and the FRR
 * side uses the extra fields (which router, which gateway port) to announce each route only from
 * the chassis where that gateway is active.
 *
 * The rules:
 * - Floating IP host routes, when the speaker has `advertise_floating_ip_host_routes`: every
 *   associated floating IP on a gateway network bound to the speaker, behind a router that is up,
 *   as `<fip>/32` (`/128`), next hop each of the router's gateway addresses on that network of the
 *   floating IP's family. n-d-r only looks at IPv4 gateway subnets and never at the speaker's
 *   family; here a floating IP is advertised by the speakers of its own family (so an IPv6 speaker
 *   never carries IPv4 host routes, which its session could not use).
 * - Tenant networks, when the speaker has `advertise_tenant_networks`: each subnet on an
 *   interface of a router that is up, of the speaker's family, not on a bound network, from a
 *   subnet pool whose address scope is one of the speaker's scopes (the scopes of the bound
 *   networks' subnets of that family); next hop each of that router's gateway addresses on a
 *   bound network, of the same family.
 * - Distributed (DVR) routes need `floatingip_agent_gateway` ports, which OVN never has.
 */
import { parseIp } from '../core/ip.js';

export interface SpeakerFacts {
  readonly id: string;
  readonly ipVersion: number;
  readonly advertiseFloatingIpHostRoutes: boolean;
  readonly advertiseTenantNetworks: boolean;
  /** The gateway networks bound to the speaker. */
  readonly networkIds: readonly string[];
}

export interface SubnetFacts {
  readonly id: string;
  readonly networkId: string;
  readonly ipVersion: number;
  readonly cidr: string;
  /** The address scope of the subnet's pool; null without a pool or a scope. */
  readonly addressScopeId: string | null;
}

export interface FixedIpFacts {
  readonly subnetId: string;
  readonly ipAddress: string;
}

export interface RouterFacts {
  readonly id: string;
  readonly adminStateUp: boolean;
  /** The `network:router_gateway` port; null without a gateway. */
  readonly gatewayPortId: string | null;
  /** The gateway port's addresses. */
  readonly gatewayIps: readonly FixedIpFacts[];
  /** The addresses of its interface ports (not the gateway, not SNAT ports). */
  readonly interfaceIps: readonly FixedIpFacts[];
}

export interface FloatingIpFacts {
  readonly id: string;
  readonly address: string;
  readonly floatingNetworkId: string;
  /** Null while the floating IP is not associated. */
  readonly routerId: string | null;
  readonly fixedPortId: string | null;
}

export interface RouteTopology {
  readonly subnets: readonly SubnetFacts[];
  readonly routers: readonly RouterFacts[];
  readonly floatingIps: readonly FloatingIpFacts[];
}

/** A route with where it comes from; `destination` and `next_hop` are n-d-r's wire fields. */
export interface AdvertisedRoute {
  readonly destination: string;
  readonly next_hop: string;
  readonly kind: 'floatingip' | 'tenant_network';
  readonly router_id: string;
  /** The router's gateway port: the route belongs on the chassis where `cr-lrp-<it>` is bound. */
  readonly gateway_port_id: string;
  /** For floating IP host routes: the floating IP and the port it points at. */
  readonly floatingip_id?: string;
  readonly fixed_port_id?: string | null;
}

/** n-d-r's `get_advertised_routes` body: only `destination` and `next_hop`. */
export function wireRoutes(routes: readonly AdvertisedRoute[]): { destination: string; next_hop: string }[] {
  return routes.map((r) => ({ destination: r.destination, next_hop: r.next_hop }));
}

function versionOf(address: string): number | undefined {
  return parseIp(address)?.version;
}

/** The speaker's address scopes: those of the bound networks' subnets of its family. */
export function speakerAddressScopes(speaker: SpeakerFacts, subnets: readonly SubnetFacts[]): Set<string> {
  const bound = new Set(speaker.networkIds);
  const scopes = new Set<string>();
  for (const s of subnets) {
    if (bound.has(s.networkId) && s.ipVersion === speaker.ipVersion && s.addressScopeId) scopes.add(s.addressScopeId);
  }
  return scopes;
}

/** The router's gateway addresses on the given networks, of one family. */
function gatewayNextHops(
  router: RouterFacts,
  subnetById: ReadonlyMap<string, SubnetFacts>,
  networkIds: ReadonlySet<string>,
  ipVersion: number,
): string[] {
  return router.gatewayIps
    .filter((ip) => {
      const subnet = subnetById.get(ip.subnetId);
      return subnet !== undefined && networkIds.has(subnet.networkId) && subnet.ipVersion === ipVersion;
    })
    .map((ip) => ip.ipAddress);
}

function floatingIpRoutes(
  speaker: SpeakerFacts,
  topology: RouteTopology,
  subnetById: ReadonlyMap<string, SubnetFacts>,
): AdvertisedRoute[] {
  if (!speaker.advertiseFloatingIpHostRoutes) return [];
  const bound = new Set(speaker.networkIds);
  const routerById = new Map(topology.routers.map((r) => [r.id, r]));
  const routes: AdvertisedRoute[] = [];
  for (const fip of topology.floatingIps) {
    const router = fip.routerId ? routerById.get(fip.routerId) : undefined;
    if (!router?.adminStateUp || !router.gatewayPortId || !bound.has(fip.floatingNetworkId)) continue;
    const version = versionOf(fip.address);
    if (version !== speaker.ipVersion) continue;
    for (const nextHop of gatewayNextHops(router, subnetById, new Set([fip.floatingNetworkId]), version)) {
      routes.push({
        destination: `${fip.address}/${version === 4 ? 32 : 128}`,
        next_hop: nextHop,
        kind: 'floatingip',
        router_id: router.id,
        gateway_port_id: router.gatewayPortId,
        floatingip_id: fip.id,
        fixed_port_id: fip.fixedPortId,
      });
    }
  }
  return routes;
}

function tenantNetworkRoutes(
  speaker: SpeakerFacts,
  topology: RouteTopology,
  subnetById: ReadonlyMap<string, SubnetFacts>,
): AdvertisedRoute[] {
  if (!speaker.advertiseTenantNetworks) return [];
  const bound = new Set(speaker.networkIds);
  const scopes = speakerAddressScopes(speaker, topology.subnets);
  const routes: AdvertisedRoute[] = [];
  for (const router of topology.routers) {
    if (!router.adminStateUp || !router.gatewayPortId) continue;
    const nextHops = gatewayNextHops(router, subnetById, bound, speaker.ipVersion);
    const cidrs = new Set<string>();
    for (const ip of router.interfaceIps) {
      const subnet = subnetById.get(ip.subnetId);
      if (!subnet || bound.has(subnet.networkId) || subnet.ipVersion !== speaker.ipVersion) continue;
      if (subnet.addressScopeId && scopes.has(subnet.addressScopeId)) cidrs.add(subnet.cidr);
    }
    for (const cidr of cidrs) {
      for (const nextHop of nextHops) {
        routes.push({
          destination: cidr,
          next_hop: nextHop,
          kind: 'tenant_network',
          router_id: router.id,
          gateway_port_id: router.gatewayPortId,
        });
      }
    }
  }
  return routes;
}

const byDestination = (a: AdvertisedRoute, b: AdvertisedRoute) =>
  a.destination.localeCompare(b.destination) || a.next_hop.localeCompare(b.next_hop);

/** Every route the speaker advertises: floating IP host routes first, then tenant networks (as n-d-r). */
export function advertisedRoutes(speaker: SpeakerFacts, topology: RouteTopology): AdvertisedRoute[] {
  const subnetById = new Map(topology.subnets.map((s) => [s.id, s]));
  return [
    ...floatingIpRoutes(speaker, topology, subnetById).sort(byDestination),
    ...tenantNetworkRoutes(speaker, topology, subnetById).sort(byDestination),
  ];
}
