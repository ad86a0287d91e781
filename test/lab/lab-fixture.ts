/**
 * What the lab tests share: one lab per test file (up in `before`, down in `after`, even when a
 * test failed), logical switches made with plain ovn-nbctl, and real traffic between namespaces
 * (ping, TCP and UDP with socat) that waits for conditions rather than for fixed delays.
 * Needs root; without it a developer's run skips the suites with a reason and CI's fails them.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { downLab, upLab, type Lab, type LabUpOptions } from '../../src/lab/index.js';
import type { Client } from '../fixtures/api.js';
import type { Json } from '../fixtures/json.js';

/** Generous: these guard against hangs on a loaded 2-core CI machine, they do not measure anything. */
export const DEADLINE_MS = 30_000;

const inCi = process.env.CI !== undefined && !['', '0', 'false'].includes(process.env.CI);
const isRoot = process.getuid?.() === 0;

/**
 * The skip reason of the lab suites, or false. A developer without root skips them; CI never does:
 * there (CI=true, as root) a lab that cannot start fails its tests, since a skipped lab suite would
 * leave CI green without a packet sent.
 */
export const notRoot = !isRoot && !inCi ? 'lab tests need root (network namespaces)' : false;

/** Fails the suite (in its `before`) when it runs without root, which only CI does: see `notRoot`. */
export function requireRoot(): void {
  if (!isRoot) throw new Error('the lab tests need root (network namespaces), and CI must run them as root');
}

/** Starts a lab before the file's tests and removes it after them; `lab()` is the handle. */
export function useLab(options: LabUpOptions & { name: string }): { lab: () => Lab; scratch: () => string } {
  let current: Lab | undefined;
  let dir: string | undefined;
  before(async () => {
    requireRoot();
    await downLab({ name: options.name }); // a leftover from an interrupted run
    current = await upLab(options);
    dir = mkdtempSync(join(tmpdir(), `octonet-${options.name}-`));
  });
  after(async () => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    const report = await downLab({ name: options.name });
    assert.deepEqual(report.strays, [], 'no process outlives the lab');
  });
  return {
    lab: () => {
      if (!current) throw new Error('the lab did not come up');
      return current;
    },
    scratch: () => dir!,
  };
}

export interface PortSpec {
  name: string;
  mac: string;
  ip: string;
}

/** A logical switch with ports (addresses and port security as Neutron writes them), optionally DHCP. */
export async function createSwitch(
  lab: Lab,
  name: string,
  ports: readonly PortSpec[],
  dhcpOptionsUuid?: string,
): Promise<void> {
  await lab.nbctl('--may-exist', 'ls-add', name);
  for (const port of ports) {
    const address = `${port.mac} ${port.ip}`;
    const args = ['lsp-add', name, port.name, '--', 'lsp-set-addresses', port.name, address];
    args.push('--', 'lsp-set-port-security', port.name, address);
    if (dhcpOptionsUuid) args.push('--', 'lsp-set-dhcpv4-options', port.name, dhcpOptionsUuid);
    await lab.nbctl(...args);
  }
}

/** A localnet port on physnet1, with a VLAN tag if given (a VLAN provider network). */
export async function addLocalnetPort(lab: Lab, logicalSwitch: string, name: string, vlan?: number): Promise<void> {
  const args = ['lsp-add', logicalSwitch, name, '--', 'lsp-set-type', name, 'localnet'];
  args.push('--', 'lsp-set-addresses', name, 'unknown', '--', 'lsp-set-options', name, 'network_name=physnet1');
  if (vlan !== undefined) args.push('--', 'set', 'Logical_Switch_Port', name, `tag_request=${vlan}`);
  await lab.nbctl(...args);
}

export async function pollUntil<T>(
  probe: () => Promise<T | undefined | false>,
  what: string,
  deadlineMs = DEADLINE_MS,
): Promise<T> {
  const giveUpAt = Date.now() + deadlineMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > giveUpAt) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function portUp(lab: Lab, port: string): Promise<string> {
  return lab.nbctl('get', 'Logical_Switch_Port', port, 'up');
}

/** Runs argv (from lab.vmCommand and friends) and asserts success; returns stdout. */
export async function check(lab: Lab, argv: string[], input?: string | Buffer): Promise<string> {
  const result = await lab.exec(argv, { input, timeoutMs: DEADLINE_MS });
  assert.equal(result.code, 0, `${argv.join(' ')} failed (${result.code}): ${result.stderr}${result.stdout}`);
  return result.stdout;
}

/** Three pings, all answered: the first packet counts too (tunnel neighbours are seeded). */
export async function assertPing(lab: Lab, from: string[], address: string): Promise<void> {
  const out = await check(lab, [...from, 'ping', '-c', '3', '-i', '0.2', '-W', '2', address]);
  assert.match(out, /3 packets transmitted, 3 received/, out);
}

/** Where a command argv runs: the prefix from lab.vmCommand(name, []) etc. */
type Place = string[];

