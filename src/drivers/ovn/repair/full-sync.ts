/**
 * The full pass: the whole database against the whole NB, in dependency order (switches and
 * groups, then subnets' DHCP rows, then ports, then group membership), writing every difference in
 * large transactions and removing the rows of resources the database no longer has. Runs at start,
 * after every NB reconnect, periodically, and when drift is too large to repair one by one.
 */
import type { Logger } from 'pino';
import type { FloatingIpState, PortState, ResourceReader, Snapshot } from '../../host.js';
import {
  DROP_PORT_GROUP,
  dropPortGroup,
  isIgnoredPort,
  isMetadataPort,
  isTrustedPort,
  logicalSwitchName,
  portFloatingIp,
  portGroupName,
  securityGroupPortGroup,
  subnetHasDhcpOptions,
} from '../mapping.js';
import type { OvnMetrics } from '../metrics.js';
import type { NbView } from '../nb-view.js';
import { isRouterPort, logicalRouterName } from '../router-mapping.js';
import { planRouter } from '../router-planner.js';
import { effectiveQosPolicyId, planPortQos, withQos } from '../qos.js';
import { Batch, BatchPacer, type NbWriter } from './batch.js';
import type { DesiredState } from './desired-state.js';
import { keyOf } from './resource-key.js';
import {
  planNetwork,
  planNetworkDhcpCleanup,
  planPort,
  planPortGroup,
  planSubnetDhcp,
  type Outcome,
} from '../planner.js';

export type { NbWriter } from './batch.js';

export interface FullSyncReport {
  readonly created: number;
  readonly updated: number;
  readonly deleted: number;
  readonly unchanged: number;
  readonly seconds: number;
}

/**
 * A pass's report, and the ports of the database snapshot it compared: the status pass that
 * follows (`afterFullPass`) compares those rather than reading every port again (at 100,000 ports
 * a second read held the event loop ~1.5 s, and its garbage ~2 s more, before the API opened).
 */
export interface FullSyncResult {
  readonly report: FullSyncReport;
  readonly ports: readonly PortState[];
}

export interface FullSyncDeps {
  readonly writer: NbWriter;
  readonly nbView: NbView;
  readonly desired: DesiredState;
  readonly reader: ResourceReader;
  readonly metrics: OvnMetrics;
  readonly logger: Logger;
}

