/**
 * Router interfaces (`PUT /v2.0/routers/<id>/add_router_interface` and `remove_router_interface`;
 * `l3_db.add_router_interface`): attaching a subnet creates a `network:router_interface` port on
 * the subnet's gateway address (a second IPv6 subnet of a network joins the router's existing IPv6
 * port); attaching a port takes a free port of the caller's. Removing refuses while floating IPs
 * or extra routes still need the subnet.
 */
import type { ResourceContext } from '../../drivers/contract.js';
import type { Tx } from '../../store/database.js';
import { floatingIpsWhere } from '../../store/floatingips.js';
import { ACCESS_AS_SHARED, type NetworkAccess } from '../../store/networks.js';
import { ROUTER_GATEWAY_OWNER, ROUTER_INTERFACE_OWNER, routerPortIds, type RouterRecord } from '../../store/routers.js';
import type { SubnetTable } from '../../store/schema.js';
import { getSubnetRow, subnetsOfNetwork } from '../../store/subnets.js';
import type { RequestContext } from '../context.js';
import {
  BadRequest,
  PortInUse,
  RouterInterfaceInUseByFloatingIP,
  RouterInterfaceInUseByRoute,
  RouterInterfaceNotFound,
  RouterInterfaceNotFoundForSubnet,
  SubnetMismatchForPort,
} from '../errors.js';
import { containsAddress, networksOverlap, parseIp, parseNetwork } from '../ip.js';
import type { PortService } from '../ports/service.js';
import type { Body } from '../resource.js';
import type { PortState } from '../../drivers/host.js';
import type { SubnetService } from '../subnets/service.js';
import { isPlainObject, validateUuid } from '../validators.js';
import { routeUsesCidr } from './routes.js';

/** The answer of both actions (`_make_router_interface_info`). */
export interface RouterInterfaceInfo {
  readonly id: string;
  readonly tenant_id: string;
  readonly project_id: string;
  readonly port_id: string;
  readonly network_id: string;
  /** The last subnet the port serves (deprecated by `subnet_ids`, kept for clients). */
  readonly subnet_id: string;
  readonly subnet_ids: string[];
}

interface InterfaceRequest {
  readonly portId?: string;
  readonly subnetId?: string;
}

const routerError = (msg: string) => BadRequest({ resource: 'router', msg });

/** `_validate_interface_info`: a port or a subnet (both only for removal), each a UUID. */
export function parseInterfaceRequest(body: unknown, forRemoval: boolean): InterfaceRequest {
  const info = isPlainObject(body) ? body : {};
  const byPort = 'port_id' in info;
  const bySubnet = 'subnet_id' in info;
  if (!byPort && !bySubnet) throw routerError('Either subnet_id or port_id must be specified');
  for (const key of ['port_id', 'subnet_id'] as const) {
    if (!(key in info)) continue;
    const msg = validateUuid(info[key]);
    if (msg) throw routerError(msg);
  }
  if (!forRemoval && byPort && bySubnet) throw routerError('Cannot specify both subnet-id and port-id');
  // Both are UUID strings when present (checked just above).
  const { port_id: portId, subnet_id: subnetId } = info;
  return {
    ...(typeof portId === 'string' ? { portId } : {}),
    ...(typeof subnetId === 'string' ? { subnetId } : {}),
  };
}

/** Adding names the last subnet of the port in `subnet_id`, removing the first (as Neutron does). */
function interfaceInfo(
  routerId: string,
  port: PortState,
  subnetIds: string[],
  subnetId = subnetIds[subnetIds.length - 1]!,
): RouterInterfaceInfo {
  return {
    id: routerId,
    tenant_id: port.project_id,
    project_id: port.project_id,
    port_id: port.id,
    network_id: port.network_id,
    subnet_id: subnetId,
    subnet_ids: subnetIds,
  };
}

/** `_validate_subnet_address_mode`: a subnet whose RAs come from outside cannot be routed by us. */
function checkAddressMode(subnet: Pick<SubnetTable, 'id' | 'ip_version' | 'ipv6_ra_mode' | 'ipv6_address_mode'>): void {
  if (subnet.ip_version === 6 && !subnet.ipv6_ra_mode && subnet.ipv6_address_mode) {
    throw routerError(
      `IPv6 subnet ${subnet.id} configured to receive RAs from an external router cannot be added to Neutron Router.`,
    );
  }
}

function hasIpv6(port: PortState): boolean {
  return port.fixed_ips.some((ip) => parseIp(ip.ip_address)?.version === 6);
}

export class RouterInterfaces {
  constructor(
    private readonly subnets: SubnetService,
    private readonly ports: PortService,
  ) {}

