/**
 * The per-node ports (every topology): one port per controller node on the controllers' network,
 * devstack's name, `device_owner` `Octavia:health-mgr`, the health-manager group, addresses pinned
 * only when the spec pins them, `binding:host_id` only when the spec gives the chassis (otherwise the
 * node agent owns it and `apply` never reverts it); and what each node's report says.
 */
import { controllerNetworkRole, desiredSubnets, linkGatewayIp, type DesiredSubnet } from './desired.js';
import type { NeutronObject } from './neutron-client.js';
import type { ControllerAddress } from './octavia-config.js';
import { nodeOf } from './ownership.js';
import { sameValue, type Pass } from './pass.js';
import type { NodeReport } from './report.js';
import { cidrContains } from './cidr.js';
import { HEALTH_MGR_DEVICE_OWNER, nodeDeviceId, nodePortName, type MgmtNetSpec } from './spec.js';

export async function ensureNodePorts(
  pass: Pass,
  networks: Map<string, NeutronObject>,
  subnets: Map<string, NeutronObject>,
  groups: Map<string, NeutronObject>,
): Promise<NeutronObject[]> {
  const spec = pass.spec;
  const netRole = controllerNetworkRole(spec);
  const network = networks.get(netRole)!;
  const controllerSubnets: NeutronObject[] = desiredSubnets(spec)
    .filter((d: DesiredSubnet) => d.network === netRole)
    .map((d) => subnets.get(d.role)!);
  const ports: NeutronObject[] = [];
  for (const node of spec.spec.nodes) {
    const existing = pass.candidates('ports', 'hm-port', node.name, nodePortName(node.name))[0];
    const wantedIps = controllerSubnets.map((subnet) => {
      const pinned = node.fixedIps?.find((ip) => cidrContains(String(subnet.cidr), ip));
      const current = (existing?.fixed_ips ?? []).find((f: { subnet_id: string }) => f.subnet_id === subnet.id);
      return pinned
        ? { subnet_id: subnet.id, ip_address: pinned }
        : current
          ? { subnet_id: subnet.id, ip_address: current.ip_address }
          : { subnet_id: subnet.id };
    });
    const ipsMatch =
      existing !== undefined &&
      sameValue(
        (existing.fixed_ips ?? []).map(
          (f: { subnet_id: string; ip_address: string }) => `${f.subnet_id}/${f.ip_address}`,
        ),
        wantedIps.map((f) => `${f.subnet_id}/${'ip_address' in f ? f.ip_address : '?'}`),
      );
    const port = await pass.ensure({
      collection: 'ports',
      observed: 'ports',
      role: 'hm-port',
      node: node.name,
      attributes: {
        name: nodePortName(node.name),
        device_owner: HEALTH_MGR_DEVICE_OWNER,
        device_id: nodeDeviceId(spec, node.name),
        security_groups: [groups.get('health-sg')!.id],
        admin_state_up: true,
        ...(node.chassis !== undefined ? { 'binding:host_id': node.chassis } : {}),
        ...(existing && !ipsMatch ? { fixed_ips: wantedIps } : {}),
      },
      fixed: { network_id: network.id },
      createOnly: { fixed_ips: wantedIps },
      step: 'PortsReady',
    });
    ports.push(port);
  }
  return ports;
}

export function nodeReports(
  spec: MgmtNetSpec,
  ports: readonly NeutronObject[],
  networks: Map<string, NeutronObject>,
): NodeReport[] {
  const mtu = networks.get(controllerNetworkRole(spec))?.mtu ?? null;
  const routes =
    spec.spec.topology === 'link-router'
      ? spec.spec.network.cidrs.map((destination) => ({ destination, nexthop: linkGatewayIp(spec) }))
      : [];
  return spec.spec.nodes.map((node) => {
    const port = ports.find((p) => nodeOf(p) === node.name);
    return {
      name: node.name,
      portId: port?.id ?? null,
      mac: port?.mac_address ?? null,
      fixedIps: (port?.fixed_ips ?? []).map((f: { ip_address: string }) => f.ip_address),
      chassis: port?.['binding:host_id'] || null,
      status: port?.status ?? 'MISSING',
      routes,
      mtu,
    };
  });
}

export function controllersOf(nodes: readonly NodeReport[]): ControllerAddress[] {
  return nodes.filter((n) => n.fixedIps.length > 0).map((n) => ({ node: n.name, addresses: n.fixedIps }));
}