export async function fullSync(deps: FullSyncDeps): Promise<FullSyncResult> {
  const started = process.hrtime.bigint();
  const snapshot = await deps.reader.snapshot();
  const { nbView: nb, desired: desiredState } = deps;
  const counts: Record<Outcome, number> = { created: 0, updated: 0, deleted: 0, unchanged: 0 };
  // Every port may join one group (`neutron_pg_drop`): the largest set a transaction mutates.
  const pacer = new BatchPacer(undefined, undefined, BatchPacer.floorFor(snapshot.ports.length));
  const batch = new Batch(deps.writer, counts, deps.logger, pacer);

  // 1. Switches (with localnet ports) and groups (membership comes last, once every LSP exists).
  await batch.add('drop', () => planPortGroup(nb, DROP_PORT_GROUP, dropPortGroup(), undefined));
  const networks = new Map(snapshot.networks.map((n) => [n.id, n]));
  for (const network of snapshot.networks) {
    const desired = desiredState.network(network);
    const name = logicalSwitchName(network.id);
    await batch.add(keyOf('network', network.id), () => planNetwork(nb, name, desired));
  }
  for (const row of [...nb.logicalSwitches()]) {
    const id = row.name.startsWith('neutron-') ? row.name.slice('neutron-'.length) : undefined;
    if (id && !networks.has(id))
      await batch.add(
        keyOf('network', id),
        () => planNetwork(nb, row.name, undefined),
        planNetworkDhcpCleanup(nb, id),
        false,
      );
  }
  const groups = new Map(snapshot.securityGroups.map((g) => [g.id, g]));
  for (const group of snapshot.securityGroups) {
    const desired = securityGroupPortGroup(group);
    await batch.add(keyOf('security_group', group.id), () =>
      planPortGroup(nb, portGroupName(group.id), desired, undefined),
    );
  }
  for (const row of [...nb.portGroups()]) {
    const id = row.external_ids['neutron:security_group_id'];
    if (id && !groups.has(id))
      await batch.add(keyOf('security_group', id), () => planPortGroup(nb, row.name, undefined, undefined), [], false);
  }
  await batch.flush();

  // 2. Subnets' DHCP rows.
  const subnets = new Map(snapshot.subnets.map((s) => [s.id, s]));
  const metadataIps = metadataAddresses(snapshot);
  for (const subnet of snapshot.subnets) {
    const network = networks.get(subnet.network_id);
    const desired =
      network && subnetHasDhcpOptions(subnet)
        ? desiredState.subnet(subnet, network, metadataIps.get(subnet.id))
        : undefined;
    await batch.add(keyOf('subnet', subnet.id), () => planSubnetDhcp(nb, subnet.id, desired));
  }
  for (const row of [...nb.dhcpOptions()]) {
    const id = row.external_ids.subnet_id;
    if (id && !subnets.has(id))
      await batch.add(keyOf('subnet', id), () => planSubnetDhcp(nb, id, undefined), [], false);
  }
  await batch.flush();

  // 3. Ports (a virtual port's parents are the ports listing its address as an allowed pair).
  const holders = new Map<string, Map<string, string[]>>();
  for (const port of snapshot.ports) {
    for (const pair of port.allowed_address_pairs) {
      const byAddress = holders.get(port.network_id) ?? new Map<string, string[]>();
      holders.set(port.network_id, byAddress);
      byAddress.set(pair.ip_address, [...new Set([...(byAddress.get(pair.ip_address) ?? []), port.id])].sort());
    }
  }
  const floatingIpsOf = new Map<string, FloatingIpState[]>();
  for (const fip of snapshot.floatingIps) {
    if (fip.port_id) floatingIpsOf.set(fip.port_id, [...(floatingIpsOf.get(fip.port_id) ?? []), fip]);
  }
  const ports = new Set<string>();
  const qosPolicies = snapshot.ports.map(effectiveQosPolicyId).filter((id): id is string => id !== null);
  const qosRules = qosPolicies.length > 0 ? await deps.reader.qosRules(qosPolicies) : new Map<string, never[]>();
  for (const port of inNetworkOrder(snapshot.ports)) {
    if (isIgnoredPort(port) || !networks.has(port.network_id)) continue;
    ports.add(port.id);
    const network = networks.get(port.network_id)!;
    const policyId = effectiveQosPolicyId(port);
    await batch.add(
      keyOf('port', port.id),
      desiredState.portPlan(
        port,
        network,
        subnets,
        holders.get(port.network_id) ?? new Map(),
        (policyId && qosRules.get(policyId)) || [],
        portFloatingIp(floatingIpsOf.get(port.id) ?? []),
      ),
    );
  }
  const gone = (id: string) =>
    withQos(
      planPort(nb, id, '', undefined, () => undefined),
      planPortQos(nb, id, '', []),
    );
  for (const row of [...nb.switchPorts()]) {
    if (row.external_ids['neutron:port_name'] !== undefined && !ports.has(row.name)) {
      await batch.add(keyOf('port', row.name), () => gone(row.name), [], false);
    }
  }
  // QoS rows of ports that are gone (their LSP went first, or by hand).
  for (const id of new Set(nb.allPortQos().map((row) => row.external_ids['neutron:port_id']!))) {
    if (!ports.has(id) && !nb.switchPort(id)) await batch.add(keyOf('port', id), () => gone(id), [], false);
  }
  await batch.flush();

  // 4. Group membership, compared here only: the groups' drift checks (from step 1) leave it to the ports.
  const guarded = snapshot.ports.filter((p) => !isTrustedPort(p) && p.port_security_enabled && ports.has(p.id));
  const dropMembers = nb.switchPortUuids(guarded.map((p) => p.id));
  await batch.add('drop', () => planPortGroup(nb, DROP_PORT_GROUP, dropPortGroup(), dropMembers), [], false);
  const membersOf = groupMembers(snapshot, ports);
  for (const group of snapshot.securityGroups) {
    const desired = securityGroupPortGroup(group);
    const members = nb.switchPortUuids(membersOf.get(group.id) ?? []);
    const name = portGroupName(group.id);
    await batch.add(keyOf('security_group', group.id), () => planPortGroup(nb, name, desired, members), [], false);
  }
  await batch.flush();

  // 5. Routers (their ports' LSPs exist now), with their NAT, routes and gateway chassis.
  const routers = new Set(snapshot.routers.map((r) => r.id));
  for (const router of snapshot.routers) {
    const ports = snapshot.ports.filter((p) => p.device_id === router.id && isRouterPort(p));
    const fips = snapshot.floatingIps.filter((f) => f.router_id === router.id);
    const rows = await desiredState.routerRows(router, ports, fips);
    const name = logicalRouterName(router.id);
    await batch.add(keyOf('router', router.id), () => planRouter(nb, name, rows));
  }
  for (const row of [...nb.logicalRouters()]) {
    const id = row.name.startsWith('neutron-') ? row.name.slice('neutron-'.length) : undefined;
    if (id && !routers.has(id))
      await batch.add(keyOf('router', id), () => planRouter(nb, row.name, undefined), [], false);
  }
  for (const group of [...nb.haChassisGroups()]) {
    const id = group.external_ids['neutron:router_id'];
    if (id && !routers.has(id) && !nb.logicalRouter(group.name)) {
      await batch.add(keyOf('router', id), () => planRouter(nb, group.name, undefined), [], false);
    }
  }
  await batch.flush();

  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  deps.metrics.lastFullSyncSeconds.set(seconds);
  return { report: { ...counts, seconds }, ports: snapshot.ports };
}