  /** Every port of the router: interfaces and gateway. */
  private async routerPorts(tx: Tx, routerId: string): Promise<PortState[]> {
    return this.ports.statesWithin(
      tx,
      await routerPortIds(tx, routerId, [ROUTER_INTERFACE_OWNER, ROUTER_GATEWAY_OWNER]),
    );
  }

  /**
   * `_check_for_dup_router_subnets`: the router may not have the subnet already, nor one that
   * overlaps it (the gateway counts with every subnet of its network).
   */
  private async checkNoDuplicate(tx: Tx, routerId: string, added: readonly SubnetTable[]): Promise<void> {
    const addedIds = new Set(added.map((s) => s.id));
    const attached = new Set<string>();
    for (const port of await this.routerPorts(tx, routerId)) {
      for (const ip of port.fixed_ips) {
        if (addedIds.has(ip.subnet_id)) throw routerError(`Router already has a port on subnet ${ip.subnet_id}`);
        if (port.device_owner !== ROUTER_GATEWAY_OWNER) attached.add(ip.subnet_id);
      }
      if (port.device_owner === ROUTER_GATEWAY_OWNER) {
        for (const s of await subnetsOfNetwork(tx, port.network_id)) attached.add(s.id);
      }
    }
    for (const id of attached) {
      const existing = await getSubnetRow(tx, id);
      if (!existing) continue;
      for (const subnet of added) {
        if (networksOverlap(parseNetwork(existing.cidr)!, parseNetwork(subnet.cidr)!)) {
          throw routerError(
            `Cidr ${subnet.cidr} of subnet ${subnet.id} overlaps with cidr ${existing.cidr} of subnet ${existing.id}`,
          );
        }
      }
    }
  }

  /** Attaches a subnet or a port; returns the answer and the events of the ports it wrote. */
  async add(
    tx: Tx,
    ctx: RequestContext,
    router: RouterRecord,
    body: Body,
  ): Promise<{ info: RouterInterfaceInfo; events: ResourceContext[] }> {
    const request = parseInterfaceRequest(body, false);
    return request.portId
      ? this.addPort(tx, ctx, router, request.portId)
      : this.addSubnet(tx, ctx, router, request.subnetId!);
  }

  private async addPort(tx: Tx, ctx: RequestContext, router: RouterRecord, portId: string) {
    const port = await this.ports.getVisible(tx, ctx, portId);
    if (port.device_id !== '') {
      throw PortInUse({ port_id: port.id, net_id: port.network_id, device_id: port.device_id });
    }
    if (port.fixed_ips.length === 0) throw routerError('Router port must have at least one fixed IP');
    const subnets: SubnetTable[] = [];
    for (const ip of port.fixed_ips) {
      const subnet = (await getSubnetRow(tx, ip.subnet_id))!;
      checkAddressMode(subnet);
      subnets.push(subnet);
    }
    await this.checkNoDuplicate(tx, router.row.id, subnets);
    if (subnets.filter((s) => s.ip_version === 4).length > 1) {
      throw routerError('Cannot have multiple IPv4 subnets on router port');
    }
    const { port: updated, event } = await this.ports.updateWithin(tx, portId, {
      device_id: router.row.id,
      device_owner: ROUTER_INTERFACE_OWNER,
    });
    return {
      info: interfaceInfo(
        router.row.id,
        updated,
        subnets.map((s) => s.id),
      ),
      events: [event],
    };
  }

  private async addSubnet(tx: Tx, ctx: RequestContext, router: RouterRecord, subnetId: string) {
    const { view: subnet, network } = await this.subnets.getVisible(tx, ctx, subnetId);
    const gatewayIp = subnet.gateway_ip;
    if (typeof gatewayIp !== 'string' || !gatewayIp) {
      throw routerError('Subnet for router interface must have a gateway IP');
    }
    if (subnet.project_id !== ctx.projectId && !ctx.isAdmin && !sharedWithProject(network, ctx.projectId)) {
      // Shared with this project by RBAC is enough; shared with everyone is not (LP-1757482).
      throw routerError(
        `Cannot add interface to router because subnet ${subnetId} is not owned by project making the request`,
      );
    }
    const row = (await getSubnetRow(tx, subnetId))!;
    checkAddressMode(row);
    await this.checkNoDuplicate(tx, router.row.id, [row]);
    const fixedIp = { subnet_id: subnetId, ip_address: gatewayIp };
    if (row.ip_version === 6) {
      // One IPv6 router port per network: a further prefix joins it.
      const existing = (await this.routerPorts(tx, router.row.id)).find(
        (p) => p.device_owner === ROUTER_INTERFACE_OWNER && p.network_id === row.network_id && hasIpv6(p),
      );
      if (existing) {
        const fixed_ips = [...existing.fixed_ips, fixedIp];
        const { port, event } = await this.ports.updateWithin(tx, existing.id, { fixed_ips });
        return { info: interfaceInfo(router.row.id, port, [subnetId]), events: [event] };
      }
    }
    const { port, event } = await this.ports.createWithin(tx, {
      project_id: router.row.project_id,
      network_id: row.network_id,
      fixed_ips: [fixedIp],
      admin_state_up: true,
      device_id: router.row.id,
      device_owner: ROUTER_INTERFACE_OWNER,
      name: '',
    });
    return { info: interfaceInfo(router.row.id, port, [subnetId]), events: [event] };
  }

