/**
 * `lab status`: what a lab is, read from its records and checked against the live system (are the
 * daemons running, what addresses do the VMs have). The shape is what `lab status --json` prints
 * and what the demo and tests read the NB/SB connection strings from.
 */
import { bgpStatus, type LabBgpStatus } from './bgp.js';
import { nbRemote, sbRemote, sbUnderlayRemote } from './central.js';
import { nodePidfile } from './node.js';
import { OVS_DAEMONS_STOP_ORDER } from './ovs.js';
import { outsideVlans, type OutsideVlan } from './outside.js';
import { isAlive, readPidfile } from './processes.js';
import type { LabRecord, VmRecord } from './records.js';
import { readVmRecords } from './records.js';
import { run } from './run.js';
import { NODE_INTERFACES, PHYSICAL, UNDERLAY, VM_INTERFACE, vtepIp, type LabLayout } from './topology.js';

export interface LabNodeStatus {
  name: string;
  namespace: string;
  chassis: string;
  hostname: string;
  vtepIp: string;
  gateway: boolean;
  bridgeMappings: string;
  /** The node's daemons' files; `lab node exec` sets OVS_RUNDIR and OVN_RUNDIR to it. */
  runDir: string;
  /** ovsdb-server, ovs-vswitchd and ovn-controller are all alive. */
  running: boolean;
}

export interface LabVmStatus {
  name: string;
  node: string;
  port: string;
  mac: string;
  namespace: string;
  interface: string;
  /** The OVS port on the node's br-int. */
  tap: string;
  /** IPv4 addresses of the VM's interface, `10.0.0.5/24` (empty before DHCP or when not configured). */
  addresses: string[];
}

export interface LabStatus {
  name: string;
  /** `starting` means an `up` is still running or died half-way (then run `lab down`). */
  state: LabRecord['state'];
  runDir: string;
  /** For `octonet serve --ovn-nb` and `ovn-nbctl --db`. */
  nb: string;
  /** For `octonet serve --ovn-sb` and `ovn-sbctl --db`. */
  sb: string;
  central: { namespace: string; address: string; sbRemote: string };
  underlay: { namespace: string; bridge: string; cidr: string; mtu: number };
  nodes: LabNodeStatus[];
  outside: {
    namespace: string;
    interface: string;
    address: string;
    cidr: string;
    mac: string;
    physnet: string;
    /** VLAN subinterfaces made with `lab outside vlan` (`addOutsideVlan`). */
    vlans: OutsideVlan[];
  };
  vms: LabVmStatus[];
  /** `lab up --bgp` only. */
  bgp?: LabBgpStatus;
}

function daemonsRunning(layout: LabLayout, node: string): boolean {
  return OVS_DAEMONS_STOP_ORDER.every((daemon) => {
    const pid = readPidfile(nodePidfile(layout, node, daemon));
    return pid !== undefined && isAlive(pid);
  });
}

async function vmAddresses(vm: VmRecord): Promise<string[]> {
  const { code, stdout } = await run(['ip', '-n', vm.namespace, '-4', '-j', 'addr', 'show', 'dev', VM_INTERFACE], {
    allowFailure: true,
  });
  if (code !== 0 || !stdout.trim()) return [];
  const links = JSON.parse(stdout) as { addr_info?: { local: string; prefixlen: number }[] }[];
  return links.flatMap((link) => (link.addr_info ?? []).map((a) => `${a.local}/${a.prefixlen}`));
}

export async function labStatus(layout: LabLayout, record: LabRecord): Promise<LabStatus> {
  const vms = readVmRecords(layout);
  const [addresses, vlans] = await Promise.all([Promise.all(vms.map(vmAddresses)), outsideVlans(layout)]);
  return {
    name: layout.name,
    state: record.state,
    runDir: layout.runDir,
    nb: nbRemote(layout),
    sb: sbRemote(layout),
    central: { namespace: layout.namespaces.central, address: UNDERLAY.centralIp, sbRemote: sbUnderlayRemote(layout) },
    underlay: {
      namespace: layout.namespaces.underlay,
      bridge: UNDERLAY.bridge,
      cidr: UNDERLAY.cidr,
      mtu: record.underlayMtu,
    },
    nodes: record.nodes.map((node) => ({
      name: node.name,
      namespace: layout.nodeNamespace(node.name),
      chassis: node.name,
      hostname: node.name,
      vtepIp: vtepIp(node.index),
      gateway: node.gateway,
      bridgeMappings: `${PHYSICAL.physnet}:${NODE_INTERFACES.providerBridge}`,
      runDir: layout.nodeDir(node.name),
      running: daemonsRunning(layout, node.name),
    })),
    outside: {
      namespace: layout.namespaces.outside,
      interface: 'eth0',
      address: PHYSICAL.outsideIp,
      cidr: PHYSICAL.cidr,
      mac: PHYSICAL.outsideMac,
      physnet: PHYSICAL.physnet,
      vlans,
    },
    ...(record.bgp ? { bgp: bgpStatus(layout, record.nodes) } : {}),
    vms: vms.map((vm, i) => ({
      name: vm.name,
      node: vm.node,
      port: vm.port,
      mac: vm.mac,
      namespace: vm.namespace,
      interface: VM_INTERFACE,
      tap: vm.tap,
      addresses: addresses[i] ?? [],
    })),
  };
}
