/**
 * The BGP fabric of `lab up --bgp`, Wikimedia's cloudgw layout (seed 004, topology.ts `BGP`):
 *
 *   core 203.0.113.1 (AS 64900) ── br-core ──┬── cloudgw1 203.0.113.2 / 198.51.100.251 (AS 64901)
 *                                            └── cloudgw2 203.0.113.3 / 198.51.100.252 (AS 64901)
 *   cloudgw1, cloudgw2, nodeK 198.51.100.(200+K) ── br-physical (physnet1)
 *
 * - the cloudgws run eBGP (BFD 100 ms × 3, MD5 `BGP.password`, graceful restart) with every node,
 *   accept whatever the nodes announce and send them a default route; towards the core they pass
 *   it all on; they hold 198.51.100.1 by VRRP (keepalived, VRRPv3, 100 ms adverts), the gateway
 *   of an external subnet in a BGP lab, so return traffic survives the loss of either;
 * - the core learns everything by BGP (two paths, ECMP) and has no other route off its own link;
 * - every node runs FRR too, with an empty configuration: `octonet bgp-agent` writes it. Its
 *   address sits on br-ex's LOCAL port, and it forwards (a distributed floating IP's traffic
 *   arrives at the node's own address and goes on to OVN on br-ex).
 * IPv6: the cloudgws and the nodes also have 2001:db8:100::/64 on the physical network and the
 * cloudgws peer with the nodes' IPv6 addresses, for IPv6 announcements (control plane only: the
 * VRRP gateway and the core are IPv4).
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { keepalivedConfig } from './keepalived.js';
import { addVeth, createNamespace } from './netns.js';
import { frrRunning, frrVtysh, startFrr, FRR_DAEMONS } from './frr.js';
import type { NodeRecord } from './records.js';
import { namespacePids, isAlive } from './processes.js';
import { inNamespace, ipBatch, run, settleAll } from './run.js';
import { BGP, NODE_INTERFACES, PHYSICAL, bgpNodeIp, bgpNodeIp6, type LabLayout } from './topology.js';

const CLOUDGW_PHYSICAL = 'eth0';
const CLOUDGW_CORE = 'eth1';
const CORE_INTERFACE = 'eth0';
const BFD_PROFILE = 'lab';

function enableForwarding(namespace: string, ipv6: boolean): Promise<unknown> {
  const settings = ['net.ipv4.ip_forward=1', 'net.ipv4.conf.all.rp_filter=0', 'net.ipv4.conf.default.rp_filter=0'];
  if (ipv6) settings.push('net.ipv6.conf.all.disable_ipv6=0', 'net.ipv6.conf.default.disable_ipv6=0');
  if (ipv6) settings.push('net.ipv6.conf.all.forwarding=1', 'net.ipv6.conf.default.accept_dad=0');
  return run(inNamespace(namespace, ['sysctl', '-qw', ...settings]));
}

function bfdBlock(): string[] {
  return [
    'bfd',
    ` profile ${BFD_PROFILE}`,
    `  receive-interval ${BGP.bfdIntervalMs}`,
    `  transmit-interval ${BGP.bfdIntervalMs}`,
    ' exit',
    'exit',
  ];
}

export function cloudgwFrrConfig(cloudgw: (typeof BGP.cloudgws)[number], nodes: readonly NodeRecord[]): string {
  const groups = [
    { name: 'NODES', family: 4, addresses: nodes.map((n) => bgpNodeIp(n.index)) },
    { name: 'NODES6', family: 6, addresses: nodes.map((n) => bgpNodeIp6(n.index)) },
  ];
  return [
    'frr defaults traditional',
    ...bfdBlock(),
    `router bgp ${BGP.cloudgwAs}`,
    ` bgp router-id ${cloudgw.physicalIp}`,
    ' no bgp ebgp-requires-policy',
    ' no bgp default ipv4-unicast',
    ' bgp graceful-restart',
    ...groups.flatMap((g) => [
      ` neighbor ${g.name} peer-group`,
      ` neighbor ${g.name} remote-as external`,
      ` neighbor ${g.name} password ${BGP.password}`,
      ` neighbor ${g.name} bfd`,
      ` neighbor ${g.name} bfd profile ${BFD_PROFILE}`,
      ` neighbor ${g.name} advertisement-interval 0`,
      ...g.addresses.map((a) => ` neighbor ${a} peer-group ${g.name}`),
    ]),
    ` neighbor ${BGP.coreIp} remote-as ${BGP.coreAs}`,
    ` neighbor ${BGP.coreIp} bfd`,
    ` neighbor ${BGP.coreIp} bfd profile ${BFD_PROFILE}`,
    ` neighbor ${BGP.coreIp} advertisement-interval 0`,
    ' address-family ipv4 unicast',
    '  neighbor NODES activate',
    '  neighbor NODES default-originate',
    `  neighbor ${BGP.coreIp} activate`,
    ' exit-address-family',
    ' address-family ipv6 unicast',
    '  neighbor NODES6 activate',
    '  neighbor NODES6 default-originate',
    ' exit-address-family',
    'exit',
    '',
  ].join('\n');
}

export function coreFrrConfig(): string {
  return [
    'frr defaults traditional',
    ...bfdBlock(),
    `router bgp ${BGP.coreAs}`,
    ` bgp router-id ${BGP.coreIp}`,
    ' no bgp ebgp-requires-policy',
    ' no bgp default ipv4-unicast',
    // Not even a graceful-restart helper: a helper keeps a dead cloudgw's routes (stale) for the
    // restart time although BFD saw it die, and the core would go on sending traffic into it.
    ' bgp graceful-restart-disable',
    ...BGP.cloudgws.flatMap((c) => [
      ` neighbor ${c.coreIp} remote-as ${BGP.cloudgwAs}`,
      ` neighbor ${c.coreIp} bfd`,
      ` neighbor ${c.coreIp} bfd profile ${BFD_PROFILE}`,
    ]),
    ' address-family ipv4 unicast',
    '  maximum-paths 2',
    ...BGP.cloudgws.map((c) => `  neighbor ${c.coreIp} activate`),
    ' exit-address-family',
    'exit',
    '',
  ].join('\n');
}

async function startVrrp(layout: LabLayout, index: number): Promise<void> {
  const cloudgw = BGP.cloudgws[index]!;
  const dir = join(layout.runDir, `vrrp-${cloudgw.name}`);
  mkdirSync(dir, { recursive: true });
  const config = join(dir, 'keepalived.conf');
  const options = {
    vip: `${BGP.gatewayIp}/${PHYSICAL.prefixLength}`,
    self: cloudgw.physicalIp,
    peers: BGP.cloudgws.filter((c) => c !== cloudgw).map((c) => c.physicalIp),
    priority: 100 - index * 10,
    advertInt: 0.1,
    vrrpVersion: 3 as const,
    virtualRouterId: 51,
  };
  writeFileSync(config, keepalivedConfig(cloudgw.name, options, CLOUDGW_PHYSICAL));
  const log = openSync(join(dir, 'keepalived.log'), 'a');
  const argv = inNamespace(layout.cloudgwNamespace(cloudgw.name), [
    'keepalived',
    '--dont-fork',
    '--log-console',
    '--vrrp',
    '--no-syslog',
    '--use-file',
    config,
    '--pid',
    join(dir, 'keepalived.pid'),
    '--vrrp_pid',
    join(dir, 'vrrp.pid'),
  ]);
  const child = spawn(argv[0]!, argv.slice(1), { detached: true, stdio: ['ignore', log, log] });
  closeSync(log);
  child.unref();
}

async function buildCloudgw(layout: LabLayout, index: number, nodes: readonly NodeRecord[]): Promise<void> {
  const cloudgw = BGP.cloudgws[index]!;
  const ns = layout.cloudgwNamespace(cloudgw.name);
  await createNamespace(layout, ns);
  await enableForwarding(ns, true);
  await addVeth(
    { namespace: layout.namespaces.underlay, name: layout.physicalPort(cloudgw.name), master: PHYSICAL.bridge },
    { namespace: ns, name: CLOUDGW_PHYSICAL },
    PHYSICAL.mtu,
  );
  await addVeth(
    { namespace: layout.namespaces.underlay, name: `co-${cloudgw.name}`, master: BGP.coreBridge },
    { namespace: ns, name: CLOUDGW_CORE },
    PHYSICAL.mtu,
  );
  await ipBatch(ns, [
    `addr add ${cloudgw.physicalIp}/${PHYSICAL.prefixLength} dev ${CLOUDGW_PHYSICAL}`,
    `addr add ${cloudgw.physicalIp6}/64 dev ${CLOUDGW_PHYSICAL} nodad`,
    `addr add ${cloudgw.coreIp}/24 dev ${CLOUDGW_CORE}`,
  ]);
  await startFrr(ns, layout.frrDir(cloudgw.name), cloudgwFrrConfig(cloudgw, nodes));
  await startVrrp(layout, index);
}

async function buildCore(layout: LabLayout): Promise<void> {
  const ns = layout.namespaces.core;
  await createNamespace(layout, ns);
  await addVeth(
    { namespace: layout.namespaces.underlay, name: 'co-core', master: BGP.coreBridge },
    { namespace: ns, name: CORE_INTERFACE },
    PHYSICAL.mtu,
  );
  await ipBatch(ns, [`addr add ${BGP.coreIp}/24 dev ${CORE_INTERFACE}`]);
  await startFrr(ns, layout.frrDir('core'), coreFrrConfig());
}

/** A node's part: its address on br-ex, forwarding on, and an FRR for the agent to configure. */
async function prepareNode(layout: LabLayout, node: NodeRecord): Promise<void> {
  const ns = layout.nodeNamespace(node.name);
  const bridge = NODE_INTERFACES.providerBridge;
  await enableForwarding(ns, false);
  await run(inNamespace(ns, ['sysctl', '-qw', `net.ipv6.conf.${bridge}.disable_ipv6=0`]));
  await ipBatch(ns, [
    `addr add ${bgpNodeIp(node.index)}/${PHYSICAL.prefixLength} dev ${bridge}`,
    `addr add ${bgpNodeIp6(node.index)}/64 dev ${bridge} nodad`,
    `link set ${bridge} up`,
  ]);
  await startFrr(ns, layout.frrDir(node.name), 'frr defaults traditional\n');
}

