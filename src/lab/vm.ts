/**
 * Workload namespaces ("VMs") plugged into Neutron ports the way Nova and os-vif plug a VM: a veth
 * whose VM end is eth0 with the port's MAC and whose node end, `tap<port id[:11]>`, is an OVS
 * port on the node's br-int carrying `external_ids:iface-id=<port id>`; ovn-controller sees the
 * iface-id and binds the port to the node's chassis. Unplugging reverses it.
 */
import { randomUUID } from 'node:crypto';
import { acquireDhcpLease } from './dhcp.js';
import { addVeth, createNamespace, deleteNamespace } from './netns.js';
import { seedTunnelNeighbours, vsctl } from './node.js';
import { waitForPortMac, waitForPortUp } from './ovn.js';
import { namespacePids, terminate } from './processes.js';
import { claimVmRecord, readLabRecord, readVmRecord, removeVmRecord, type VmRecord } from './records.js';
import { run, settleAll } from './run.js';
import {
  LabUsageError,
  NODE_INTERFACES,
  VM_INTERFACE,
  checkVmName,
  defaultVmName,
  normalizeMac,
  tapName,
  type LabLayout,
} from './topology.js';

export interface CreateVmOptions {
  /** `node1`..`nodeN`. */
  node: string;
  /** The Neutron port id: the Logical_Switch_Port name and the iface-id. */
  port: string;
  /** Without it, read from the port's Logical_Switch_Port (waiting up to `macWaitMs`). */
  mac?: string;
  /** Default `vm-` + the first 8 characters of the port id. */
  name?: string;
  /** Get the address by OVN's native DHCP (default true). */
  dhcp?: boolean;
  /** eth0's MTU before DHCP sets one (default 1500, like a fresh VM). Useful with `dhcp: false`. */
  mtu?: number;
  /** How long to wait for the Logical_Switch_Port to appear (default 15 s). */
  macWaitMs?: number;
  /** How long to wait for the port to come up before asking for DHCP (default 30 s). */
  upWaitMs?: number;
}

const DEFAULT_MAC_WAIT_MS = 15_000;
const DEFAULT_UP_WAIT_MS = 30_000;
const DHCP_ATTEMPTS = 10;

export async function createVm(layout: LabLayout, options: CreateVmOptions): Promise<VmRecord> {
  const lab = readLabRecord(layout);
  if (!lab) throw new LabUsageError(`lab ${layout.name} is not up`);
  if (!lab.nodes.some((node) => node.name === options.node)) {
    throw new LabUsageError(
      `lab ${layout.name} has no node ${options.node} (nodes: ${lab.nodes.map((n) => n.name).join(', ')})`,
    );
  }
  if (!/^[^\s"]+$/.test(options.port)) throw new LabUsageError(`${JSON.stringify(options.port)} is not a port id`);
  const name = checkVmName(options.name ?? defaultVmName(options.port));
  const mac = options.mac
    ? normalizeMac(options.mac)
    : await waitForPortMac(layout, options.port, options.macWaitMs ?? DEFAULT_MAC_WAIT_MS);
  const vm: VmRecord = {
    name,
    node: options.node,
    port: options.port,
    mac,
    namespace: layout.vmNamespace(name),
    tap: tapName(options.port),
    vmUuid: randomUUID(),
    createdAt: new Date().toISOString(),
  };
  if (!claimVmRecord(layout, vm)) throw new LabUsageError(`lab ${layout.name} already has a VM named ${name}`);
  try {
    // Seeded neighbour entries age out after an hour; a new VM is when traffic is about to start.
    await settleAll(lab.nodes.map((node) => seedTunnelNeighbours(layout, node, lab.nodes)));
    await plug(layout, vm, options.mtu ?? 1500);
    if (options.dhcp ?? true) {
      // DHCP is answered by the node's ovn-controller only once the port is bound and its flows
      // are installed, which is what `up` says.
      await waitForPortUp(layout, vm.port, options.upWaitMs ?? DEFAULT_UP_WAIT_MS);
      await acquireDhcpLease(layout, vm, VM_INTERFACE, { attempts: DHCP_ATTEMPTS });
    }
    return vm;
  } catch (error) {
    await unplug(layout, vm).catch(() => undefined);
    removeVmRecord(layout, vm.name);
    throw error;
  }
}

async function plug(layout: LabLayout, vm: VmRecord, mtu: number): Promise<void> {
  const nodeNamespace = layout.nodeNamespace(vm.node);
  await createNamespace(layout, vm.namespace);
  // The node end stays at 1500 whatever the VM's MTU: the VM's own MTU (from DHCP) bounds what
  // crosses the veth, and the datapath's AF_PACKET writes into the tap must never exceed its MTU.
  await addVeth(
    { namespace: nodeNamespace, name: vm.tap },
    { namespace: vm.namespace, name: VM_INTERFACE, mac: vm.mac },
    1500,
  );
  if (mtu !== 1500) await run(['ip', '-n', vm.namespace, 'link', 'set', VM_INTERFACE, 'mtu', String(mtu)]);
  await run(
    vsctl(layout, vm.node, [
      '--',
      '--may-exist',
      'add-port',
      NODE_INTERFACES.integrationBridge,
      vm.tap,
      '--',
      'set',
      'Interface',
      vm.tap,
      `external_ids:iface-id="${vm.port}"`,
      `external_ids:attached-mac="${vm.mac}"`,
      'external_ids:iface-status=active',
      `external_ids:vm-uuid="${vm.vmUuid}"`,
    ]),
  );
}

/**
 * Deletes the OVS port (so ovn-controller releases the binding at once), stops whatever still
 * runs in the VM's namespace (a listener a test left, a DHCP client), and deletes the namespace,
 * which takes the veth with it.
 */
async function unplug(layout: LabLayout, vm: VmRecord): Promise<void> {
  await run(vsctl(layout, vm.node, ['--if-exists', 'del-port', NODE_INTERFACES.integrationBridge, vm.tap], 10), {
    allowFailure: true,
  });
  await terminate(await namespacePids(vm.namespace));
  await deleteNamespace(layout, vm.namespace);
}

export async function deleteVm(layout: LabLayout, name: string): Promise<void> {
  const vm = readVmRecord(layout, name);
  if (!vm) throw new LabUsageError(`lab ${layout.name} has no VM named ${name}`);
  await unplug(layout, vm);
  removeVmRecord(layout, name);
}
