/**
 * The lab's programmatic API: `upLab` builds OVN central, the underlay, N nodes and the outside
 * namespace; `openLab` attaches to a lab that is up; `downLab` removes one. A `Lab` handle plugs
 * VMs and says how to run commands inside the lab. `octonet lab`, the demo and the tests all go
 * through here. Imports nothing from the rest of octonet.
 *
 * Topology (names for the default lab `octonet`; see docs/lab.md):
 *   octonet-underlay   Linux bridges br-underlay (192.0.2.0/24) and br-physical (physnet1)
 *   octonet-central    192.0.2.2: NB and SB ovsdb-servers, ovn-northd
 *   octonet-nodeK      VTEP 192.0.2.(10+K) on br-phy; br-ex on physnet1; br-int
 *   octonet-outside    198.51.100.100 on the physical network: the world outside the cloud
 *   octonet-vm-NAME    a workload plugged into a port on some node's br-int
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { nbRemote, sbRemote, sbUnderlayRemote, startCentral } from './central.js';
import { bgpVtysh, buildBgpFabric, killCloudgw, startBesideNode } from './bgp.js';
import { CentralControl } from './central-control.js';
import { installDhcpHook } from './dhcp.js';
import { startKeepalived, type Keepalived, type VrrpOptions } from './keepalived.js';
import { createNamespace, listNamespaces } from './netns.js';
import { addOutsideVlan, buildOutside } from './outside.js';
import { nodeEnvironment, nodePidfile, startNode, startOvnController } from './node.js';
import { isAlive, readPidfile } from './processes.js';
import { nbctl, runCtl, sbctl, waitForChassisAndTunnels } from './ovn.js';
import { readLabRecord, readVmRecord, writeLabRecord, type LabRecord, type NodeRecord } from './records.js';
import { inNamespace, ipBatch, run, settleAll, type RunOptions, type RunResult } from './run.js';
import { labStatus, type LabStatus, type LabVmStatus } from './status.js';
import { tearDown, type LabDownReport } from './teardown.js';
import {
  BGP,
  DEFAULT_LAB_NAME,
  DEFAULT_UNDERLAY_MTU,
  LabUsageError,
  MAX_NODES,
  PHYSICAL,
  UNDERLAY,
  labLayout,
  labRoot,
  nodeIndex,
  nodeName,
  type LabLayout,
} from './topology.js';
import { createVm, deleteVm, type CreateVmOptions } from './vm.js';

export class LabAlreadyUpError extends LabUsageError {}
export class LabNotUpError extends LabUsageError {}

export interface LabLocation {
  /** Default `octonet`. */
  name?: string;
  /** Directory holding run dirs; default `$OCTONET_LAB_ROOT` or `/run/octonet-lab`. */
  root?: string;
}

export interface LabUpOptions extends LabLocation {
  /** Number of nodes, `node1..nodeN` (default 2). */
  nodes?: number;
  /** Nodes with `ovn-cms-options=enable-chassis-as-gw`, as `node2` or `2` (default: all). */
  gateways?: readonly string[];
  /** MTU of the underlay veths, bridge and br-phy (default 1500, which carries the 1442 tenant MTU). */
  underlayMtu?: number;
  /** Adds the BGP fabric: two cloudgws and a core running FRR, FRR on every node (bgp.ts). */
  bgp?: boolean;
  /** NB and SB as 3-member RAFT clusters in three central namespaces, and two ovn-northd. */
  cluster?: boolean;
  /** Called with a line per step, for a CLI to show progress. */
  progress?: (message: string) => void;
}

/** How long the nodes get to register and build their tunnels (a hang guard; it takes seconds). */
const JOIN_TIMEOUT_MS = 60_000;

function resolveGateways(count: number, gateways: readonly string[] | undefined): Set<string> {
  if (!gateways) return new Set(Array.from({ length: count }, (_, i) => nodeName(i + 1)));
  const names = new Set<string>();
  for (const given of gateways.map((g) => g.trim()).filter(Boolean)) {
    const name = /^[0-9]+$/.test(given) ? nodeName(Number(given)) : given;
    const index = nodeIndex(name);
    if (index === undefined || index > count) {
      throw new LabUsageError(`gateway ${given} is not one of the nodes node1..node${count}`);
    }
    names.add(name);
  }
  return names;
}