/** Builds the fabric on a lab whose underlay and nodes exist. */
export async function buildBgpFabric(layout: LabLayout, nodes: readonly NodeRecord[]): Promise<void> {
  if (nodes.length > BGP.maxNodes) throw new Error(`a BGP lab has at most ${BGP.maxNodes} nodes`);
  await ipBatch(layout.namespaces.underlay, [
    `link add ${BGP.coreBridge} mtu ${PHYSICAL.mtu} type bridge forward_delay 0 stp_state 0`,
    `link set ${BGP.coreBridge} up`,
  ]);
  await settleAll([
    buildCore(layout),
    ...BGP.cloudgws.map((_, i) => buildCloudgw(layout, i, nodes)),
    ...nodes.map((node) => prepareNode(layout, node)),
  ]);
}

export interface BgpMemberStatus {
  name: string;
  namespace: string;
  asn: number;
  addresses: string[];
  /** The FRR instance's directory: `vtysh --vty_socket <frrDir>`. */
  frrDir: string;
  /** zebra, bfdd and bgpd are all alive. */
  running: boolean;
}

export interface LabBgpStatus {
  cloudgws: BgpMemberStatus[];
  core: BgpMemberStatus;
  gatewayIp: string;
  password: string;
  /** Each node's BGP address and FRR (configured by `octonet bgp-agent`). */
  nodes: { name: string; address: string; address6: string; frrDir: string; running: boolean }[];
}

