/**
 * The plugging step: the port's `binding:host_id` (the one Neutron attribute the agent touches)
 * and the OVS interface on br-int (plugged, re-plugged, repaired, or removed when the node has no
 * port any more). Only an interface carrying the spec's mark is ever changed or removed.
 */
import { finding, type Finding } from '../conditions.js';
import type { NodeStep } from './context.js';
import type { NeutronPort } from './neutron.js';
import {
  interfaceDrift,
  isOwned,
  plugInterface,
  repairInterface,
  unplugInterface,
  type ActualInterface,
  type WantedInterface,
} from './ovs-interface.js';

/** No port for this node (it left, or `apply` has not made it): our interface goes. */
export async function unplugLeftover(step: NodeStep, iface: ActualInterface | undefined): Promise<void> {
  if (iface && isOwned(iface, step.owner)) {
    await unplugInterface(step.host, step.dev);
    step.done(`unplugged ${step.dev}: no port is tagged for node ${step.node}`);
  }
}

/**
 * `binding:host_id` set to the chassis name this node's OVS registers with, unless the spec pins
 * another value (`nodes[].chassis`): then the agent only warns, and PortBound says HostMismatch.
 */
export async function bindPort(step: NodeStep, port: NeutronPort, chassis: string): Promise<NeutronPort> {
  const { node } = step;
  const pinned = step.spec.spec.nodes?.find((n) => n.name === node)?.chassis;
  if (pinned !== undefined && pinned !== chassis) {
    step.log.warn(
      { node, pinned, chassis },
      `spec.nodes[].chassis pins binding:host_id to ${pinned}, but this node's OVS registers as ${chassis}`,
    );
    return port;
  }
  const before = port['binding:host_id'] ?? '';
  if (before === chassis) return port;
  const updated = await step.client.updatePort(port.id, { 'binding:host_id': chassis });
  step.done(`binding:host_id ${JSON.stringify(before)} → ${chassis} (the chassis name in this node's OVS)`, {
    port: updated.id,
  });
  return updated;
}

/**
 * The interface as `wanted`: plugged when missing or broken, re-plugged when what identifies it
 * differs, repaired in place otherwise. An interface without our mark is left alone: the result is
 * then why (InterfaceNotOwned), else undefined.
 */
export async function plugStep(
  step: NodeStep,
  iface: ActualInterface | undefined,
  wanted: WantedInterface,
): Promise<Finding | undefined> {
  const { dev, owner } = step;
  const fields = { port: wanted.portId };
  if (iface && !isOwned(iface, owner)) {
    return finding(
      'False',
      'InterfaceNotOwned',
      `${dev} exists without external_ids:octonet-mgmt-net=${owner}; not touching it (remove it, or set nodeInterface)`,
    );
  }
  if (!iface || iface.error || iface.ofport === -1) {
    await plugInterface(step.host, wanted);
    step.done(iface ? `re-plugged ${dev} (${iface.error ?? 'no OpenFlow port'})` : `plugged ${dev} on br-int`, fields);
    return undefined;
  }
  const { replug, drift } = interfaceDrift(iface, wanted);
  if (replug) {
    await plugInterface(step.host, wanted);
    step.done(`re-plugged ${dev}: ${drift.join(', ')} differed`, fields);
  } else if (drift.length) {
    await repairInterface(step.host, wanted);
    step.done(`repaired ${dev} in OVS: ${drift.join(', ')}`, fields);
  }
  return undefined;
}