async function refuseIfPresent(layout: LabLayout): Promise<void> {
  const record = readLabRecord(layout);
  if (record) {
    throw new LabAlreadyUpError(
      `lab ${layout.name} is already ${record.state === 'up' ? 'up' : 'starting (or failed half-way)'} ` +
        `(run dir ${layout.runDir}); use another --name or run \`octonet lab down --name ${layout.name}\` first`,
    );
  }
  const leftovers = (await listNamespaces()).filter((ns) => layout.isFixedNamespace(ns));
  if (leftovers.length > 0) {
    throw new LabAlreadyUpError(
      `namespaces of lab ${layout.name} exist (${leftovers.join(', ')}); run \`octonet lab down --name ${layout.name}\``,
    );
  }
}

/** Claims the run dir: creating it is atomic, so two `up` with one name cannot both proceed. */
function claimRunDir(layout: LabLayout): void {
  mkdirSync(dirname(layout.runDir), { recursive: true });
  try {
    mkdirSync(layout.runDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new LabAlreadyUpError(
        `lab ${layout.name} is already up or being started (run dir ${layout.runDir} exists); ` +
          `run \`octonet lab down --name ${layout.name}\` if it is a leftover`,
      );
    }
    throw error;
  }
}

async function buildUnderlay(layout: LabLayout, mtu: number): Promise<void> {
  const ns = layout.namespaces.underlay;
  await createNamespace(layout, ns);
  // No STP and no forwarding delay: the bridges forward as soon as a port is attached.
  const bridge = (name: string, bridgeMtu: number) => [
    `link add ${name} mtu ${bridgeMtu} type bridge forward_delay 0 stp_state 0`,
    `link set ${name} up`,
  ];
  await ipBatch(ns, [...bridge(UNDERLAY.bridge, mtu), ...bridge(PHYSICAL.bridge, PHYSICAL.mtu)]);
}

export async function upLab(options: LabUpOptions = {}): Promise<Lab> {
  const layout = labLayout(options.name ?? DEFAULT_LAB_NAME, options.root ?? labRoot());
  const count = options.nodes ?? 2;
  if (!Number.isInteger(count) || count < 1 || count > MAX_NODES) {
    throw new LabUsageError(`--nodes must be a whole number from 1 to ${MAX_NODES}`);
  }
  const underlayMtu = options.underlayMtu ?? DEFAULT_UNDERLAY_MTU;
  if (!Number.isInteger(underlayMtu) || underlayMtu < 1280 || underlayMtu > 9000) {
    throw new LabUsageError('the underlay MTU must be between 1280 and 9000');
  }
  const gateways = resolveGateways(count, options.gateways);
  if (options.bgp && count > BGP.maxNodes) throw new LabUsageError(`a BGP lab has at most ${BGP.maxNodes} nodes`);
  const progress = options.progress ?? (() => undefined);
  await refuseIfPresent(layout);
  claimRunDir(layout);

  const nodes: NodeRecord[] = Array.from({ length: count }, (_, i) => ({
    name: nodeName(i + 1),
    index: i + 1,
    gateway: gateways.has(nodeName(i + 1)),
  }));
  const record: LabRecord = {
    name: layout.name,
    state: 'starting',
    nodes,
    underlayMtu,
    ...(options.bgp ? { bgp: true } : {}),
    ...(options.cluster ? { cluster: true } : {}),
    createdAt: new Date().toISOString(),
  };
  writeLabRecord(layout, record);
  try {
    installDhcpHook(layout);
    await buildUnderlay(layout, underlayMtu);
    progress(
      `underlay ${layout.namespaces.underlay}: ${UNDERLAY.cidr} (MTU ${underlayMtu}), physical ${PHYSICAL.cidr}`,
    );
    await startCentral(layout, underlayMtu);
    progress(
      options.cluster
        ? `OVN central: NB and SB in 3-member RAFT clusters, ovn-northd active/standby; NB ${nbRemote(layout)}`
        : `OVN central ${layout.namespaces.central}: NB unix:${layout.nbSocket}, SB unix:${layout.sbSocket}`,
    );
    await settleAll([
      ...nodes.map((node) => startNode(layout, node, { underlayMtu, peers: nodes })),
      buildOutside(layout),
    ]);
    progress(`nodes ${nodes.map((n) => n.name).join(', ')} started; waiting for chassis and tunnels`);
    await waitForChassisAndTunnels(layout, nodes, JOIN_TIMEOUT_MS);
    if (options.bgp) {
      await buildBgpFabric(layout, nodes);
      progress(`BGP: ${BGP.cloudgws.map((c) => c.name).join(', ')} and core running FRR; FRR on every node`);
    }
    writeLabRecord(layout, { ...record, state: 'up' });
  } catch (error) {
    progress(`failed, removing what was made: ${(error as Error).message}`);
    await tearDown(layout).catch(() => undefined);
    throw new Error(`lab ${layout.name} did not come up: ${(error as Error).message}`, { cause: error });
  }
  return new Lab(layout);
}

