/**
 * What Neutron says about this node's part of the management network: its port (found by owner
 * tags, never by name), the routes through the link router the spec owns (with the router's path
 * MTU), and the other controllers' addresses to probe. Reads only.
 */
import { HEALTH_MGR_DEVICE_OWNER, nodeTag, ownerTag } from '../spec.js';
import { familyOf, type WantedRoute } from './link.js';
import type { NeutronPort, NeutronSubnet, NodeAgentNeutron } from './neutron.js';
import type { ProbeTarget } from './probe.js';

/** Only what the look-ups need of the spec. */
interface Owner {
  metadata: { name: string };
}

/**
 * This node's port: tagged for the spec and the node. Several (a crash between create and
 * record elsewhere) resolve to the one the interface already carries, else the oldest id order,
 * so the choice does not flap between passes.
 */
export async function findPort(
  client: NodeAgentNeutron,
  spec: Owner,
  node: string,
  currentIfaceId: string | undefined,
): Promise<{ port?: NeutronPort; duplicates: string[] }> {
  const tags = [ownerTag(spec), nodeTag(node)];
  // Filtered again here: a Neutron without the tag extension would ignore the filter.
  const ports = (await client.listPorts({ tags })).filter((p) => tags.every((t) => p.tags?.includes(t)));
  ports.sort((a, b) => a.id.localeCompare(b.id));
  const port = ports.find((p) => p.id === currentIfaceId) ?? ports[0];
  return { port, duplicates: ports.filter((p) => p !== port).map((p) => p.id) };
}

/**
 * Routes through the operator's link router: when a router it owns has its gateway on this
 * port's network, every subnet behind the router (the amphorae's lb-mgmt-net) is reached via the
 * router's address on this network. This is the route OpenStack-on-OpenShift puts in its NAD.
 */
export async function linkRouterRoutes(
  client: NodeAgentNeutron,
  spec: Owner,
  port: NeutronPort,
  linkMtu: number,
  subnetCache: Map<string, NeutronSubnet>,
): Promise<{ routes: WantedRoute[]; gateways: ProbeTarget[] }> {
  const routes: WantedRoute[] = [];
  const gateways: ProbeTarget[] = [];
  const mtus = new Map<string, number>();
  const networkMtu = async (id: string) => {
    if (!mtus.has(id)) mtus.set(id, (await client.getNetwork(id)).mtu);
    return mtus.get(id)!;
  };
  const ours = new Set(port.fixed_ips.map((f) => f.subnet_id));
  const subnet = async (id: string) => {
    if (!subnetCache.has(id)) subnetCache.set(id, await client.getSubnet(id));
    return subnetCache.get(id)!;
  };
  const routers = (await client.listRouters({ tags: [ownerTag(spec)] })).filter((r) =>
    r.tags?.includes(ownerTag(spec)),
  );
  for (const router of routers) {
    const gateway = router.external_gateway_info;
    if (!gateway || gateway.network_id !== port.network_id) continue;
    const interfaces = await client.listPorts({ device_id: router.id, device_owner: 'network:router_interface' });
    // The router forwards no more than the smallest MTU of its networks (OVN's gateway_mtu).
    let pathMtu = linkMtu;
    for (const inside of interfaces) pathMtu = Math.min(pathMtu, await networkMtu(inside.network_id));
    for (const via of gateway.external_fixed_ips ?? []) {
      if (!ours.has(via.subnet_id)) continue;
      gateways.push({ address: via.ip_address, mtu: pathMtu });
      for (const inside of interfaces.flatMap((p) => p.fixed_ips)) {
        const behind = await subnet(inside.subnet_id);
        if (familyOf(behind.cidr.split('/')[0]!) !== familyOf(via.ip_address)) continue;
        routes.push({
          destination: behind.cidr,
          nexthop: via.ip_address,
          family: familyOf(via.ip_address),
          ...(pathMtu < linkMtu ? { mtu: pathMtu } : {}),
        });
      }
    }
  }
  return { routes, gateways };
}

/** The other controllers' addresses on the management path, for the probe (ACTIVE ports only). */
export async function peerAddresses(client: NodeAgentNeutron, spec: Owner, port: NeutronPort): Promise<string[]> {
  const peers = await client.listPorts({ tags: [ownerTag(spec)], device_owner: HEALTH_MGR_DEVICE_OWNER });
  return peers
    .filter((p) => p.id !== port.id && p.status === 'ACTIVE' && p.tags?.includes(ownerTag(spec)))
    .sort((a, b) => a.id.localeCompare(b.id))
    .flatMap((p) => p.fixed_ips.map((f) => f.ip_address));
}
