/**
 * What the NB should hold for one resource, built from its database state (`mapping.ts`,
 * `router-mapping.ts`) and, where OVN chose something octonet must keep (a subnet's DHCP server
 * MAC, a router's gateway chassis), from the NB replica. Shared by the per-resource repair
 * (`nb-sync.ts`) and the full pass (`full-sync.ts`), so both write the same rows. Writes nothing.
 */
import type {
  FloatingIpState,
  NetworkState,
  PortState,
  QosRuleState,
  ResourceReader,
  RouterState,
  SubnetState,
} from '../../host.js';
import {
  localnetPorts,
  logicalSwitch,
  logicalSwitchName,
  subnetDhcpOptions,
  switchPortRows,
  type DhcpOptionsSpec,
  type MappingOptions,
} from '../mapping.js';
import type { NbView } from '../nb-view.js';
import { planPort } from '../planner.js';
import { planPortQos, portQosRows, withQos } from '../qos.js';
import { logicalRouterName, routerRows, type RouterOptions, type RouterRows } from '../router-mapping.js';

export interface DesiredStateOptions {
  readonly nbView: NbView;
  readonly reader: ResourceReader;
  readonly mapping: MappingOptions;
  readonly randomMac: () => string;
  /** Router options ML2/OVN takes from its config, and whether networks get metadata ports. */
  readonly router: RouterOptions & { metadataEnabled: boolean };
  /** The chassis a router's gateway goes to, most preferred first (the driver knows the SB). */
  readonly scheduleGateway: (
    router: RouterState,
    external: NetworkState | undefined,
    current: readonly string[],
  ) => string[];
}

export class DesiredState {
  constructor(private readonly options: DesiredStateOptions) {}

  network(network: NetworkState) {
    return {
      logicalSwitch: logicalSwitch(network, this.options.mapping),
      localnets: localnetPorts(network, this.options.mapping),
    };
  }

  subnet(subnet: SubnetState, network: NetworkState, metadataIp: string | undefined): DhcpOptionsSpec {
    const existing = this.options.nbView.subnetDhcp(subnet.id)?.options;
    const serverMac =
      (subnet.ip_version === 4 ? existing?.server_mac : existing?.server_id) ?? this.options.randomMac();
    return subnetDhcpOptions(subnet, network, metadataIp, serverMac, this.options.mapping);
  }

  portPlan(
    port: PortState,
    network: Pick<NetworkState, 'id' | 'mtu'>,
    subnets: ReadonlyMap<string, SubnetState>,
    addressPairHolders: ReadonlyMap<string, readonly string[]>,
    qosRules: readonly QosRuleState[],
    floatingIp: string | undefined,
  ) {
    const nb = this.options.nbView;
    const rows = switchPortRows(port, {
      network,
      subnets,
      subnetDhcp: (subnetId) => nb.subnetDhcp(subnetId),
      addressPairHolders,
      vipFailover: this.options.mapping.vipFailover,
      floatingIp,
    });
    const switchName = logicalSwitchName(port.network_id);
    const qos = portQosRows(port, qosRules);
    // The plan is kept as the port's drift check for as long as the port lives: it holds the
    // port's id and rows, not the whole port (at 100,000 ports, the difference is tens of MiB).
    return portPlanOf(nb, port.id, switchName, rows, qos);
  }

  /** A router's rows from its ports, their subnets and networks, and its floating IPs. */
  async routerRows(
    router: RouterState,
    ports: readonly PortState[],
    floatingIps: readonly FloatingIpState[],
  ): Promise<RouterRows> {
    const { reader } = this.options;
    const subnets = new Map(
      (await reader.subnets([...new Set(ports.flatMap((p) => p.fixed_ips.map((ip) => ip.subnet_id)))])).map((s) => [
        s.id,
        s,
      ]),
    );
    const networks = new Map<string, NetworkState>();
    for (const id of new Set([
      ...ports.map((p) => p.network_id),
      ...(router.external_gateway_info ? [router.external_gateway_info.network_id] : []),
    ])) {
      const network = await reader.network(id);
      if (network) networks.set(id, network);
    }
    const external = router.external_gateway_info ? networks.get(router.external_gateway_info.network_id) : undefined;
    const current = this.options.nbView.gatewayChassisOf(logicalRouterName(router.id));
    const gatewayChassis = router.gw_port_id ? this.options.scheduleGateway(router, external, current) : [];
    const floatingIpPortMacs = new Map<string, string>();
    if (this.options.router.distributedFloatingIps) {
      for (const fip of floatingIps) {
        const port = fip.port_id ? await reader.port(fip.port_id) : undefined;
        if (port) floatingIpPortMacs.set(port.id, port.mac_address);
      }
    }
    return routerRows(
      router,
      { ports, subnets, networks, floatingIps, floatingIpPortMacs, gatewayChassis },
      this.options.router,
    );
  }
}

/** A port's plan, made outside `portPlan` so that it closes over only what it needs. */
function portPlanOf(
  nb: NbView,
  portId: string,
  switchName: string,
  rows: ReturnType<typeof switchPortRows>,
  qos: ReturnType<typeof portQosRows>,
) {
  return () =>
    withQos(
      planPort(nb, portId, switchName, rows, (subnetId) => nb.subnetDhcp(subnetId)?._uuid),
      planPortQos(nb, portId, switchName, qos),
    );
}