/** The lab named `name` if it is up (or at least was started); throws LabNotUpError otherwise. */
export function openLab(location: LabLocation = {}): Lab {
  const layout = labLayout(location.name ?? DEFAULT_LAB_NAME, location.root ?? labRoot());
  if (!readLabRecord(layout)) {
    throw new LabNotUpError(`lab ${layout.name} is not up (no ${layout.recordFile}); start it with \`octonet lab up\``);
  }
  return new Lab(layout);
}

/** Removes the lab; idempotent, and works after a half-failed `up`. */
export function downLab(location: LabLocation = {}): Promise<LabDownReport> {
  return tearDown(labLayout(location.name ?? DEFAULT_LAB_NAME, location.root ?? labRoot()));
}

export class Lab {
  constructor(readonly layout: LabLayout) {}

  get name(): string {
    return this.layout.name;
  }

  /** NB connection string (`unix:...`), for `octonet serve --ovn-nb` and `ovn-nbctl --db`. */
  get nb(): string {
    return nbRemote(this.layout);
  }

  /** SB connection string (`unix:...`). */
  get sb(): string {
    return sbRemote(this.layout);
  }

  /** The SB as a node reaches it over the underlay (`tcp:...`), for an agent run in a node's namespace. */
  get sbFromNodes(): string {
    return sbUnderlayRemote(this.layout);
  }

  private record(): LabRecord {
    const record = readLabRecord(this.layout);
    if (!record) throw new LabNotUpError(`lab ${this.name} is not up`);
    return record;
  }

  status(): Promise<LabStatus> {
    return labStatus(this.layout, this.record());
  }

  /** Plugs a VM into a port (and runs DHCP unless `dhcp: false`); returns it as `status` shows it. */
  async createVm(options: CreateVmOptions): Promise<LabVmStatus> {
    const vm = await createVm(this.layout, options);
    const status = await this.status();
    const shown = status.vms.find((v) => v.name === vm.name);
    if (!shown) throw new Error(`VM ${vm.name} vanished while being created`);
    return shown;
  }

  deleteVm(name: string): Promise<void> {
    return deleteVm(this.layout, name);
  }

  /** argv that runs `argv` inside the VM. */
  vmCommand(vm: string, argv: readonly string[]): string[] {
    if (!readVmRecord(this.layout, vm)) throw new LabUsageError(`lab ${this.name} has no VM named ${vm}`);
    return inNamespace(this.layout.vmNamespace(vm), argv);
  }

  /** argv that runs `argv` in the node's namespace with OVS_RUNDIR etc. set (ovs-vsctl, ovs-appctl, ovs-ofctl work). */
  nodeCommand(node: string, argv: readonly string[]): string[] {
    if (!this.record().nodes.some((n) => n.name === node))
      throw new LabUsageError(`lab ${this.name} has no node ${node}`);
    return inNamespace(this.layout.nodeNamespace(node), argv, nodeEnvironment(this.layout, node));
  }

  /** Starts keepalived in the VM, configured as Octavia configures an amphora (keepalived.ts). */
  startKeepalived(vm: string, options: VrrpOptions): Promise<Keepalived> {
    this.record();
    return startKeepalived(this.layout, vm, options);
  }

  /**
   * Gives the outside namespace `eth0.<vlan>`, carrying VLAN `vlan` of physnet1 untagged, with
   * `address` (CIDR) if given; returns the interface name.
   */
  addOutsideVlan(vlan: number, address?: string): Promise<string> {
    this.record();
    return addOutsideVlan(this.layout, vlan, address);
  }

  /** argv that runs `argv` in the outside namespace (198.51.100.100 on physnet1). */
  outsideCommand(argv: readonly string[]): string[] {
    return inNamespace(this.layout.namespaces.outside, argv);
  }

