/**
 * The topology feed (`GET /topology`, and the topology page's snapshots): what an operator needs
 * to draw the cloud, read through core's services with the caller's context, so a project sees only
 * its own (and shared) resources and only admins see hosts and chassis. Networks with their
 * subnets, routers with their interfaces and gateway (and, for admins, the gateway chassis by
 * priority with the active one), ports with their status, floating IPs, and where each load
 * balancer's VIP lives: the VIP port, the amphora ports that may hold it (their allowed address
 * pairs list it), and, from the data plane, which of them holds it now and on which node. For
 * admins (BGP is admin-only, as in neutron-dynamic-routing), each BGP speaker with its peers, the
 * DR agents hosting it and its advertised routes, each with the chassis announcing it now (its
 * router's active gateway chassis).
 */
import type { RequestContext } from '../core/context.js';
import { EMPTY_LIST_QUERY } from '../core/list-query.js';
import type { View } from '../core/resource.js';
import type { Services } from '../core/services.js';

export interface TopologyFeed {
  generated_at: string;
  nodes: { host: string; alive: boolean; gateway: boolean }[];
  networks: {
    id: string;
    name: string;
    project_id: string;
    status: string;
    shared: boolean;
    external: boolean;
    network_type: string | null;
    subnets: string[];
  }[];
  routers: RouterView[];
  /** Every visible port but routers' own (those are the routers' interfaces and gateways). */
  ports: PortView[];
  floating_ips: {
    id: string;
    address: string;
    project_id: string;
    status: string;
    port_id: string | null;
    fixed_ip: string | null;
    router_id: string | null;
  }[];
  load_balancer_vips: VipView[];
  /** BGP speakers (admins only; empty for everyone else). */
  bgp_speakers: BgpSpeakerView[];
}

export interface BgpSpeakerView {
  id: string;
  name: string;
  local_as: number;
  ip_version: number;
  peers: { id: string; name: string; peer_ip: string; remote_as: number }[];
  /** The DR agents (nodes' bgp-agents) hosting the speaker. */
  dragents: { host: string; alive: boolean }[];
  /**
   * The advertised routes (floating IP host routes and tenant networks); `announced_from` is the
   * chassis where the route's router has its gateway now (with distributed floating IPs the node
   * agent announces a floating IP from its port's chassis instead: see `bgp/placement.ts`).
   */
  routes: { destination: string; next_hop: string; kind: string; announced_from: string | null }[];
}

export interface RouterView {
  id: string;
  name: string;
  project_id: string;
  status: string;
  external_network_id: string | null;
  interfaces: { port_id: string; network_id: string; ip_address: string }[];
  /** The chassis that may run the gateway, highest priority first (admins only). */
  gateway_chassis?: { host: string; priority: number; active: boolean; alive: boolean }[];
}

export interface PortView {
  id: string;
  name: string;
  network_id: string;
  project_id: string;
  device_owner: string;
  device_id: string;
  status: string;
  /** No driver could bind the port on its host. */
  binding_failed: boolean;
  addresses: string[];
  /** binding:host_id (admins only). */
  host?: string;
}

export interface VipView {
  port_id: string;
  name: string;
  network_id: string;
  ip_address: string;
  /** The VIP port's binding:host_id: the node holding it (admins only). */
  host?: string;
  /** The amphora port holding the VIP now, per the data plane (admins only); null when none does. */
  held_by?: { port_id: string; name: string; host: string } | null;
  /** Ports listing the VIP in their allowed address pairs: the amphorae. */
  amphorae: { port_id: string; name: string; device_owner: string; host?: string }[];
  floating_ips: string[];
}

const HOST = 'binding:host_id';
const list = { ...EMPTY_LIST_QUERY };
const ROUTER_INTERFACE_OWNERS = [
  'network:router_interface',
  'network:router_interface_distributed',
  'network:ha_router_replicated_interface',
];
const isRouterPort = (port: View) => (port.device_owner as string).startsWith('network:router_');
const addressesOf = (port: View) => (port.fixed_ips as { ip_address: string }[]).map((ip) => ip.ip_address);

