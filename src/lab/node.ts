/**
 * One OVN node ("chassis"): a namespace with its own ovsdb-server, ovs-vswitchd on the userspace
 * datapath and ovn-controller, all keeping their files in the node's directory of the run dir.
 * Also what a command needs to talk to those daemons.
 *
 * What each setting is for (every one was found by a failure, lab.md):
 * - the VTEP address sits on br-phy's LOCAL port with the underlay veth a plain port of br-phy,
 *   because native tunnelling on the userspace datapath routes and ARPs through an OVS bridge;
 * - br-phy has a MAC derived from the node index, and every node's tunnel neighbour cache is
 *   seeded with its peers' MACs, or the first packet towards each peer is dropped while
 *   vswitchd ARPs for it;
 * - OVS_RUNDIR is set for ovn-controller too: it finds br-int's OpenFlow socket there.
 */
import { sbUnderlayRemote } from './central.js';
import { addVeth, createNamespace } from './netns.js';
import { daemonArgs, ovsEnvironment, pidfileIn, startOvs, vsctlIn, vswitchdCtlIn, type OvsDaemon } from './ovs.js';
import type { NodeRecord } from './records.js';
import { inNamespace, ipBatch, run, words } from './run.js';
import { NODE_INTERFACES, PHYSICAL, UNDERLAY, brPhyMac, vtepIp, type LabLayout } from './topology.js';

/** What `lab node exec` sets: ovs-vsctl, ovs-appctl, ovs-ofctl and ovn-appctl then find this node's daemons. */
export function nodeEnvironment(layout: LabLayout, node: string): Record<string, string> {
  return ovsEnvironment(layout.nodeDir(node));
}

/** `ovs-vsctl` against the node's database. */
export function vsctl(layout: LabLayout, node: string, args: readonly string[], timeoutSeconds = 30): string[] {
  return vsctlIn(layout.nodeDir(node), args, timeoutSeconds);
}

export function nodePidfile(layout: LabLayout, node: string, daemon: OvsDaemon): string {
  return pidfileIn(layout.nodeDir(node), daemon);
}

export interface NodeStartOptions {
  underlayMtu: number;
  /** Every node of the lab, to seed the tunnel neighbour cache with the peers' MACs. */
  peers: readonly NodeRecord[];
}

export async function startNode(layout: LabLayout, node: NodeRecord, options: NodeStartOptions): Promise<void> {
  const dir = layout.nodeDir(node.name);
  const namespace = layout.nodeNamespace(node.name);
  await createNamespace(layout, namespace);
  await addVeth(
    { namespace: layout.namespaces.underlay, name: layout.underlayPort(node.name), master: UNDERLAY.bridge },
    { namespace, name: NODE_INTERFACES.underlay },
    options.underlayMtu,
  );
  await addVeth(
    { namespace: layout.namespaces.underlay, name: layout.physicalPort(node.name), master: PHYSICAL.bridge },
    { namespace, name: NODE_INTERFACES.physical },
    PHYSICAL.mtu,
  );

  await startOvs(namespace, dir, {
    externalIds: {
      'system-id': node.name,
      // The namespaces share the machine's UTS hostname: without this every chassis reports the same host.
      hostname: node.name,
      'ovn-remote': sbUnderlayRemote(layout),
      'ovn-encap-type': 'geneve',
      'ovn-encap-ip': vtepIp(node.index),
      'ovn-bridge-datapath-type': 'netdev',
      'ovn-bridge-mappings': `${PHYSICAL.physnet}:${NODE_INTERFACES.providerBridge}`,
      ...(node.gateway ? { 'ovn-cms-options': 'enable-chassis-as-gw' } : {}),
    },
  });

  const { tunnelBridge, providerBridge, underlay, physical } = NODE_INTERFACES;
  // Without --no-wait, ovs-vsctl returns once vswitchd has made the bridges (their taps exist).
  await run(
    vsctl(layout, node.name, [
      ...words(`-- add-br ${tunnelBridge} -- set Bridge ${tunnelBridge} datapath_type=netdev`),
      `other-config:hwaddr="${brPhyMac(node.index)}"`,
      ...words(`-- set Interface ${tunnelBridge} mtu_request=${options.underlayMtu}`),
      ...words(`-- add-port ${tunnelBridge} ${underlay}`),
      ...words(`-- add-br ${providerBridge} -- set Bridge ${providerBridge} datapath_type=netdev`),
      ...words(`-- add-port ${providerBridge} ${physical}`),
    ]),
  );
  await ipBatch(namespace, [
    `addr add ${vtepIp(node.index)}/${UNDERLAY.prefixLength} dev ${tunnelBridge}`,
    `link set ${tunnelBridge} up`,
  ]);
  await seedTunnelNeighbours(layout, node, options.peers);

  await startOvnController(layout, node.name);
}

/** Starts the node's ovn-controller (at `up`, and again after a crash or a restart by a test). */
export async function startOvnController(layout: LabLayout, node: string): Promise<void> {
  const dir = layout.nodeDir(node);
  await run(
    inNamespace(
      layout.nodeNamespace(node),
      ['ovn-controller', `unix:${dir}/db.sock`, ...daemonArgs(dir, 'ovn-controller')],
      ovsEnvironment(dir),
    ),
  );
}

/**
 * How long vswitchd keeps a tunnel neighbour entry, in seconds: the most it accepts. Entries set
 * by hand age like learned ones (checked: with `tnl/neigh/aging 1` a seeded entry is gone within
 * seconds), so a lab left idle longer than this loses the first packet to each peer once, unless
 * something re-seeds: `vm create` does, for every node.
 */
const TUNNEL_NEIGHBOUR_AGING_S = 3600;

/**
 * Seeds vswitchd's tunnel neighbour cache with every peer's VTEP address and br-phy MAC: both are
 * derived from the node index, so no ARP is needed and no first packet is lost.
 */
export async function seedTunnelNeighbours(
  layout: LabLayout,
  node: NodeRecord,
  peers: readonly NodeRecord[],
): Promise<void> {
  await vswitchdCtlIn(layout.nodeDir(node.name), ['tnl/neigh/aging', String(TUNNEL_NEIGHBOUR_AGING_S)]);
  for (const peer of peers) {
    if (peer.name === node.name) continue;
    await vswitchdCtlIn(layout.nodeDir(node.name), [
      'tnl/neigh/set',
      NODE_INTERFACES.tunnelBridge,
      vtepIp(peer.index),
      brPhyMac(peer.index),
    ]);
  }
}
