/**
 * One level-triggered pass of the node agent: read everything (the node's port in Neutron, the
 * chassis name and the interface in the node's own OVS, the link in the kernel), change only what
 * differs, then check the result and say why it is not ready. Running it again with nothing
 * changed changes nothing. It owns one OVS interface per node (marked with the spec's name) and
 * the addresses and routes on it; it touches one Neutron attribute, the port's `binding:host_id`.
 *
 * The port is found by its owner tags (`octonet-mgmt-net:<name>` and `octonet-node:<node>`), never
 * by name: a port someone else made with the same name is not ours. No port means the node left
 * (or the operator has not made it yet): the interface is removed, so a node that left stops
 * answering on its old address even if OVN's flows linger.
 */
import ipaddr from 'ipaddr.js';
import { buildConditions, type ConditionInput, type NodeCondition } from './conditions.js';
import { hostFromPrefix, type NodeHost } from './host.js';
import { canonicalAddress, reconcileLink, readLink, routeKey, type WantedAddress, type WantedRoute } from './link.js';
import type { NeutronPort, NeutronSubnet, NodeAgentNeutron } from './neutron.js';
import {
  interfaceDrift,
  isOwned,
  plugInterface,
  readChassisHost,
  readInterface,
  repairInterface,
  unplugInterface,
  type WantedInterface,
} from './ovs-interface.js';
import { findPort, linkRouterRoutes, nodeTag, ownerTag, peerAddresses } from './port-lookup.js';
import { probeHeartbeatPath, type ProbeResult } from './probe.js';

export { HEALTH_MANAGER_OWNER, nodeTag, ownerTag } from './port-lookup.js';

export const DEFAULT_NODE_INTERFACE = 'o-hm0';

/** The part of the OctaviaManagementNetwork the agent reads; the core's full spec fits it. */
export interface NodeAgentSpec {
  metadata: { name: string };
  spec: {
    nodeInterface?: string;
    topology?: string;
    /** A node's `chassis` pins `binding:host_id`: the core sets it, the agent only checks it. */
    nodes?: readonly { name: string; chassis?: string }[];
  };
}

/** pino's calling convention, so a pino logger fits; the default says nothing. */
export interface NodeAgentLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

export interface NodeAgentPassOptions {
  client: NodeAgentNeutron;
  spec: NodeAgentSpec;
  /** The node's name in the spec (`nodes[].name`), as in the port's `octonet-node:` tag. */
  node: string;
  /** Where commands run: an argv prefix (`lab.nodeCommand(node, [])`, `[]` on the node itself) or a runner. */
  host: NodeHost | readonly string[];
  log?: NodeAgentLog;
  /** Routes to add besides the subnets' host routes and the link router's (e.g. from the CLI). */
  routes?: readonly { destination: string; nexthop: string }[];
  /** Skip the active probe (HeartbeatPathOpen becomes Unknown). Default: probe. */
  probe?: boolean;
  /** After a change, how long to wait for Neutron to report the port ACTIVE (default 15 s). */
  settleMs?: number;
  /** The previous pass's report, to keep condition transition times. */
  previous?: NodeAgentReport;
}

export interface NodeAgentReport {
  node: string;
  interface: string;
  chassis?: string;
  port?: {
    id: string;
    mac: string;
    networkId: string;
    fixedIps: string[];
    status: string;
    hostId: string;
  };
  mtu?: number;
  routes: string[];
  /** What this pass changed, in words; empty when everything already was as it should be. */
  actions: string[];
  conditions: NodeCondition[];
  ready: boolean;
}

const quiet: NodeAgentLog = { info: () => undefined, warn: () => undefined };
const familyOf = (address: string): 4 | 6 => (ipaddr.parse(address).kind() === 'ipv6' ? 6 : 4);
const isDefault = (cidr: string) => /\/0$/.test(cidr);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function condition(status: ConditionInput['status'], reason: string, message: string): ConditionInput {
  return { status, reason, message };
}

function portBound(port: NeutronPort, chassis: string): ConditionInput {
  const host = port['binding:host_id'] ?? '';
  const vif = port['binding:vif_type'];
  if (host !== chassis) {
    return condition(
      'False',
      'HostMismatch',
      `binding:host_id is ${JSON.stringify(host)}, this node's chassis registers as ${chassis}` +
        ' (fix spec.nodes[].chassis, or remove it and let the agent set it)',
    );
  }
  if (vif === 'binding_failed') {
    return condition(
      'False',
      'BindingFailed',
      `Neutron could not bind the port to ${chassis}: is ovn-controller running and registered as that chassis?`,
    );
  }
  if (port.admin_state_up === false) return condition('False', 'AdminDown', 'the port is administratively down');
  if (port.status !== 'ACTIVE') {
    return condition(
      'False',
      'PortNotActive',
      `Neutron reports the port ${port.status} (OVN has not reported it up: is the interface plugged on ${chassis}?)`,
    );
  }
  return condition('True', 'Active', `ACTIVE and bound to chassis ${chassis}`);
}

