/**
 * Network namespaces and the veths between them. A namespace is recorded in the run dir before it
 * is created, so `down` removes exactly what this lab made (and nothing of a lab whose name merely
 * starts the same), even after an `up` that died half-way.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LabLayout } from './topology.js';
import { run, words } from './run.js';

export async function listNamespaces(): Promise<string[]> {
  const { stdout } = await run(['ip', 'netns', 'list']);
  // Lines look like `octonet-node1 (id: 3)`.
  return stdout
    .split('\n')
    .map((line) => line.split(' ')[0] ?? '')
    .filter(Boolean);
}

export function recordedNamespaces(layout: LabLayout): string[] {
  try {
    return readdirSync(layout.namespaceMarkers);
  } catch {
    return [];
  }
}

/**
 * A namespace with loopback up and IPv6 off: the lab is IPv4-only, and router solicitations and
 * DAD probes would only add noise to captures and to OVN's MAC learning.
 */
export async function createNamespace(layout: LabLayout, namespace: string): Promise<void> {
  mkdirSync(layout.namespaceMarkers, { recursive: true });
  writeFileSync(join(layout.namespaceMarkers, namespace), '');
  await run(['ip', 'netns', 'add', namespace]);
  const setup = 'sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1; ip link set lo up';
  await run(['ip', 'netns', 'exec', namespace, 'sh', '-ec', setup]);
}

/** Deletes the namespace (if it exists) and its record. Processes still inside would keep it alive. */
export async function deleteNamespace(layout: LabLayout, namespace: string): Promise<void> {
  await run(['ip', 'netns', 'del', namespace], { allowFailure: true });
  rmSync(join(layout.namespaceMarkers, namespace), { force: true });
}

export interface VethEnd {
  namespace: string;
  name: string;
  /** Set on this end (a VM's eth0 carries the port's MAC). */
  mac?: string;
  /** A Linux bridge in the same namespace to enslave this end to. */
  master?: string;
}

/** A veth pair between two namespaces, both ends up, with the given MTU and TX checksum offload off. */
export async function addVeth(a: VethEnd, b: VethEnd, mtu: number): Promise<void> {
  const attributes = (e: VethEnd) => `${e.mac ? `address ${e.mac} ` : ''}mtu ${mtu}`;
  await run(
    words(`ip -n ${a.namespace} link add ${a.name} ${attributes(a)} type veth`).concat(
      words(`peer name ${b.name} ${attributes(b)} netns ${b.namespace}`),
    ),
  );
  for (const e of [a, b]) {
    await run(words(`ip -n ${e.namespace} link set ${e.name} ${e.master ? `master ${e.master} ` : ''}up`));
  }
  await disableTxChecksumOffload(a.namespace, [a.name]);
  await disableTxChecksumOffload(b.namespace, [b.name]);
}

/**
 * `ethtool -K IF tx off`. A veth hands packets over with the checksum still to be filled in
 * (CHECKSUM_PARTIAL); the userspace datapath reads them from an AF_PACKET socket and forwards
 * them as they are, so the receiver drops every TCP and UDP packet while ping still works.
 * With TX checksumming off the kernel computes the checksum before the packet leaves the veth.
 */
export async function disableTxChecksumOffload(namespace: string, interfaces: readonly string[]): Promise<void> {
  if (interfaces.length === 0) return;
  await run(
    ['ip', 'netns', 'exec', namespace, 'sh', '-ec', 'for i; do ethtool -K "$i" tx off >/dev/null; done'].concat([
      'sh',
      ...interfaces,
    ]),
  ).catch((error: Error) => {
    throw new Error(
      `cannot turn off TX checksum offload (needed for TCP and UDP; is ethtool installed?): ${error.message}`,
    );
  });
}
