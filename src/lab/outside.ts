/**
 * The outside namespace: a host on the physical network (`physnet1`), standing for the world
 * outside the cloud, reached through the nodes' br-ex (flat networks, routers' gateway ports) or
 * over a VLAN (VLAN provider networks, localnet ports with a tag).
 *
 * VLAN subinterfaces: where the kernel has 802.1Q support, `eth0.<vid>` is an ordinary VLAN
 * device. This machine's kernel has none (`ip link add ... type vlan` answers "Unknown device
 * type"), so the outside namespace then gets a small OVS of its own: eth0 becomes a trunk port of
 * a netdev bridge and `eth0.<vid>` an internal access port with `tag=<vid>`. eth0 keeps its
 * address and untagged traffic: the kernel still receives every frame, and OVS only forwards the
 * tagged ones to the access ports.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { addVeth, createNamespace } from './netns.js';
import { startOvs, vsctlIn } from './ovs.js';
import { run, words } from './run.js';
import { LabUsageError, PHYSICAL, type LabLayout } from './topology.js';

const OUTSIDE_INTERFACE = 'eth0';
const VLAN_BRIDGE = 'br-vlan';

export async function buildOutside(layout: LabLayout): Promise<void> {
  const ns = layout.namespaces.outside;
  await createNamespace(layout, ns);
  await addVeth(
    { namespace: layout.namespaces.underlay, name: layout.physicalPort('outside'), master: PHYSICAL.bridge },
    { namespace: ns, name: OUTSIDE_INTERFACE, mac: PHYSICAL.outsideMac },
    PHYSICAL.mtu,
  );
  await run([
    'ip',
    '-n',
    ns,
    'addr',
    'add',
    `${PHYSICAL.outsideIp}/${PHYSICAL.prefixLength}`,
    'dev',
    OUTSIDE_INTERFACE,
  ]);
}

export interface OutsideVlan {
  vlan: number;
  interface: string;
  /** `kernel` (an 802.1Q device) or `ovs` (an access port of the outside's own OVS). */
  via: 'kernel' | 'ovs';
  addresses: string[];
}

function vlanInterface(vlan: number): string {
  return `${OUTSIDE_INTERFACE}.${vlan}`;
}

async function addKernelVlan(ns: string, vlan: number): Promise<boolean> {
  const argv = words(`ip -n ${ns} link add link ${OUTSIDE_INTERFACE} name ${vlanInterface(vlan)} type vlan id ${vlan}`);
  return (await run(argv, { allowFailure: true })).code === 0;
}

async function addOvsVlan(layout: LabLayout, vlan: number): Promise<void> {
  const dir = layout.outsideDir;
  if (!existsSync(join(dir, 'conf.db'))) {
    await startOvs(layout.namespaces.outside, dir);
    const bridge = `-- add-br ${VLAN_BRIDGE} -- set Bridge ${VLAN_BRIDGE} datapath_type=netdev`;
    await run(vsctlIn(dir, words(`${bridge} -- add-port ${VLAN_BRIDGE} ${OUTSIDE_INTERFACE}`)));
  }
  const name = vlanInterface(vlan);
  // A kernel VLAN device shares its parent's MAC; so does this one. ovs-vsctl returns once
  // vswitchd has created the internal port's tap.
  await run(
    vsctlIn(dir, [
      ...words(`-- --may-exist add-port ${VLAN_BRIDGE} ${name} tag=${vlan} -- set Interface ${name} type=internal`),
      `mac="${PHYSICAL.outsideMac}"`,
    ]),
  );
}

/**
 * Gives the outside namespace `eth0.<vlan>`, carrying VLAN `vlan` of the physical network
 * untagged, with `address` (CIDR) on it if given. Returns the interface name.
 */
export async function addOutsideVlan(layout: LabLayout, vlan: number, address?: string): Promise<string> {
  if (!Number.isInteger(vlan) || vlan < 1 || vlan > 4094) throw new LabUsageError('a VLAN id is from 1 to 4094');
  const ns = layout.namespaces.outside;
  const name = vlanInterface(vlan);
  const exists = (await run(['ip', '-n', ns, 'link', 'show', name], { allowFailure: true })).code === 0;
  if (!exists && !(await addKernelVlan(ns, vlan))) await addOvsVlan(layout, vlan);
  await run(['ip', '-n', ns, 'link', 'set', name, 'mtu', String(PHYSICAL.mtu), 'up']);
  if (address) await run(['ip', '-n', ns, 'addr', 'replace', address, 'dev', name]);
  return name;
}

export async function outsideVlans(layout: LabLayout): Promise<OutsideVlan[]> {
  const { code, stdout } = await run(['ip', '-n', layout.namespaces.outside, '-j', '-d', 'addr', 'show'], {
    allowFailure: true,
  });
  if (code !== 0 || !stdout.trim()) return [];
  const links = JSON.parse(stdout) as {
    ifname: string;
    linkinfo?: { info_kind?: string };
    addr_info?: { family: string; local: string; prefixlen: number }[];
  }[];
  return links
    .filter((link) => /^eth0\.[0-9]+$/.test(link.ifname))
    .map((link) => ({
      vlan: Number(link.ifname.split('.')[1]),
      interface: link.ifname,
      via: link.linkinfo?.info_kind === 'vlan' ? ('kernel' as const) : ('ovs' as const),
      addresses: (link.addr_info ?? []).filter((a) => a.family === 'inet').map((a) => `${a.local}/${a.prefixlen}`),
    }))
    .sort((a, b) => a.vlan - b.vlan);
}