/**
 * The Neutron `bgp_peer` body for each cloudgw (its IPv4 address, AS and MD5 password), for
 * whoever points a BGP speaker at this fabric: the demo, the lab tests, the bench.
 */
export function cloudgwPeerBodies(bgp: LabBgpStatus): {
  name: string;
  peer_ip: string;
  remote_as: number;
  auth_type: 'md5';
  password: string;
}[] {
  return bgp.cloudgws.map((c) => ({
    name: c.name,
    peer_ip: c.addresses[0]!,
    remote_as: c.asn,
    auth_type: 'md5',
    password: bgp.password,
  }));
}

const allRunning = (dir: string) => FRR_DAEMONS.every((d) => frrRunning(dir, d));

export function bgpStatus(layout: LabLayout, nodes: readonly NodeRecord[]): LabBgpStatus {
  return {
    cloudgws: BGP.cloudgws.map((c) => ({
      name: c.name,
      namespace: layout.cloudgwNamespace(c.name),
      asn: BGP.cloudgwAs,
      addresses: [c.physicalIp, c.physicalIp6, c.coreIp],
      frrDir: layout.frrDir(c.name),
      running: allRunning(layout.frrDir(c.name)),
    })),
    core: {
      name: 'core',
      namespace: layout.namespaces.core,
      asn: BGP.coreAs,
      addresses: [BGP.coreIp],
      frrDir: layout.frrDir('core'),
      running: allRunning(layout.frrDir('core')),
    },
    gatewayIp: BGP.gatewayIp,
    password: BGP.password,
    nodes: nodes.map((n) => ({
      name: n.name,
      address: bgpNodeIp(n.index),
      address6: bgpNodeIp6(n.index),
      frrDir: layout.frrDir(n.name),
      running: allRunning(layout.frrDir(n.name)),
    })),
  };
}

