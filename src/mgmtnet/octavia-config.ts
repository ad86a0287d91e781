/**
 * Octavia's side of the management network: the option values the operator owns, rendered as an
 * INI fragment per controller node and as a Kubernetes ConfigMap, plus the heartbeat key.
 *
 * - `controller_ip_port_list` is sorted by address (IPv4 before IPv6, numerically) so that it is
 *   the same on every node and every pass: amphorae rotate through it, and a reordering would look
 *   like a change and restart health managers for nothing. IPv6 entries are bracketed.
 * - No `[networking]` section: Octavia has no VIP deny-list (`denylist_vip_networks` does not exist
 *   and oslo.config would ignore it silently), and its `valid_vip_networks` is an allow-list of the
 *   tenants' VIP networks, which are not ours to name. What keeps users off lb-mgmt-net is that it
 *   belongs to the service project and is not shared.
 * - `heartbeat_key` is generated (32 random bytes, hex), kept where it survives (a 0600 file next to
 *   the spec, or a Secret), rotatable, and never part of a status, a log or the ConfigMap.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import ipaddr from 'ipaddr.js';

export interface OctaviaOptions {
  readonly health_manager: {
    readonly bind_port: number;
    readonly controller_ip_port_list: readonly string[];
  };
  readonly controller_worker: {
    readonly amp_boot_network_list: readonly string[];
    readonly amp_secgroup_list: readonly string[];
  };
}

export interface ControllerAddress {
  readonly node: string;
  /** The node's addresses on the controllers' network. */
  readonly addresses: readonly string[];
}

/** `ip:port`, with IPv6 in brackets (Octavia strips them; unbracketed v6 is ambiguous to a reader). */
function formatIpPort(ip: string, port: number): string {
  return ipaddr.parse(ip).kind() === 'ipv6' ? `[${ipaddr.parse(ip).toString()}]:${port}` : `${ip}:${port}`;
}

function compareAddresses(a: string, b: string): number {
  const x = ipaddr.parse(a).toByteArray();
  const y = ipaddr.parse(b).toByteArray();
  if (x.length !== y.length) return x.length - y.length;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return 0;
}

/** The address a node's health manager is known by: its IPv4 one if it has one, else IPv6. */
function primaryAddress(addresses: readonly string[]): string | undefined {
  return [...addresses].sort(compareAddresses)[0];
}

/** `bind_ip` for a node: its only address, or `::` when it has both families (dual stack). */
export function bindIp(addresses: readonly string[]): string {
  const families = new Set(addresses.map((a) => ipaddr.parse(a).kind()));
  if (families.size > 1) return '::';
  return addresses[0] ?? '127.0.0.1';
}

export function controllerIpPortList(controllers: readonly ControllerAddress[], port: number): string[] {
  return controllers
    .map((c) => primaryAddress(c.addresses))
    .filter((a): a is string => a !== undefined)
    .sort(compareAddresses)
    .map((a) => formatIpPort(a, port));
}

export function octaviaOptions(input: {
  controllers: readonly ControllerAddress[];
  bindPort: number;
  mgmtNetworkId: string | undefined;
  amphoraSecurityGroupId: string | undefined;
}): OctaviaOptions {
  return {
    health_manager: {
      bind_port: input.bindPort,
      controller_ip_port_list: controllerIpPortList(input.controllers, input.bindPort),
    },
    controller_worker: {
      amp_boot_network_list: input.mgmtNetworkId ? [input.mgmtNetworkId] : [],
      amp_secgroup_list: input.amphoraSecurityGroupId ? [input.amphoraSecurityGroupId] : [],
    },
  };
}

/** Whether the health managers' list differs from the one last rendered (order included). */
export function controllerListChanged(previous: readonly string[] | undefined, next: readonly string[]): boolean {
  if (previous === undefined) return next.length > 0;
  return previous.length !== next.length || previous.some((entry, i) => entry !== next[i]);
}

/** The INI fragment for one controller node (`heartbeatKey` only when given: the file is 0600). */
export function renderIni(options: OctaviaOptions, node: ControllerAddress, heartbeatKey?: string): string {
  const list = (values: readonly string[]) => values.join(', ');
  return [
    `# Rendered by octonet mgmt-net for node ${node.node}; do not edit, apply again instead.`,
    '[health_manager]',
    `bind_ip = ${bindIp(node.addresses)}`,
    `bind_port = ${options.health_manager.bind_port}`,
    `controller_ip_port_list = ${list(options.health_manager.controller_ip_port_list)}`,
    ...(heartbeatKey !== undefined ? [`heartbeat_key = ${heartbeatKey}`] : []),
    '',
    '[controller_worker]',
    `amp_boot_network_list = ${list(options.controller_worker.amp_boot_network_list)}`,
    `amp_secgroup_list = ${list(options.controller_worker.amp_secgroup_list)}`,
    '',
  ].join('\n');
}

/**
 * The ConfigMap for Kubernetes: one `<node>.conf` fragment per node (no heartbeat key: it lives in
 * the Secret named in the spec and is mounted separately) and the list on its own.
 */
export function renderConfigMap(input: {
  name: string;
  namespace?: string;
  options: OctaviaOptions;
  controllers: readonly ControllerAddress[];
}): {
  apiVersion: 'v1';
  kind: 'ConfigMap';
  metadata: { name: string; namespace?: string; labels: Record<string, string> };
  data: Record<string, string>;
} {
  const data: Record<string, string> = {
    controller_ip_port_list: input.options.health_manager.controller_ip_port_list.join(', '),
  };
  for (const c of [...input.controllers].sort((a, b) => a.node.localeCompare(b.node))) {
    data[`${c.node}.conf`] = renderIni(input.options, c);
  }
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: `${input.name}-octavia-config`,
      ...(input.namespace !== undefined ? { namespace: input.namespace } : {}),
      labels: { 'octonet.dev/mgmt-net': input.name },
    },
    data,
  };
}

export function generateHeartbeatKey(): string {
  return randomBytes(32).toString('hex');
}

/**
 * The key kept in `path` (created 0600 when missing; replaced when `rotate`). Written to a temporary
 * file and renamed, so a crash never leaves half a key.
 */
export function loadOrCreateHeartbeatKey(
  path: string,
  rotate = false,
): { key: string; created: boolean; rotated: boolean } {
  if (existsSync(path) && !rotate) {
    const key = readFileSync(path, 'utf8').trim();
    if (key.length < 16) throw new Error(`${path}: the heartbeat key is shorter than 16 characters`);
    return { key, created: false, rotated: false };
  }
  const existed = existsSync(path);
  const key = generateHeartbeatKey();
  const temporary = `${path}.tmp-${process.pid}`;
  writeFileSync(temporary, `${key}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
  return { key, created: !existed, rotated: existed };
}
