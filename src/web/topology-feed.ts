/**
 * The topology feed (`GET /topology`): what an operator needs to draw the cloud, read through
 * core's services with the caller's context, so a project sees only its own (and shared) resources
 * and only admins see hosts. Its centre for now is where each load balancer's VIP lives: the VIP
 * port, the amphora ports that may hold it (their allowed address pairs list it), and, from the
 * data plane, which of them holds it now and on which node.
 */
import type { RequestContext } from '../core/context.js';
import { EMPTY_LIST_QUERY } from '../core/list-query.js';
import type { View } from '../core/resource.js';
import type { Services } from '../core/services.js';

export interface TopologyFeed {
  generated_at: string;
  nodes: { host: string; alive: boolean; gateway: boolean }[];
  networks: { id: string; name: string; external: boolean; network_type: string | null; subnets: string[] }[];
  routers: { id: string; name: string; external_network_id: string | null }[];
  load_balancer_vips: VipView[];
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
      external: n['router:external'] === true,
      network_type: (n['provider:network_type'] as string | undefined) ?? null,
      subnets: cidrsOf.get(n.id as string) ?? [],
    })),
    routers: routers.map((r) => ({
      id: r.id as string,
      name: r.name as string,
      external_network_id: ((r.external_gateway_info as { network_id?: string } | null)?.network_id as string) ?? null,
    })),
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