/** `vtysh` of a member of the fabric (`cloudgw1`, `core`, `node1`). */
export function bgpVtysh(layout: LabLayout, member: string, commands: readonly string[]): Promise<string> {
  return frrVtysh(layout.frrDir(member), commands);
}

/** SIGKILL of everything in a cloudgw's namespace (FRR, keepalived): the box died. */
export async function killCloudgw(layout: LabLayout, name: string): Promise<void> {
  const pids = await namespacePids(layout.cloudgwNamespace(name));
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
  while (pids.some(isAlive)) await new Promise((resolve) => setTimeout(resolve, 20));
  // A SIGKILLed keepalived leaves the VRRP address behind and the kernel would go on forwarding:
  // the links go down too, as a dead box's would.
  const ns = layout.cloudgwNamespace(name);
  await ipBatch(ns, [`link set ${CLOUDGW_PHYSICAL} down`, `link set ${CLOUDGW_CORE} down`]);
}

/**
 * Starts a daemon of the caller's (`octonet bgp-agent`) beside a node: in the root namespace (it
 * talks to the API over TCP, to the SB and to FRR over unix sockets), detached, with a pidfile in
 * the node's directory so `lab down` stops it. `argv` must mention the run dir (it does through
 * `--frr-dir`): only such a process is ever signalled by pidfile.
 */
export function startBesideNode(layout: LabLayout, node: string, daemon: string, argv: readonly string[]): number {
  const dir = layout.nodeDir(node);
  const log = openSync(join(dir, `${daemon}.log`), 'a');
  const child = spawn(argv[0]!, argv.slice(1), { detached: true, stdio: ['ignore', log, log] });
  closeSync(log);
  child.unref();
  if (child.pid === undefined) throw new Error(`${daemon} did not start beside ${node}`);
  writeFileSync(besidePidfile(layout, node, daemon), `${child.pid}\n`);
  return child.pid;
}

export function besidePidfile(layout: LabLayout, node: string, daemon: string): string {
  return join(layout.nodeDir(node), `${daemon}.pid`);
}
