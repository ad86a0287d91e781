/**
 * A router's external gateway (`external_gateway_info`; `l3_db._update_router_gw_info`): a
 * `network:router_gateway` port on an external network, owned by no project, with the addresses
 * the router uses for SNAT. Setting it on another network replaces the port; clearing it deletes
 * the port, unless floating IPs still go through the router.
 */
import type { ResourceContext } from '../../drivers/contract.js';
import type { Tx } from '../../store/database.js';
import { floatingIpsWhere } from '../../store/floatingips.js';
import { isExternal } from '../../store/networks.js';
import { ROUTER_GATEWAY_OWNER, type RouterRecord } from '../../store/routers.js';
import { updateRow } from '../../store/rows.js';
import { subnetsOfNetwork } from '../../store/subnets.js';
import type { RequestContext } from '../context.js';
import type { CoreDeps } from '../deps.js';
import { BadRequest, RouterExternalGatewayInUseByFloatingIp } from '../errors.js';
import type { NetworkService } from '../networks/service.js';
import type { PortService } from '../ports/service.js';
import type { GatewayInfoBody } from './body.js';

export interface FixedIpRequest {
  readonly subnet_id?: string;
  readonly ip_address?: string;
}

export interface GatewayRequest {
  readonly network_id: string;
  readonly external_fixed_ips?: readonly FixedIpRequest[];
  readonly enable_snat?: boolean;
}

/** The body's `external_gateway_info`: a request, or null for "no gateway" (`null` and `{}` alike). */
export function gatewayRequest(info: GatewayInfoBody | undefined): GatewayRequest | null {
  // The attribute map requires `network_id` in any non-empty dict.
  return info?.network_id === undefined ? null : { ...info, network_id: info.network_id };
}

/** `_check_for_external_ip_change`: whether the requested addresses differ from the port's. */
function addressesChanged(
  current: readonly { subnet_id: string; ip_address: string }[],
  requested: readonly FixedIpRequest[],
): boolean {
  const sameSet = (a: Set<string>, b: Set<string>) => a.size === b.size && [...a].every((x) => b.has(x));
  const subnets = new Set(requested.filter((f) => f.subnet_id).map((f) => f.subnet_id!));
  if (!sameSet(new Set(current.map((f) => f.subnet_id)), subnets)) return true;
  const addresses = new Set(requested.filter((f) => f.ip_address).map((f) => f.ip_address!));
  return !sameSet(new Set(current.map((f) => f.ip_address)), addresses);
}

export class RouterGateways {
  constructor(
    private readonly deps: CoreDeps,
    private readonly networks: NetworkService,
    private readonly ports: PortService,
  ) {}

  /** `_validate_gw_info`: the network must be external and no fixed address may be a subnet's gateway. */
  private async validate(tx: Tx, ctx: RequestContext, request: GatewayRequest): Promise<void> {
    const network = await this.networks.getVisible(tx, ctx, request.network_id);
    if (!isExternal(network)) {
      throw BadRequest({ resource: 'router', msg: `Network ${request.network_id} is not an external network` });
    }
    const gateways = (await subnetsOfNetwork(tx, request.network_id)).map((s) => s.gateway_ip).filter(Boolean);
    for (const fixed of request.external_fixed_ips ?? []) {
      if (fixed.ip_address && gateways.includes(fixed.ip_address)) {
        throw BadRequest({ resource: 'router', msg: `External IP ${fixed.ip_address} is the same as the gateway IP` });
      }
    }
  }

  /**
   * Gives the router the requested gateway (or none) inside `tx`: writes `gw_port_id` and
   * `enable_snat` and returns the events of the ports it created, changed or deleted.
   */
  async apply(
    tx: Tx,
    ctx: RequestContext,
    record: RouterRecord,
    request: GatewayRequest | null,
  ): Promise<ResourceContext[]> {
    const router = record.row;
    const current = record.gateway;
    const events: ResourceContext[] = [];
    if (request) await this.validate(tx, ctx, request);
    let gwPortId = router.gw_port_id;
    if (current && gwPortId && current.networkId !== request?.network_id) {
      // Floating IPs reach their ports through this gateway (`_delete_current_gw_port`).
      if ((await floatingIpsWhere(tx, { router_id: router.id })).length > 0) {
        throw RouterExternalGatewayInUseByFloatingIp({ router_id: router.id, net_id: current.networkId });
      }
      await updateRow(this.deps.store, tx, 'routers', router.id, { gw_port_id: null });
      events.push(...(await this.ports.deleteWithin(tx, gwPortId)));
      gwPortId = null;
    }
    if (!request) return events;
    if (!gwPortId) {
      const created = await this.ports.createWithin(tx, {
        // Neutron's gateway port belongs to no project: no user sees or counts it.
        project_id: '',
        network_id: request.network_id,
        device_id: router.id,
        device_owner: ROUTER_GATEWAY_OWNER,
        admin_state_up: true,
        name: '',
        ...(request.external_fixed_ips ? { fixed_ips: request.external_fixed_ips } : {}),
      });
      gwPortId = created.port.id;
      events.push(created.event);
    } else if (request.external_fixed_ips && addressesChanged(current?.fixedIps ?? [], request.external_fixed_ips)) {
      events.push((await this.ports.updateWithin(tx, gwPortId, { fixed_ips: request.external_fixed_ips })).event);
    }
    const enableSnat = request.enable_snat ?? this.deps.config.network.enable_snat_by_default;
    await updateRow(this.deps.store, tx, 'routers', router.id, { gw_port_id: gwPortId, enable_snat: enableSnat });
    return events;
  }
}