function portView(port: View, isAdmin: boolean): PortView {
  return {
    id: port.id as string,
    name: port.name as string,
    network_id: port.network_id as string,
    project_id: port.project_id as string,
    device_owner: port.device_owner as string,
    device_id: port.device_id as string,
    status: port.status as string,
    binding_failed: port['binding:vif_type'] === 'binding_failed',
    addresses: addressesOf(port),
    ...(isAdmin && { host: (port[HOST] as string) ?? '' }),
  };
}

/** The gateway chassis of a router from the driver's agents (admins only; none without a driver). */
async function gatewayChassis(services: Services, routerId: string): Promise<RouterView['gateway_chassis']> {
  const agents = (await services.deps.drivers.agents?.l3AgentsOfRouter?.(routerId)) ?? [];
  return agents
    .map((a) => ({
      host: a.host as string,
      priority: a.ha_chassis_priority as number,
      active: a.ha_state === 'active',
      alive: a.alive === true,
    }))
    .sort((a, b) => b.priority - a.priority);
}

async function routerViews(
  services: Services,
  ctx: RequestContext,
  routers: readonly View[],
  ports: readonly View[],
): Promise<RouterView[]> {
  const interfacesOf = new Map<string, RouterView['interfaces']>();
  for (const port of ports) {
    if (!ROUTER_INTERFACE_OWNERS.includes(port.device_owner as string)) continue;
    const list = interfacesOf.get(port.device_id as string) ?? [];
    for (const ip of addressesOf(port)) {
      list.push({ port_id: port.id as string, network_id: port.network_id as string, ip_address: ip });
    }
    interfacesOf.set(port.device_id as string, list);
  }
  return Promise.all(
    routers.map(async (r) => {
      const externalNetworkId = (r.external_gateway_info as { network_id?: string } | null)?.network_id ?? null;
      return {
        id: r.id as string,
        name: r.name as string,
        project_id: r.project_id as string,
        status: r.status as string,
        external_network_id: externalNetworkId,
        interfaces: interfacesOf.get(r.id as string) ?? [],
        ...(ctx.isAdmin && {
          gateway_chassis: externalNetworkId ? await gatewayChassis(services, r.id as string) : [],
        }),
      };
    }),
  );
}

/** A port's fixed IP that other ports on its network list as an allowed address pair: a VIP. */
function vipsOf(ports: readonly View[]): { port: View; ip: string; holders: View[] }[] {
  const pairHolders = new Map<string, View[]>();
  for (const port of ports) {
    for (const pair of (port.allowed_address_pairs as { ip_address: string }[]) ?? []) {
      const key = `${port.network_id} ${pair.ip_address}`;
      pairHolders.set(key, [...(pairHolders.get(key) ?? []), port]);
    }
  }
  const vips = [];
  for (const port of ports) {
    for (const ip of port.fixed_ips as { ip_address: string }[]) {
      const holders = (pairHolders.get(`${port.network_id} ${ip.ip_address}`) ?? []).filter((p) => p.id !== port.id);
      if (holders.length > 0 || port.device_owner === 'Octavia') {
        vips.push({ port, ip: ip.ip_address, holders });
        break;
      }
    }
  }
  return vips;
}

/** The speakers as an admin sees them, each route placed on the chassis that announces it now. */
async function bgpSpeakerViews(
  services: Services,
  ctx: RequestContext,
  routers: readonly RouterView[],
): Promise<BgpSpeakerView[]> {
  if (!ctx.isAdmin) return [];
  const activeOf = new Map(routers.map((r) => [r.id, r.gateway_chassis?.find((c) => c.active)?.host ?? null]));
  const [speakers, peers] = await Promise.all([
    services.bgpSpeakers.list(ctx, list),
    services.bgpPeers.list(ctx, list),
  ]);
  const peerById = new Map(peers.map((p) => [p.id as string, p]));
  return Promise.all(
    speakers.map(async (speaker) => {
      const id = speaker.id as string;
      const [routes, agents] = await Promise.all([
        services.bgpSpeakers.routes(ctx, id),
        services.bgpDrAgents.agentsOfSpeaker(ctx, id),
      ]);
      return {
        id,
        name: speaker.name as string,
        local_as: Number(speaker.local_as),
        ip_version: speaker.ip_version as number,
        peers: (speaker.peers as string[]).flatMap((peerId) => {
          const peer = peerById.get(peerId);
          if (!peer) return [];
          const { name, peer_ip, remote_as } = peer as { name: string; peer_ip: string; remote_as: number };
          return [{ id: peerId, name, peer_ip, remote_as: Number(remote_as) }];
        }),
        dragents: agents.map((a) => ({ host: a.host as string, alive: a.alive === true })),
        routes: routes.map((r) => ({
          destination: r.destination,
          next_hop: r.next_hop,
          kind: r.kind,
          announced_from: activeOf.get(r.router_id) ?? null,
        })),
      };
    }),
  );
}

