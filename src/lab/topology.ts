/**
 * The lab's plan, as pure functions of its name: where its files live, what its namespaces,
 * interfaces, addresses and MACs are called. Everything that creates or removes something asks
 * here first, so `up`, `down` and `status` can never disagree about a name. No I/O.
 *
 * Several labs may exist at once: every namespace and the run dir carry the lab name, while
 * addresses and interface names repeat from lab to lab because each lab's interfaces live in
 * namespaces of its own.
 */
import { join } from 'node:path';

export const DEFAULT_LAB_NAME = 'octonet';

/** Where run dirs live; `OCTONET_LAB_ROOT` moves them (tests of a packaged build, odd hosts). */
export function labRoot(env: NodeJS.ProcessEnv = process.env): string {
  return env.OCTONET_LAB_ROOT || '/run/octonet-lab';
}

/**
 * Lower-case letters, digits and inner dashes, up to 24 characters: the name is part of
 * namespace names and of unix socket paths, which the kernel limits to 107 bytes.
 */
const LAB_NAME = /^[a-z0-9](?:[a-z0-9-]{0,22}[a-z0-9])?$/;
/** VM names become part of a namespace name and of a file name. */
const VM_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9_.-]{0,62})$/;
const MAC = /^[0-9a-f]{2}(?::[0-9a-f]{2}){5}$/;

export const MAX_NODES = 200;

export class LabUsageError extends Error {
  override readonly name = 'LabUsageError';
}

export function checkLabName(name: string): string {
  if (!LAB_NAME.test(name)) {
    throw new LabUsageError(
      `lab name ${JSON.stringify(name)} is not valid: use up to 24 lower-case letters, digits and inner dashes`,
    );
  }
  return name;
}

export function checkVmName(name: string): string {
  if (!VM_NAME.test(name)) {
    throw new LabUsageError(
      `VM name ${JSON.stringify(name)} is not valid: use up to 63 letters, digits, '_', '.', '-' (not first)`,
    );
  }
  return name;
}

export function normalizeMac(mac: string): string {
  const lower = mac.trim().toLowerCase();
  if (!MAC.test(lower)) throw new LabUsageError(`${JSON.stringify(mac)} is not a MAC address (aa:bb:cc:dd:ee:ff)`);
  return lower;
}

/** The underlay: a Linux bridge every node's tunnel endpoint and OVN central hang off. */
export const UNDERLAY = {
  bridge: 'br-underlay',
  cidr: '192.0.2.0/24',
  prefixLength: 24,
  centralIp: '192.0.2.2',
  nbPort: 6641,
  sbPort: 6642,
  /** RAFT between the members of a clustered central (`lab up --cluster`). */
  nbRaftPort: 6643,
  sbRaftPort: 6644,
} as const;

/** `lab up --cluster`: NB and SB as 3-member RAFT clusters, one member per central namespace. */
export const CENTRAL_CLUSTER_SIZE = 3;

/** Central member K's underlay address: member 1 keeps the standalone central's, then .3, .4. */
export function centralMemberIp(member: number): string {
  return `192.0.2.${1 + member}`;
}

/** The physical network behind `physnet1`: every node's br-ex and the outside namespace share it. */
export const PHYSICAL = {
  bridge: 'br-physical',
  physnet: 'physnet1',
  cidr: '198.51.100.0/24',
  prefixLength: 24,
  outsideIp: '198.51.100.100',
  /** Fixed so that captures and neighbour tables read the same in every run. */
  outsideMac: '02:00:c6:33:64:64',
  mtu: 1500,
} as const;

/**
 * MTU of the underlay (its veths, its bridge and br-phy). Geneve as OVN uses it adds 58 bytes
 * (outer Ethernet 14 + IPv4 20 + UDP 8 + Geneve 8 + OVN's 8-byte option), so 1500 carries
 * exactly the 1442-byte tenant MTU Neutron and octonet's DHCP hand out; see docs/lab.md.
 */
export const DEFAULT_UNDERLAY_MTU = 1500;

/**
 * `lab up --bgp` (Wikimedia's cloudgw layout, seed 004): two cloud gateways on the physical network
 * run FRR with eBGP to every node and send them a default route; they hold the physical network's
 * gateway address by VRRP (the tenants' external subnet uses it as gateway); behind them the core,
 * the outside world, learns everything by BGP. No static route for a tenant range anywhere.
 */
export const BGP = {
  cloudgws: [
    { name: 'cloudgw1', physicalIp: '198.51.100.251', physicalIp6: '2001:db8:100::251', coreIp: '203.0.113.2' },
    { name: 'cloudgw2', physicalIp: '198.51.100.252', physicalIp6: '2001:db8:100::252', coreIp: '203.0.113.3' },
  ],
  /** The VRRP address on the physical network: the gateway_ip of an external subnet in a BGP lab. */
  gatewayIp: '198.51.100.1',
  physicalCidr6: '2001:db8:100::/64',
  coreBridge: 'br-core',
  coreCidr: '203.0.113.0/24',
  coreIp: '203.0.113.1',
  coreAs: 64900,
  cloudgwAs: 64901,
  /** The MD5 secret of the cloudgws' sessions to the nodes: give it to the bgp-peers. */
  password: 'octonet-lab-bgp',
  /** BFD as the bench asks for it (100 ms × 3). */
  bfdIntervalMs: 100,
  /** Nodes' addresses are .201 upward on the physical network. */
  maxNodes: 40,
} as const;

/** A node's own address on the physical network (br-ex's LOCAL port), where its BGP sessions run. */
export function bgpNodeIp(index: number): string {
  return `198.51.100.${200 + index}`;
}