  /**
   * Kills a node's ovn-controller and ovs-vswitchd with SIGKILL, as a crash would: on the userspace
   * datapath the datapath dies with vswitchd, so the node drops off the network (its tunnels, its
   * gateways, its VMs). For failover tests; `lab down` cleans up as usual.
   */
  async killNode(node: string): Promise<void> {
    if (!this.record().nodes.some((n) => n.name === node))
      throw new LabUsageError(`lab ${this.name} has no node ${node}`);
    const pids = (['ovn-controller', 'ovs-vswitchd'] as const)
      .map((daemon) => readPidfile(nodePidfile(this.layout, node, daemon)))
      .filter((pid): pid is number => pid !== undefined && isAlive(pid));
    for (const pid of pids) process.kill(pid, 'SIGKILL');
    while (pids.some(isAlive)) await new Promise((resolve) => setTimeout(resolve, 20));
  }

  /** Leaders, kills, restarts and partitions of a clustered central (`--cluster` only). */
  get central(): CentralControl {
    this.record();
    return new CentralControl(this.layout);
  }

  /**
   * Restarts a node's ovn-controller (SIGTERM, then a new one): the node keeps its datapath and
   * flows meanwhile, as on a real chassis whose controller is upgraded or restarted.
   */
  async restartOvnController(node: string): Promise<void> {
    if (!this.record().nodes.some((n) => n.name === node))
      throw new LabUsageError(`lab ${this.name} has no node ${node}`);
    const pid = readPidfile(nodePidfile(this.layout, node, 'ovn-controller'));
    if (pid !== undefined && isAlive(pid)) process.kill(pid, 'SIGTERM');
    while (pid !== undefined && isAlive(pid)) await new Promise((resolve) => setTimeout(resolve, 20));
    await startOvnController(this.layout, node);
  }

  /** Runs a command, capturing its output; never throws for a non-zero exit. */
  exec(argv: readonly string[], options: Omit<RunOptions, 'allowFailure'> = {}): Promise<RunResult> {
    return run(argv, { ...options, allowFailure: true });
  }

  /** `ovn-nbctl --db=<nb> args...`; throws if it fails. */
  async nbctl(...args: string[]): Promise<string> {
    return (await runCtl(nbctl(this.layout, args))).trim();
  }

  async sbctl(...args: string[]): Promise<string> {
    return (await runCtl(sbctl(this.layout, args))).trim();
  }

  private requireBgp(): LabRecord {
    const record = this.record();
    if (!record.bgp) throw new LabUsageError(`lab ${this.name} has no BGP fabric (start it with --bgp)`);
    return record;
  }

  /** `vtysh -c ...` on a member of the BGP fabric: `cloudgw1`, `cloudgw2`, `core` or a node. */
  bgpVtysh(member: string, ...commands: string[]): Promise<string> {
    this.requireBgp();
    return bgpVtysh(this.layout, member, commands);
  }

  /** argv that runs `argv` in the core namespace (the world behind the cloudgws). */
  coreCommand(argv: readonly string[]): string[] {
    this.requireBgp();
    return inNamespace(this.layout.namespaces.core, argv);
  }

  /** Kills a cloudgw as a crash would: its FRR and keepalived with SIGKILL, its links down. */
  killCloudgw(name: string): Promise<void> {
    this.requireBgp();
    if (!BGP.cloudgws.some((c) => c.name === name)) throw new LabUsageError(`no cloudgw named ${name}`);
    return killCloudgw(this.layout, name);
  }

  /** The FRR directory of a fabric member (for `octonet bgp-agent --frr-dir`). */
  frrDir(member: string): string {
    return this.layout.frrDir(member);
  }

  /**
   * Starts `argv` (the caller's `octonet bgp-agent ...`) beside a node, detached, with a pidfile
   * `lab down` uses; returns its pid. Its log is `<run dir>/<node>/<daemon>.log`.
   */
  startBesideNode(node: string, daemon: string, argv: readonly string[]): number {
    if (!this.record().nodes.some((n) => n.name === node))
      throw new LabUsageError(`lab ${this.name} has no node ${node}`);
    return startBesideNode(this.layout, node, daemon, argv);
  }

  down(): Promise<LabDownReport> {
    return tearDown(this.layout);
  }
}