export async function runNodeAgentPass(options: NodeAgentPassOptions): Promise<NodeAgentReport> {
  const { client, spec, node } = options;
  const host = typeof options.host === 'function' ? options.host : hostFromPrefix(options.host);
  const log = options.log ?? quiet;
  const dev = spec.spec.nodeInterface ?? DEFAULT_NODE_INTERFACE;
  const owner = spec.metadata.name;
  const actions: string[] = [];
  const report = (
    found: Parameters<typeof buildConditions>[0],
    rest: Partial<NodeAgentReport> = {},
  ): NodeAgentReport => {
    const conditions = buildConditions(found, options.previous?.conditions);
    return {
      node,
      interface: dev,
      routes: [],
      ...rest,
      actions,
      conditions,
      ready: conditions[0]!.status === 'True',
    };
  };
  const done = (what: string, fields: object = {}) => {
    actions.push(what);
    log.info({ node, interface: dev, ...fields }, what);
  };

  // `chassis` below is the host name the chassis registers with (what binding:host_id must say).
  let chassis: string;
  try {
    chassis = (await readChassisHost(host)).hostname;
  } catch (error) {
    const why = condition('False', 'OvsUnreachable', `cannot read this node's OVS: ${(error as Error).message}`);
    return report({
      PortBound: why,
      Plugged: why,
      Addressed: why,
      HeartbeatPathOpen: condition('Unknown', 'OvsUnreachable', why.message),
    });
  }
  const pinned = spec.spec.nodes?.find((n) => n.name === node)?.chassis;

  let actual = await readInterface(host, dev);
  const { port: found, duplicates } = await findPort(client, spec, node, actual?.externalIds['iface-id']);
  if (duplicates.length) log.warn({ node, duplicates }, 'more than one port is tagged for this node; using one');

  if (!found) {
    if (actual && isOwned(actual, owner)) {
      await unplugInterface(host, dev);
      done(`unplugged ${dev}: no port is tagged for node ${node}`);
    }
    const gone = condition('False', 'PortNotFound', `no port tagged ${ownerTag(spec)} and ${nodeTag(node)}`);
    return report(
      {
        PortBound: gone,
        Plugged: gone,
        Addressed: gone,
        HeartbeatPathOpen: condition('Unknown', 'PortNotFound', gone.message),
      },
      { chassis },
    );
  }
  let port = found;

  if (pinned !== undefined && pinned !== chassis) {
    log.warn(
      { node, pinned, chassis },
      `spec.nodes[].chassis pins binding:host_id to ${pinned}, but this node's OVS registers as ${chassis}`,
    );
  } else if ((port['binding:host_id'] ?? '') !== chassis) {
    const before = port['binding:host_id'] ?? '';
    port = await client.updatePort(port.id, { 'binding:host_id': chassis });
    done(`binding:host_id ${JSON.stringify(before)} → ${chassis} (the chassis name in this node's OVS)`, {
      port: port.id,
    });
  }

  const network = await client.getNetwork(port.network_id);
  const subnets = new Map<string, NeutronSubnet>();
  for (const fixed of port.fixed_ips) {
    if (!subnets.has(fixed.subnet_id)) subnets.set(fixed.subnet_id, await client.getSubnet(fixed.subnet_id));
  }
  const wanted: WantedInterface = { name: dev, portId: port.id, mac: port.mac_address, mtu: network.mtu, owner };

  if (actual && !isOwned(actual, owner)) {
    const foreign = condition(
      'False',
      'InterfaceNotOwned',
      `${dev} exists without external_ids:octonet-mgmt-net=${owner}; not touching it (remove it, or set nodeInterface)`,
    );
    return report(
      {
        PortBound: portBound(port, chassis),
        Plugged: foreign,
        Addressed: condition('Unknown', 'InterfaceNotOwned', foreign.message),
        HeartbeatPathOpen: condition('Unknown', 'InterfaceNotOwned', foreign.message),
      },
      { chassis },
    );
  }
  if (!actual || actual.error || actual.ofport === -1) {
    await plugInterface(host, wanted);
    done(actual ? `re-plugged ${dev} (${actual.error ?? 'no OpenFlow port'})` : `plugged ${dev} on br-int`, {
      port: port.id,
    });
  } else {
    const { replug, drift } = interfaceDrift(actual, wanted);
    if (replug) {
      await plugInterface(host, wanted);
      done(`re-plugged ${dev}: ${drift.join(', ')} differed`, { port: port.id });
    } else if (drift.length) {
      await repairInterface(host, wanted);
      done(`repaired ${dev} in OVS: ${drift.join(', ')}`, { port: port.id });
    }
  }

  // Addresses: every fixed IP with its subnet's prefix length.
  const addresses: WantedAddress[] = port.fixed_ips.map((f) => {
    const prefix = subnets.get(f.subnet_id)!.cidr.split('/')[1];
    return { cidr: `${f.ip_address}/${prefix}`, family: familyOf(f.ip_address) };
  });
  const routes: WantedRoute[] = [];
  for (const subnet of subnets.values()) {
    for (const route of subnet.host_routes ?? []) {
      if (isDefault(route.destination)) {
        log.warn({ node, subnet: subnet.id }, 'ignoring a default host route: the management interface never gets one');
        continue;
      }
      routes.push({ ...route, family: familyOf(route.nexthop) });
    }
  }
  const linkRouter = await linkRouterRoutes(client, spec, port, network.mtu, subnets);
  routes.push(...linkRouter.routes);
  for (const route of options.routes ?? []) routes.push({ ...route, family: familyOf(route.nexthop) });
  // One route per destination: a subnet host route and the router's own (with its path MTU) may
  // name the same one; the later, more specific source wins.
  const unique = [...new Map(routes.map((r) => [canonicalAddress(r.destination), r])).values()];

  const link = await readLink(host, dev);
  let addressed: ConditionInput;
  if (!link.exists) {
    addressed = condition('False', 'DeviceMissing', `vswitchd has not created the ${dev} device`);
  } else {
    const changes = await reconcileLink(
      host,
      { name: dev, mac: port.mac_address, mtu: network.mtu, addresses, routes: unique },
      link,
    );
    if (changes.length) done(`configured ${dev}: ${changes.join(', ')}`, { port: port.id });
    addressed = condition(
      'True',
      'StaticAddresses',
      `${addresses.map((a) => a.cidr).join(', ')}, MTU ${network.mtu}${unique.length ? `, routes ${unique.map(routeKey).join(', ')}` : ''}`,
    );
  }

  // Check: after a change, give ovn-controller and Neutron a moment to report the binding.
  const giveUpAt = Date.now() + (actions.length ? (options.settleMs ?? 15_000) : 0);
  let bound: ConditionInput;
  for (;;) {
    port = (await client.getPort(port.id)) ?? port;
    bound = portBound(port, chassis);
    if (bound.status === 'True' || Date.now() >= giveUpAt) break;
    await sleep(200);
  }
  actual = await readInterface(host, dev);
  let plugged: ConditionInput;
  if (!actual) plugged = condition('False', 'InterfaceMissing', `${dev} is not in OVS`);
  else if (actual.error) plugged = condition('False', 'InterfaceError', `OVS: ${actual.error}`);
  else if (actual.externalIds['ovn-installed'] !== 'true') {
    plugged = condition(
      'False',
      'FlowsNotInstalled',
      `ovn-controller has not installed flows for ${dev} (is binding:host_id this chassis, ${chassis}?)`,
    );
  } else
    plugged = condition(
      'True',
      'OvnInstalled',
      `${dev} on br-int, port ${port.id}, ovn-controller installed its flows`,
    );

  let probe: ProbeResult;
  if (options.probe === false) probe = { status: 'Unknown', reason: 'ProbeDisabled', message: 'the probe is off' };
  else if (plugged.status !== 'True' || addressed.status !== 'True') {
    probe = {
      status: 'Unknown',
      reason: 'NotPlugged',
      message: 'nothing to probe from until the interface is plugged and addressed',
    };
  } else {
    const families = new Set(addresses.map((a) => a.family));
    const peers = (await peerAddresses(client, spec, port)).map((address) => ({ address, mtu: network.mtu }));
    const targets = [...linkRouter.gateways, ...peers].filter((t) => families.has(familyOf(t.address))).slice(0, 3);
    probe = await probeHeartbeatPath(host, dev, targets);
  }

  return report(
    { PortBound: bound, Plugged: plugged, Addressed: addressed, HeartbeatPathOpen: probe },
    {
      chassis,
      port: {
        id: port.id,
        mac: port.mac_address,
        networkId: port.network_id,
        fixedIps: port.fixed_ips.map((f) => f.ip_address),
        status: port.status,
        hostId: port['binding:host_id'] ?? '',
      },
      mtu: network.mtu,
      routes: unique.map(routeKey),
    },
  );
}