export function bgpNodeIp6(index: number): string {
  return `2001:db8:100::${200 + index}`;
}

/** The names inside a node's namespace; the same on every node, as on real servers. */
export const NODE_INTERFACES = {
  /** veth into the underlay bridge; a plain port of br-phy, with no address of its own. */
  underlay: 'eth0',
  /** veth into the physical bridge; a plain port of br-ex. */
  physical: 'eth1',
  /** OVS bridge whose LOCAL port carries the VTEP address (native tunnelling needs it there). */
  tunnelBridge: 'br-phy',
  /** OVS bridge of `physnet1` (ovn-bridge-mappings). */
  providerBridge: 'br-ex',
  /** Created by ovn-controller (ovn-bridge-datapath-type=netdev). */
  integrationBridge: 'br-int',
} as const;

/** Inside a VM namespace: one NIC, as a one-port VM has. */
export const VM_INTERFACE = 'eth0';

/** Node names are `node1..nodeN`; the chassis name and hostname equal the node name. */
export function nodeName(index: number): string {
  return `node${index}`;
}

export function nodeIndex(name: string): number | undefined {
  const match = /^node([1-9][0-9]*)$/.exec(name);
  return match ? Number(match[1]) : undefined;
}

export function vtepIp(index: number): string {
  return `192.0.2.${10 + index}`;
}

/**
 * br-phy's MAC, derived from the node index so every peer can seed its tunnel neighbour cache
 * without asking (the first packet to a peer is lost otherwise, see lab.md).
 */
export function brPhyMac(index: number): string {
  return `02:00:c0:00:02:${(10 + index).toString(16).padStart(2, '0')}`;
}

/** Nova names the host end of a VIF `tap` + the first 11 characters of the port id (14 chars). */
export function tapName(portId: string): string {
  return `tap${portId.slice(0, 11)}`;
}

/** The default VM name for a port: readable and stable. */
export function defaultVmName(portId: string): string {
  return `vm-${portId.slice(0, 8)}`;
}

/** Everything with a path or a name that belongs to one lab. */
export interface LabLayout {
  readonly name: string;
  readonly runDir: string;
  /** lab.json: what `up` made (the nodes, the gateways, the MTU). */
  readonly recordFile: string;
  /** One empty file per namespace the lab made, written before the namespace exists. */
  readonly namespaceMarkers: string;
  readonly vmDir: string;
  readonly dhcpHook: string;
  readonly centralDir: string;
  readonly nbSocket: string;
  readonly sbSocket: string;
  /** The outside namespace's own OVS, made only when it needs VLAN subinterfaces. */
  readonly outsideDir: string;
  readonly namespaces: {
    readonly underlay: string;
    readonly central: string;
    readonly outside: string;
    readonly core: string;
  };
  /** Central member K of a clustered lab (`lab up --cluster`); member 1 is `namespaces.central`. */
  centralNamespace(member: number): string;
  cloudgwNamespace(cloudgw: string): string;
  /** An FRR instance's directory (vty sockets, pidfiles, logs): `frr-<member>` in the run dir. */
  frrDir(member: string): string;
  nodeDir(node: string): string;
  nodeNamespace(node: string): string;
  vmNamespace(vm: string): string;
  vmRecord(vm: string): string;
  vmDhcpLog(vm: string): string;
  /** Underlay-side ends of the veths (inside the underlay namespace, so no lab name needed). */
  underlayPort(member: string): string;
  physicalPort(member: string): string;
  /** Namespaces whose names follow from the lab name alone; `down` checks them even without markers. */
  isFixedNamespace(namespace: string): boolean;
}

export function labLayout(name: string = DEFAULT_LAB_NAME, root: string = labRoot()): LabLayout {
  checkLabName(name);
  const runDir = join(root, name);
  const centralDir = join(runDir, 'central');
  const vmDir = join(runDir, 'vms');
  const fixed = new RegExp(`^${name}-(?:underlay|central[23]?|outside|core|cloudgw[12]|node[1-9][0-9]*)$`);
  return {
    name,
    runDir,
    recordFile: join(runDir, 'lab.json'),
    namespaceMarkers: join(runDir, 'netns'),
    vmDir,
    dhcpHook: join(runDir, 'dhcp-hook.sh'),
    centralDir,
    nbSocket: join(centralDir, 'ovnnb_db.sock'),
    sbSocket: join(centralDir, 'ovnsb_db.sock'),
    outsideDir: join(runDir, 'outside'),
    namespaces: {
      underlay: `${name}-underlay`,
      central: `${name}-central`,
      outside: `${name}-outside`,
      core: `${name}-core`,
    },
    centralNamespace: (member) => (member === 1 ? `${name}-central` : `${name}-central${member}`),
    cloudgwNamespace: (cloudgw) => `${name}-${cloudgw}`,
    frrDir: (member) => join(runDir, `frr-${member}`),
    nodeDir: (node) => join(runDir, node),
    nodeNamespace: (node) => `${name}-${node}`,
    vmNamespace: (vm) => `${name}-vm-${vm}`,
    vmRecord: (vm) => join(vmDir, `${vm}.json`),
    vmDhcpLog: (vm) => join(vmDir, `${vm}.dhcp.log`),
    // 'ul-' / 'ph-' + 'central' or 'node123' stays within the kernel's 15 characters.
    underlayPort: (member) => `ul-${member}`.slice(0, 15),
    physicalPort: (member) => `ph-${member}`.slice(0, 15),
    isFixedNamespace: (namespace) => fixed.test(namespace),
  };
}
