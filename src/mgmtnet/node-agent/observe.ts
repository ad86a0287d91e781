/**
 * The node agent's reads, and what it concludes from them: the chassis name in the node's own OVS,
 * the interface, this node's port (by its owner tags, never by name) with its network and subnets;
 * and after the other steps, whether the port is bound (PortBound) and the interface plugged
 * (Plugged). Nothing here writes.
 */
import { finding, type Finding } from '../conditions.js';
import type { NodeStep } from './context.js';
import type { NeutronNetwork, NeutronPort, NeutronSubnet } from './neutron.js';
import { readChassisHost, readInterface, type ActualInterface } from './ovs-interface.js';
import { findPort } from './port-lookup.js';

/**
 * The host name this node's chassis registers with (what `binding:host_id` must say), or why it
 * cannot be read (then nothing else can be done on this node).
 */
export async function readChassis(step: NodeStep): Promise<string | Finding> {
  try {
    return (await readChassisHost(step.host)).hostname;
  } catch (error) {
    return finding('False', 'OvsUnreachable', `cannot read this node's OVS: ${(error as Error).message}`);
  }
}

export interface ObservedNode {
  /** The interface in OVS, whoever made it; undefined when there is none. */
  readonly iface: ActualInterface | undefined;
  /** This node's port; undefined when none is tagged for it. */
  readonly port: NeutronPort | undefined;
}

export async function observeNode(step: NodeStep): Promise<ObservedNode> {
  const iface = await readInterface(step.host, step.dev);
  const { port, duplicates } = await findPort(step.client, step.spec, step.node, iface?.externalIds['iface-id']);
  if (duplicates.length) {
    step.log.warn({ node: step.node, duplicates }, 'more than one port is tagged for this node; using one');
  }
  return { iface, port };
}

export interface PortNetwork {
  readonly network: NeutronNetwork;
  /** The subnets of the port's fixed IPs, by ID (later look-ups add to it). */
  readonly subnets: Map<string, NeutronSubnet>;
}

export async function readPortNetwork(step: NodeStep, port: NeutronPort): Promise<PortNetwork> {
  const network = await step.client.getNetwork(port.network_id);
  const subnets = new Map<string, NeutronSubnet>();
  for (const fixed of port.fixed_ips) {
    if (!subnets.has(fixed.subnet_id)) subnets.set(fixed.subnet_id, await step.client.getSubnet(fixed.subnet_id));
  }
  return { network, subnets };
}

/** PortBound: Neutron says ACTIVE, bound to this node's chassis. */
export function portBound(port: NeutronPort, chassis: string): Finding {
  const host = port['binding:host_id'] ?? '';
  if (host !== chassis) {
    return finding(
      'False',
      'HostMismatch',
      `binding:host_id is ${JSON.stringify(host)}, this node's chassis registers as ${chassis}` +
        ' (fix spec.nodes[].chassis, or remove it and let the agent set it)',
    );
  }
  if (port['binding:vif_type'] === 'binding_failed') {
    return finding(
      'False',
      'BindingFailed',
      `Neutron could not bind the port to ${chassis}: is ovn-controller running and registered as that chassis?`,
    );
  }
  if (port.admin_state_up === false) return finding('False', 'AdminDown', 'the port is administratively down');
  if (port.status !== 'ACTIVE') {
    return finding(
      'False',
      'PortNotActive',
      `Neutron reports the port ${port.status} (OVN has not reported it up: is the interface plugged on ${chassis}?)`,
    );
  }
  return finding('True', 'Active', `ACTIVE and bound to chassis ${chassis}`);
}

/** Plugged: the interface is in OVS without error and ovn-controller installed its flows. */
export function plugged(step: NodeStep, iface: ActualInterface | undefined, chassis: string, portId: string): Finding {
  const { dev } = step;
  if (!iface) return finding('False', 'InterfaceMissing', `${dev} is not in OVS`);
  if (iface.error) return finding('False', 'InterfaceError', `OVS: ${iface.error}`);
  if (iface.externalIds['ovn-installed'] !== 'true') {
    return finding(
      'False',
      'FlowsNotInstalled',
      `ovn-controller has not installed flows for ${dev} (is binding:host_id this chassis, ${chassis}?)`,
    );
  }
  return finding('True', 'OvnInstalled', `${dev} on br-int, port ${portId}, ovn-controller installed its flows`);
}

export interface Outcome {
  /** The port as Neutron has it after the pass's changes. */
  readonly port: NeutronPort;
  readonly portBound: Finding;
  readonly plugged: Finding;
}

/** The pass's result as the node and Neutron show it now: the port re-read, the interface re-read. */
export async function observeOutcome(step: NodeStep, port: NeutronPort, chassis: string): Promise<Outcome> {
  const now = (await step.client.getPort(port.id)) ?? port;
  const iface = await readInterface(step.host, step.dev);
  return { port: now, portBound: portBound(now, chassis), plugged: plugged(step, iface, chassis, now.id) };
}
