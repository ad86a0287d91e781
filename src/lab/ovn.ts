/**
 * The little the lab reads from OVN itself: a Logical_Switch_Port's MAC and `up`, and whether the
 * nodes have registered and built their tunnels. The lab never writes NB rows: those belong to
 * whoever drives it (octonet serve, a test, an operator with ovn-nbctl).
 */
import { nbRemote, sbRemote } from './central.js';
import { vsctl } from './node.js';
import type { NodeRecord } from './records.js';
import { CommandFailedError, run, waitFor } from './run.js';
import type { LabLayout } from './topology.js';

export function nbctl(layout: LabLayout, args: readonly string[]): string[] {
  return ['ovn-nbctl', `--db=${nbRemote(layout)}`, '--timeout=30', ...args];
}

export function sbctl(layout: LabLayout, args: readonly string[]): string[] {
  return ['ovn-sbctl', `--db=${sbRemote(layout)}`, '--timeout=30', ...args];
}

/** How long an ovn-*ctl keeps being retried while a clustered database has no leader. */
const NO_LEADER_RETRY_MS = 30_000;

/**
 * Runs an ovn-nbctl/ovn-sbctl argv. Against a RAFT cluster, ovn-*ctl (leader-only, no retry) tries
 * each remote once and gives up with "database connection failed" when none is the leader, as
 * during the election after a member rejoins; that is retried here until a leader answers.
 */
export async function runCtl(argv: readonly string[]): Promise<string> {
  const giveUpAt = Date.now() + NO_LEADER_RETRY_MS;
  for (;;) {
    const result = await run(argv, { allowFailure: true });
    if (result.code === 0) return result.stdout;
    if (!/database connection failed/.test(result.stderr) || Date.now() > giveUpAt) {
      throw new CommandFailedError(argv, result);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** A cell of ovs-*ctl's `--format=json`: an atom, or ["set", atoms], ["map", pairs], ["uuid", id]. */
type OvsdbJsonValue = string | number | boolean | [string, unknown];

function atoms(value: OvsdbJsonValue | undefined): unknown[] {
  if (value === undefined) return [];
  if (Array.isArray(value)) return value[0] === 'set' ? (value[1] as unknown[]) : [value];
  return [value];
}

interface PortRow {
  addresses: string[];
  dynamicAddresses: string[];
  up: boolean | undefined;
}

async function readPort(layout: LabLayout, port: string): Promise<PortRow | undefined> {
  const stdout = await runCtl(
    nbctl(layout, [
      '--format=json',
      '--columns=addresses,dynamic_addresses,up',
      'find',
      'Logical_Switch_Port',
      `name=${JSON.stringify(port)}`,
    ]),
  );
  const table = JSON.parse(stdout) as { data: OvsdbJsonValue[][] };
  const row = table.data[0];
  if (!row) return undefined;
  const [addresses, dynamicAddresses, up] = row;
  const upAtoms = atoms(up);
  return {
    addresses: atoms(addresses).map(String),
    dynamicAddresses: atoms(dynamicAddresses).map(String),
    up: upAtoms.length ? upAtoms[0] === true : undefined,
  };
}

/** The port's MAC as Neutron writes it (`"MAC IP..."`), or from dynamic_addresses for `dynamic`. */
function macOf(row: PortRow): string | undefined {
  for (const entry of [...row.addresses, ...row.dynamicAddresses]) {
    const first = entry.split(' ')[0] ?? '';
    if (/^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$/.test(first)) return first.toLowerCase();
  }
  return undefined;
}

/**
 * Waits for the Logical_Switch_Port named `port` to exist with a MAC: the control plane writes it
 * asynchronously after the Neutron port is created.
 */
export async function waitForPortMac(layout: LabLayout, port: string, timeoutMs: number): Promise<string> {
  let row: PortRow | undefined;
  return waitFor(
    async () => {
      row = await readPort(layout, port);
      return row ? macOf(row) : undefined;
    },
    {
      timeoutMs,
      describe: () =>
        row
          ? `Logical_Switch_Port ${port} has no MAC in its addresses (${JSON.stringify(row.addresses)}); pass --mac`
          : `no Logical_Switch_Port named ${port} appeared in the NB within ${timeoutMs / 1000} s`,
    },
  );
}

export async function portUp(layout: LabLayout, port: string): Promise<boolean | undefined> {
  return (await readPort(layout, port))?.up;
}

export async function waitForPortUp(layout: LabLayout, port: string, timeoutMs: number): Promise<void> {
  await waitFor(async () => ((await portUp(layout, port)) === true ? true : undefined), {
    timeoutMs,
    describe: async () =>
      `Logical_Switch_Port ${port} did not come up within ${timeoutMs / 1000} s (up=${await portUp(layout, port)}); ` +
      `is it on a logical switch, and is the node's ovn-controller running?`,
  });
}

/** Every node has registered its chassis and has a Geneve tunnel to every other node. */
export async function waitForChassisAndTunnels(
  layout: LabLayout,
  nodes: readonly NodeRecord[],
  timeoutMs: number,
): Promise<void> {
  let missing: string[] = [];
  await waitFor(
    async () => {
      const stdout = await runCtl(sbctl(layout, ['--bare', '--columns=name', 'list', 'Chassis']));
      const registered = new Set(stdout.split('\n').filter(Boolean));
      missing = nodes.filter((node) => !registered.has(node.name)).map((node) => `chassis ${node.name}`);
      for (const node of nodes) {
        const { stdout: tunnels } = await run(
          vsctl(layout, node.name, ['--bare', '--columns=name', 'find', 'Interface', 'type=geneve']),
        );
        const count = tunnels.split('\n').filter(Boolean).length;
        if (count < nodes.length - 1) missing.push(`${node.name}: ${count}/${nodes.length - 1} tunnels`);
      }
      return missing.length === 0 ? true : undefined;
    },
    { timeoutMs, intervalMs: 200, describe: () => `the nodes did not all join OVN: ${missing.join(', ')}` },
  );
  // Returns once every chassis has caught up with the NB: flows are in place everywhere.
  await runCtl(nbctl(layout, ['--wait=hv', 'sync']));
}
