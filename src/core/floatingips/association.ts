/**
 * Where a floating IP points (`l3_db._check_and_get_fip_assoc`, `_internal_fip_assoc_data`,
 * `get_router_for_floatingip`): a fixed IPv4 address of an internal port of the floating IP's
 * project, and the router that joins that address's subnet to the floating IP's external
 * network (the one holding the subnet's gateway address first).
 */
import type { FloatingIpAssociationRequest } from './body.js';
import type { Tx } from '../../store/database.js';
import { floatingIpOnFixedIp } from '../../store/floatingips.js';
import { routersBetween } from '../../store/routers.js';
import type { FloatingIpTable } from '../../store/schema.js';
import { getSubnetRow } from '../../store/subnets.js';
import type { RequestContext } from '../context.js';
import { BadRequest, ExternalGatewayForFloatingIPNotFound, FloatingIPPortAlreadyAssociated } from '../errors.js';
import { parseIp } from '../ip.js';
import type { PortService } from '../ports/service.js';

/** The association columns; all null when the floating IP is not associated. */
export interface Association {
  readonly portId: string | null;
  readonly fixedIp: string | null;
  readonly routerId: string | null;
}

const NONE: Association = { portId: null, fixedIp: null, routerId: null };

const fipError = (msg: string) => BadRequest({ resource: 'floatingip', msg });

/**
 * The association a create or update body asks for, or undefined when it leaves it as it is.
 * An update that names no port but changes something re-checks the current one (so a new
 * `fixed_ip_address` applies), as Neutron does; an empty update dissociates, as Neutron does too.
 */
export async function resolveAssociation(
  tx: Tx,
  ctx: RequestContext,
  ports: PortService,
  fip: FloatingIpTable,
  body: FloatingIpAssociationRequest,
  isCreate: boolean,
): Promise<Association | undefined> {
  const portId = body.port_id;
  if (body.fixed_ip_address && !portId) {
    throw fipError('fixed_ip_address cannot be specified without a port_id');
  }
  if (portId) return associate(tx, ctx, ports, fip, portId, body.fixed_ip_address);
  // An empty update dissociates (Neutron only re-reads the current port when the body has something
  // in it; neutron-tempest-plugin's blank-update test expects exactly that).
  if (!isCreate && ('port_id' in body || Object.keys(body).length === 0)) return NONE;
  if (!isCreate && fip.fixed_port_id) {
    return associate(tx, ctx, ports, fip, fip.fixed_port_id, body.fixed_ip_address);
  }
  return undefined;
}

async function associate(
  tx: Tx,
  ctx: RequestContext,
  ports: PortService,
  fip: FloatingIpTable,
  portId: string,
  requestedIp: string | null | undefined,
): Promise<Association> {
  const port = await ports.getVisible(tx, ctx, portId);
  if (port.project_id !== fip.project_id && !ctx.isAdmin) {
    throw fipError(
      `Cannot process floating IP association with Port ${portId}, since that port is owned by a different project`,
    );
  }
  if (port.device_owner === 'network:dhcp') throw fipError(`Port ${portId} is unable to be assigned a floating IP`);
  const fixedIps = port.fixed_ips;
  let chosen: { subnet_id: string; ip_address: string } | undefined;
  if (requestedIp) {
    if (parseIp(requestedIp)?.version !== 4) {
      throw fipError(`Cannot process floating IP association with ${requestedIp}, since that is not an IPv4 address`);
    }
    chosen = fixedIps.find((f) => f.ip_address === requestedIp);
    if (!chosen) throw fipError(`Port ${portId} does not have fixed ip ${requestedIp}`);
  } else {
    const v4 = fixedIps.filter((f) => parseIp(f.ip_address)?.version === 4);
    if (v4.length === 0) throw fipError(`Cannot add floating IP to port ${portId} that has no fixed IPv4 addresses`);
    if (v4.length > 1) {
      throw fipError(
        `Port ${portId} has multiple fixed IPv4 addresses.  Must provide a specific IPv4 address when assigning a floating IP`,
      );
    }
    chosen = v4[0]!;
  }
  const routerId = await routerFor(tx, chosen.subnet_id, fip.floating_network_id, portId);
  if (portId !== fip.fixed_port_id) {
    const taken = await floatingIpOnFixedIp(tx, fip.floating_network_id, portId, chosen.ip_address);
    if (taken && taken.id !== fip.id) {
      throw FloatingIPPortAlreadyAssociated({
        floating_ip_address: fip.floating_ip_address,
        fip_id: fip.id,
        port_id: portId,
        fixed_ip: chosen.ip_address,
        net_id: fip.floating_network_id,
      });
    }
  }
  return { portId, fixedIp: chosen.ip_address, routerId };
}

/** `get_router_for_floatingip`: the router on the subnet's gateway address, else the first that connects. */
async function routerFor(tx: Tx, subnetId: string, externalNetworkId: string, portId: string): Promise<string> {
  const candidates = await routersBetween(tx, subnetId, externalNetworkId);
  const gateway = (await getSubnetRow(tx, subnetId))?.gateway_ip;
  const router = candidates.find((c) => c.ip_address === gateway) ?? candidates[0];
  if (!router) {
    throw ExternalGatewayForFloatingIPNotFound({
      subnet_id: subnetId,
      external_network_id: externalNetworkId,
      port_id: portId,
    });
  }
  return router.router_id;
}
