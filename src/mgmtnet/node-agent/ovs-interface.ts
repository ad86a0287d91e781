/**
 * The node's end of its management port in Open vSwitch: an internal interface (`o-hm0`) on
 * br-int whose external_ids tell ovn-controller which logical port it is (`iface-id`) and tell
 * us that we made it (`octonet-mgmt-net=<name>`). Reads what is there, says what differs from
 * what should be there, and makes it so with one ovs-vsctl transaction. An interface without our
 * owner mark is never changed or deleted.
 *
 * `mac` and `mtu_request` are set in OVSDB (not only on the link) so that vswitchd itself
 * re-applies them whenever it recreates the device: after an OVS restart or a reboot, the
 * interface comes back with the right MAC and MTU before the agent's next pass.
 */
import { must, type NodeHost } from './host.js';

const INTEGRATION_BRIDGE = 'br-int';
const OWNER_KEY = 'octonet-mgmt-net';

export interface WantedInterface {
  name: string;
  portId: string;
  mac: string;
  mtu: number;
  owner: string;
}

export interface ActualInterface {
  name: string;
  bridge: string | undefined;
  type: string;
  externalIds: Record<string, string>;
  mtuRequest: number | undefined;
  mac: string | undefined;
  ofport: number | undefined;
  error: string | undefined;
}

type OvsdbValue = string | number | boolean | [string, unknown];

function scalar(value: OvsdbValue): string | number | undefined {
  if (Array.isArray(value)) {
    // ["set", []] is OVSDB's "no value"; ["uuid", x] is a reference.
    if (value[0] === 'set') return undefined;
    return value[1] as string;
  }
  return value as string | number;
}

function map(value: OvsdbValue): Record<string, string> {
  if (Array.isArray(value) && value[0] === 'map') return Object.fromEntries(value[1] as [string, string][]);
  return {};
}

/** The interface as OVSDB has it, or undefined when there is none by that name. */
export async function readInterface(host: NodeHost, name: string): Promise<ActualInterface | undefined> {
  const columns = ['name', 'type', 'external_ids', 'mtu_request', 'mac', 'ofport', 'error'];
  const out = await must(host, [
    'ovs-vsctl',
    '--format=json',
    `--columns=${columns.join(',')}`,
    'find',
    'Interface',
    `name=${name}`,
  ]);
  const row = (JSON.parse(out) as { data: OvsdbValue[][] }).data[0];
  if (!row) return undefined;
  const bridge = await host(['ovs-vsctl', 'iface-to-br', name]);
  const ofport = scalar(row[5]!);
  return {
    name,
    bridge: bridge.code === 0 ? bridge.stdout.trim() : undefined,
    type: String(scalar(row[1]!) ?? ''),
    externalIds: map(row[2]!),
    mtuRequest: scalar(row[3]!) as number | undefined,
    mac: scalar(row[4]!) as string | undefined,
    ofport: typeof ofport === 'number' ? ofport : undefined,
    error: scalar(row[6]!) as string | undefined,
  };
}

/**
 * The host name this node's chassis registers with, which is what `binding:host_id` must say:
 * ML2/OVN binds a port to the chassis whose hostname equals it (octonet also accepts the chassis
 * name). ovn-controller takes it from `external_ids:hostname` when set, else from the kernel's host
 * name; `system-id` is the chassis name, often a UUID on real nodes, so it is only the fallback.
 */
export async function readChassisHost(host: NodeHost): Promise<{ hostname: string; systemId: string }> {
  const unquote = (text: string) => text.trim().replace(/^"(.*)"$/, '$1');
  const systemId = unquote(await must(host, ['ovs-vsctl', 'get', 'Open_vSwitch', '.', 'external_ids:system-id']));
  const configured = await host(['ovs-vsctl', '--if-exists', 'get', 'Open_vSwitch', '.', 'external_ids:hostname']);
  let hostname = configured.code === 0 ? unquote(configured.stdout) : '';
  if (!hostname) {
    const kernel = await host(['hostname']);
    hostname = kernel.code === 0 ? kernel.stdout.trim() : '';
  }
  return { hostname: hostname || systemId, systemId };
}

export function isOwned(actual: ActualInterface, owner: string): boolean {
  return actual.externalIds[OWNER_KEY] === owner;
}

function wantedIds(wanted: WantedInterface): Record<string, string> {
  return {
    'iface-id': wanted.portId,
    'attached-mac': wanted.mac,
    'iface-status': 'active',
    [OWNER_KEY]: wanted.owner,
  };
}

/**
 * What differs, by name (`mac`, `mtu_request`, `external_ids:iface-id`, ...). `replug` means the
 * interface must be made again: it is on another bridge, not internal, or names another port
 * (ovn-controller would otherwise briefly hold a binding for the old port).
 */
export function interfaceDrift(actual: ActualInterface, wanted: WantedInterface): { replug: boolean; drift: string[] } {
  const drift: string[] = [];
  if (actual.bridge !== INTEGRATION_BRIDGE) drift.push(`bridge (${actual.bridge ?? 'none'})`);
  if (actual.type !== 'internal') drift.push(`type (${actual.type || 'system'})`);
  const replugIdDrift = actual.externalIds['iface-id'] !== wanted.portId;
  for (const [key, value] of Object.entries(wantedIds(wanted))) {
    if (actual.externalIds[key] !== value) drift.push(`external_ids:${key}`);
  }
  if (actual.mtuRequest !== wanted.mtu) drift.push('mtu_request');
  if (actual.mac?.toLowerCase() !== wanted.mac.toLowerCase()) drift.push('mac');
  return { replug: drift.some((d) => d.startsWith('bridge') || d.startsWith('type')) || replugIdDrift, drift };
}

function settings(wanted: WantedInterface): string[] {
  return [
    'type=internal',
    ...Object.entries(wantedIds(wanted)).map(([key, value]) => `external_ids:${key}="${value}"`),
    `mtu_request=${wanted.mtu}`,
    `mac="${wanted.mac}"`,
  ];
}

/** Adds the interface (removing a stale one of ours by that name first). Waits for vswitchd to make the device. */
export async function plugInterface(host: NodeHost, wanted: WantedInterface): Promise<void> {
  await must(host, [
    'ovs-vsctl',
    '--',
    '--if-exists',
    'del-port',
    wanted.name,
    '--',
    'add-port',
    INTEGRATION_BRIDGE,
    wanted.name,
    '--',
    'set',
    'Interface',
    wanted.name,
    ...settings(wanted),
  ]);
}

/** Rewrites the interface's columns in place (MAC, MTU, marks); other external_ids keys stay. */
export async function repairInterface(host: NodeHost, wanted: WantedInterface): Promise<void> {
  await must(host, ['ovs-vsctl', 'set', 'Interface', wanted.name, ...settings(wanted)]);
}

export async function unplugInterface(host: NodeHost, name: string): Promise<void> {
  await must(host, ['ovs-vsctl', '--if-exists', 'del-port', name]);
}