export async function buildTopologyFeed(services: Services, ctx: RequestContext): Promise<TopologyFeed> {
  const [agents, networks, subnets, routers, ports, fips] = await Promise.all([
    ctx.isAdmin ? services.agents.list(ctx, {}) : Promise.resolve([]),
    services.networks.list(ctx, list),
    services.subnets.list(ctx, list),
    services.routers.list(ctx, list),
    services.ports.list(ctx, list),
    services.floatingIps.list(ctx, list),
  ]);
  const held = ctx.isAdmin ? services.deps.drivers.virtualPortHolders() : new Map();
  const portsById = new Map(ports.map((p) => [p.id as string, p]));
  const cidrsOf = new Map<string, string[]>();
  for (const subnet of subnets) {
    cidrsOf.set(subnet.network_id as string, [
      ...(cidrsOf.get(subnet.network_id as string) ?? []),
      subnet.cidr as string,
    ]);
  }
  const hostOf = (port: View) => (ctx.isAdmin ? { host: (port[HOST] as string) ?? '' } : {});
  const routerList = await routerViews(services, ctx, routers, ports);
  return {
    generated_at: new Date().toISOString(),
    nodes: agents
      .filter((a) => a.agent_type === 'OVN Controller agent' || a.agent_type === 'OVN Controller Gateway agent')
      .map((a) => ({
        host: a.host as string,
        alive: a.alive === true,
        gateway: a.agent_type === 'OVN Controller Gateway agent',
      })),
    networks: networks.map((n) => ({
      id: n.id as string,
      name: n.name as string,
      project_id: n.project_id as string,
      status: n.status as string,
      shared: n.shared === true,
      external: n['router:external'] === true,
      network_type: (n['provider:network_type'] as string | undefined) ?? null,
      subnets: cidrsOf.get(n.id as string) ?? [],
    })),
    routers: routerList,
    ports: ports.filter((p) => !isRouterPort(p)).map((p) => portView(p, ctx.isAdmin)),
    floating_ips: fips.map((f) => ({
      id: f.id as string,
      address: f.floating_ip_address as string,
      project_id: f.project_id as string,
      status: f.status as string,
      port_id: (f.port_id as string | null) ?? null,
      fixed_ip: (f.fixed_ip_address as string | null) ?? null,
      router_id: (f.router_id as string | null) ?? null,
    })),
    bgp_speakers: await bgpSpeakerViews(services, ctx, routerList),
    load_balancer_vips: vipsOf(ports).map(({ port, ip, holders }) => {
      const holder = held.get(port.id as string);
      const parent = holder ? portsById.get(holder.parent) : undefined;
      return {
        port_id: port.id as string,
        name: port.name as string,
        network_id: port.network_id as string,
        ip_address: ip,
        ...hostOf(port),
        ...(ctx.isAdmin && {
          held_by: holder ? { port_id: holder.parent, name: (parent?.name as string) ?? '', host: holder.host } : null,
        }),
        amphorae: holders.map((h) => ({
          port_id: h.id as string,
          name: h.name as string,
          device_owner: h.device_owner as string,
          ...hostOf(h),
        })),
        floating_ips: fips.filter((f) => f.port_id === port.id).map((f) => f.floating_ip_address as string),
      };
    }),
  };
}