/**
 * The ports grouped by network (networks in order of first appearance, ports in their order within
 * each). Every new port also adds itself to its switch's `ports`, so a transaction modifies one
 * Logical_Switch row per network among its ports: in the snapshot's order (by id) a transaction of
 * 4,000 ports touched ~980 of 1,000 switches, and each of those rows was copied, logged and sent
 * to every monitor (ovn-northd's, ours) again in every transaction, work that grew with ports ×
 * networks. Grouped, a transaction touches ~40.
 */
export function inNetworkOrder<P extends { readonly network_id: string }>(ports: readonly P[]): P[] {
  const byNetwork = new Map<string, P[]>();
  for (const port of ports) {
    const list = byNetwork.get(port.network_id);
    if (list) list.push(port);
    else byNetwork.set(port.network_id, [port]);
  }
  return [...byNetwork.values()].flat();
}

/** Each subnet's metadata port address. */
function metadataAddresses(snapshot: Snapshot): Map<string, string> {
  const result = new Map<string, string>();
  for (const port of snapshot.ports) {
    if (!isMetadataPort(port)) continue;
    for (const ip of port.fixed_ips) result.set(ip.subnet_id, ip.ip_address);
  }
  return result;
}

/** Security group id → ids of its (untrusted) member ports. */
function groupMembers(snapshot: Snapshot, ports: ReadonlySet<string>): Map<string, string[]> {
  const result = new Map<string, string[]>();
  for (const port of snapshot.ports) {
    if (isTrustedPort(port) || !ports.has(port.id)) continue;
    for (const group of port.security_groups) {
      const list = result.get(group);
      if (list) list.push(port.id);
      else result.set(group, [port.id]);
    }
  }
  return result;
}