  /**
   * `_confirm_router_interface_not_in_use`: no floating IP through the router may point at a port
   * on the subnet, and no extra route may use a nexthop on it.
   */
  private async confirmNotInUse(tx: Tx, router: RouterRecord, subnet: SubnetTable): Promise<void> {
    const net = parseNetwork(subnet.cidr)!;
    const portsOnSubnet = new Set(
      (await tx.selectFrom('ip_allocations').select('port_id').where('subnet_id', '=', subnet.id).execute()).map(
        (r) => r.port_id,
      ),
    );
    for (const fip of await floatingIpsWhere(tx, { router_id: router.row.id })) {
      const fixed = fip.fixed_ip_address ? parseIp(fip.fixed_ip_address) : null;
      if (fixed && containsAddress(net, fixed.version, fixed.value) && portsOnSubnet.has(fip.fixed_port_id!)) {
        throw RouterInterfaceInUseByFloatingIP({ router_id: router.row.id, subnet_id: subnet.id });
      }
    }
    if (router.routes.some((route) => routeUsesCidr(route, subnet.cidr))) {
      throw RouterInterfaceInUseByRoute({ router_id: router.row.id, subnet_id: subnet.id });
    }
  }

  /** Detaches a port (and checks its subnet, if named) or a subnet. */
  async remove(
    tx: Tx,
    ctx: RequestContext,
    router: RouterRecord,
    body: Body,
  ): Promise<{ info: RouterInterfaceInfo; events: ResourceContext[] }> {
    const request = parseInterfaceRequest(body, true);
    return request.portId
      ? this.removePort(tx, router, request.portId, request.subnetId)
      : this.removeSubnet(tx, ctx, router, request.subnetId!);
  }

  private async removePort(tx: Tx, router: RouterRecord, portId: string, subnetId: string | undefined) {
    const port = (await this.routerPorts(tx, router.row.id)).find(
      (p) => p.id === portId && p.device_owner === ROUTER_INTERFACE_OWNER,
    );
    if (!port) throw RouterInterfaceNotFound({ router_id: router.row.id, port_id: portId });
    const subnetIds = port.fixed_ips.map((ip) => ip.subnet_id);
    if (subnetId && !subnetIds.includes(subnetId))
      throw SubnetMismatchForPort({ port_id: portId, subnet_id: subnetId });
    for (const id of subnetIds) {
      const subnet = await getSubnetRow(tx, id);
      if (subnet) await this.confirmNotInUse(tx, router, subnet);
    }
    const events = await this.ports.deleteWithin(tx, portId);
    return { info: interfaceInfo(router.row.id, port, subnetIds, subnetIds[0]), events };
  }

  private async removeSubnet(tx: Tx, ctx: RequestContext, router: RouterRecord, subnetId: string) {
    await this.subnets.getVisible(tx, ctx, subnetId);
    const subnet = (await getSubnetRow(tx, subnetId))!;
    const ports = (await this.routerPorts(tx, router.row.id)).filter(
      (p) => p.device_owner === ROUTER_INTERFACE_OWNER && p.network_id === subnet.network_id,
    );
    if (ports.length) await this.confirmNotInUse(tx, router, subnet);
    for (const port of ports) {
      const fixedIps = port.fixed_ips;
      if (!fixedIps.some((ip) => ip.subnet_id === subnetId)) continue;
      if (fixedIps.length > 1) {
        // A multi-prefix IPv6 port loses the one prefix.
        const fixed_ips = fixedIps.filter((ip) => ip.subnet_id !== subnetId);
        const { event } = await this.ports.updateWithin(tx, port.id, { fixed_ips });
        return { info: interfaceInfo(router.row.id, port, [subnetId]), events: [event] };
      }
      return {
        info: interfaceInfo(router.row.id, port, [subnetId]),
        events: await this.ports.deleteWithin(tx, port.id),
      };
    }
    throw RouterInterfaceNotFoundForSubnet({ router_id: router.row.id, subnet_id: subnetId });
  }
}

/** Whether an RBAC policy shares the network with exactly this project (not the `*` wildcard). */
function sharedWithProject(network: NetworkAccess, projectId: string | null): boolean {
  return network.rbac.some((r) => r.action === ACCESS_AS_SHARED && r.target_project === projectId);
}