function background(argv: string[]): { child: ChildProcess; exited: Promise<number | null>; output: () => string } {
  const [file, ...args] = argv;
  const child = spawn(file!, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

async function waitListening(lab: Lab, place: Place, protocol: 'tcp' | 'udp', port: number): Promise<void> {
  const flag = protocol === 'tcp' ? '-Hltn' : '-Hlun';
  await pollUntil(async () => {
    const result = await lab.exec([...place, 'ss', flag, `sport = :${port}`]);
    return result.stdout.trim().length > 0;
  }, `a ${protocol} listener on port ${port}`);
}

/**
 * Sends `bytes` random bytes over TCP from `from` to `address:port` in `to`, and checks that what
 * arrived is byte-for-byte what was sent.
 */
export async function assertTcpTransfer(
  lab: Lab,
  dir: string,
  from: Place,
  to: Place,
  address: string,
  bytes: number,
  port = 9000,
): Promise<void> {
  const sent = join(dir, `tcp-${port}-sent`);
  const received = join(dir, `tcp-${port}-received`);
  writeFileSync(sent, randomBytes(bytes));
  rmSync(received, { force: true });
  const listener = background([...to, 'socat', '-u', `TCP4-LISTEN:${port},reuseaddr`, `CREATE:${received}`]);
  try {
    await waitListening(lab, to, 'tcp', port);
    await check(lab, [...from, 'socat', '-u', `OPEN:${sent}`, `TCP4:${address}:${port},connect-timeout=10`]);
    assert.equal(await listener.exited, 0, listener.output());
  } finally {
    listener.child.kill();
  }
  assert.ok(readFileSync(received).equals(readFileSync(sent)), `the ${bytes} bytes arrived intact`);
}

function readIfExists(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** Sends UDP datagrams from `from` to `address:port` in `to` until one arrives; checks its content. */
export async function assertUdpDatagram(
  lab: Lab,
  dir: string,
  from: Place,
  to: Place,
  address: string,
  port = 5555,
): Promise<void> {
  const received = join(dir, `udp-${port}-received`);
  rmSync(received, { force: true });
  const listener = background([...to, 'socat', '-u', `UDP4-RECV:${port}`, `CREATE:${received}`]);
  const message = `datagram ${randomBytes(8).toString('hex')}\n`;
  try {
    await waitListening(lab, to, 'udp', port);
    await pollUntil(async () => {
      await check(lab, [...from, 'socat', '-u', '-', `UDP4-SENDTO:${address}:${port}`], message);
      for (let i = 0; i < 5; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        if (readIfExists(received)) return true;
      }
      return false;
    }, `a UDP datagram to ${address}:${port}`);
  } finally {
    listener.child.kill();
    await listener.exited;
  }
  assert.equal(readIfExists(received).split('\n')[0] + '\n', message);
}

/** Runs `action` while tcpdump captures one matching packet on `iface` in `place`; returns what it printed. */
export async function captureWhile(
  place: Place,
  iface: string,
  filter: string,
  action: () => Promise<void>,
): Promise<string> {
  const capture = background([...place, 'tcpdump', '-l', '-c', '1', '-eni', iface, filter]);
  let timer: NodeJS.Timeout | undefined;
  try {
    await pollUntil(async () => capture.output().includes('listening on'), `tcpdump on ${iface}`);
    await action();
    await Promise.race([
      capture.exited,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`nothing matched ${filter}: ${capture.output()}`)), DEADLINE_MS);
      }),
    ]);
  } finally {
    clearTimeout(timer);
    capture.child.kill();
  }
  return capture.output();
}

/** The outside host's address on physnet1 (the lab's `outside` namespace). */
export const OUTSIDE_ADDRESS = '198.51.100.100';

/** POSTs as the client and returns the body; anything but 201/200 fails the test with the answer. */
export async function created(client: Pick<Client, 'post'>, path: string, body: unknown): Promise<Json> {
  const r = await client.post(path, body);
  assert.ok(r.status === 201 || r.status === 200, `${path}: ${r.status} ${r.text}`);
  return r.body;
}

/**
 * The lab's physical network as Neutron's external network: flat on physnet1, the outside host as
 * its gateway, no DHCP, addresses .10–.90 for router gateways and floating IPs (the rest stay free
 * for addresses a test chooses).
 */
export async function createOutsideNetwork(admin: Pick<Client, 'post'>): Promise<{ network: Json; subnet: Json }> {
  const { network } = await created(admin, '/v2.0/networks', {
    network: {
      name: 'public',
      'router:external': true,
      'provider:network_type': 'flat',
      'provider:physical_network': 'physnet1',
    },
  });
  const { subnet } = await created(admin, '/v2.0/subnets', {
    subnet: {
      network_id: network.id,
      cidr: '198.51.100.0/24',
      ip_version: 4,
      gateway_ip: OUTSIDE_ADDRESS,
      enable_dhcp: false,
      allocation_pools: [{ start: '198.51.100.10', end: '198.51.100.90' }],
    },
  });
  return { network, subnet };
}
