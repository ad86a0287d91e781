/**
 * What the management-network lab tests share: the spec, applying it with `mgmt-net apply`'s reconcile,
 * running the node agent in a node's namespace, an "amphora" namespace on lb-mgmt-net, and the
 * checks on both traffic directions (heartbeat UDP to the health manager, TCP 9443 to the amphora
 * agent).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Lab } from '../../src/lab/index.js';
import { NeutronClient } from '../../src/mgmtnet/neutron-client.js';
import {
  fromNeutronClient,
  runNodeAgentUntilSettled,
  type NodeAgentReport,
} from '../../src/mgmtnet/node-agent/index.js';
import { applySpec, type ApplyReport } from '../../src/mgmtnet/reconcile.js';
import { validateSpec, type MgmtNetSpec } from '../../src/mgmtnet/spec.js';
import type { Client } from '../fixtures/api.js';
import { check, created, pollUntil } from './lab-fixture.js';
import type { Json } from '../fixtures/json.js';

/** The minimal spec for `nodes`, with `extra` merged into `spec`. */
export function mgmtSpec(topology: string, nodes: string[], extra: Record<string, unknown> = {}): MgmtNetSpec {
  return validateSpec({
    apiVersion: 'octonet.dev/v1',
    kind: 'OctaviaManagementNetwork',
    metadata: { name: 'lb-mgmt' },
    spec: { topology, network: { cidr: '172.24.0.0/16' }, nodes: nodes.map((name) => ({ name })), ...extra },
  });
}

export interface Provisioned {
  report: ApplyReport;
  /** lb-mgmt-net: where amphorae are plugged. */
  network: Json;
  subnet: Json;
  amphoraGroupId: string;
  /** Per node name, its port (on lb-mgmt-net, or on the provider network for link-router). */
  ports: Map<string, Json>;
}

/** `mgmt-net apply`: the reconcile against the test's API; fails the test if the pass failed. */
export async function applyMgmtSpec(admin: Client, spec: MgmtNetSpec): Promise<Provisioned> {
  const report = await applySpec(spec, NeutronClient.noauth(admin.baseUrl));
  assert.equal(report.error, undefined, report.error);
  const ids = report.status.ids;
  const network = (await admin.get(`/v2.0/networks/${ids.network}`)).body.network;
  const subnetId = ids.subnets['mgmt-subnet-v4'] ?? ids.subnets['mgmt-subnet-v6'];
  const subnet = (await admin.get(`/v2.0/subnets/${subnetId}`)).body.subnet;
  const ports = new Map<string, Json>();
  for (const node of report.nodes) {
    if (node.portId) ports.set(node.name, (await admin.get(`/v2.0/ports/${node.portId}`)).body.port);
  }
  return { report, network, subnet, amphoraGroupId: ids.amphoraSecurityGroup!, ports };
}

/**
 * One node-agent pass for `node` (with the passes it requeues while its change settles), run inside
 * the node's namespace, against the test's API.
 */
export function agentPass(lab: Lab, apiUrl: string, spec: MgmtNetSpec, node: string, previous?: NodeAgentReport) {
  return runNodeAgentUntilSettled({
    client: fromNeutronClient(NeutronClient.noauth(apiUrl)),
    spec,
    node,
    host: lab.nodeCommand(node, []),
    previous,
  });
}

/** Passes until the node is Ready (a pass settles until the port is ACTIVE, but the probe's peers may still be coming up). */
export async function agentReady(lab: Lab, apiUrl: string, spec: MgmtNetSpec, node: string): Promise<NodeAgentReport> {
  let last: NodeAgentReport | undefined;
  try {
    return await pollUntil(async () => {
      last = await agentPass(lab, apiUrl, spec, node, last);
      return last.ready && last.conditions.every((c) => c.status === 'True') && last;
    }, `node agent on ${node} Ready with every condition True`);
  } catch (error) {
    throw new Error(`${(error as Error).message}: ${JSON.stringify(last?.conditions, null, 1)}`);
  }
}

/** A port's address, the first of its fixed IPs. */
export const ipOf = (port: Json): string => port.fixed_ips[0].ip_address;

/**
 * An "amphora": a namespace plugged into a port on lb-mgmt-net with the amphora security group, on
 * `node`; it takes its address, MTU and host routes by DHCP, as an amphora does.
 */
export async function plugAmphora(
  lab: Lab,
  admin: Client,
  made: Provisioned,
  node: string,
  name: string,
): Promise<Json> {
  const port = (
    await created(admin, '/v2.0/ports', {
      port: {
        name,
        network_id: made.network.id,
        device_owner: 'compute:nova',
        'binding:host_id': node,
        security_groups: [made.amphoraGroupId],
      },
    })
  ).port;
  await lab.createVm({ node, port: port.id, name });
  const [link] = JSON.parse(await check(lab, lab.vmCommand(name, ['ip', '-j', 'link', 'show', 'eth0'])));
  assert.equal(link.mtu, made.network.mtu, 'the amphora took the network MTU from DHCP');
  return port;
}

/**
 * A TCP connection that must not get through: a listener waits in `to`, the connection from
 * `from` times out (the security group drops the SYN; nothing answers, not even a reset).
 */
export async function assertTcpBlocked(
  lab: Lab,
  from: string[],
  to: string[],
  address: string,
  port: number,
): Promise<void> {
  const [file, ...args] = [...to, 'socat', '-u', `TCP4-LISTEN:${port},reuseaddr`, 'OPEN:/dev/null'];
  const listener = spawn(file!, args, { stdio: 'ignore' });
  const exited = new Promise((resolve) => listener.once('close', resolve));
  try {
    await pollUntil(
      async () => (await lab.exec([...to, 'ss', '-Hltn', `sport = :${port}`])).stdout.trim().length > 0,
      `a listener on ${port}`,
    );
    const attempt = await lab.exec([
      ...from,
      'socat',
      '-u',
      'OPEN:/dev/null',
      `TCP4:${address}:${port},connect-timeout=3`,
    ]);
    assert.notEqual(attempt.code, 0, `TCP ${port} to ${address} was let through`);
  } finally {
    listener.kill();
    await exited;
  }
}

/**
 * Sends `payload` as one UDP datagram from `from` to `address:port`, with a listener in `to`,
 * until it arrives (the first may wait for neighbour resolution); returns the bytes received
 * (the first datagram's worth: a retry may append a copy).
 */
export async function deliverUdp(
  lab: Lab,
  dir: string,
  from: string[],
  to: string[],
  address: string,
  payload: Buffer,
  port = 5555,
): Promise<Buffer> {
  // socat splits its address arguments on ':', so an IPv6 address cannot be part of the file name.
  const file = join(dir, `udp-${address.replace(/[^0-9a-zA-Z.]/g, '_')}-${port}`);
  rmSync(file, { force: true });
  const v6 = address.includes(':');
  const recv = v6 ? `UDP6-RECV:${port},bind=[${address}]` : `UDP4-RECV:${port},bind=${address}`;
  const send = v6 ? `UDP6-SENDTO:[${address}]:${port}` : `UDP4-SENDTO:${address}:${port}`;
  const [bin, ...args] = [...to, 'socat', '-u', recv, `CREATE:${file}`];
  const listener = spawn(bin!, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let said = '';
  listener.stderr!.on('data', (chunk: Buffer) => (said += chunk.toString()));
  const exited = new Promise((resolve) => listener.once('close', resolve));
  const arrived = () => (existsSync(file) ? readFileSync(file) : Buffer.alloc(0));
  try {
    await pollUntil(async () => {
      if (listener.exitCode !== null) throw new Error(`the listener on ${address}:${port} exited: ${said}`);
      return (await lab.exec([...to, 'ss', '-Hlun', `sport = :${port}`])).stdout.trim().length > 0;
    }, `a UDP listener on ${address}:${port}`);
    await pollUntil(async () => {
      await check(lab, [...from, 'socat', '-u', '-', send], payload);
      for (let i = 0; i < 5 && arrived().length < payload.length; i++) await new Promise((r) => setTimeout(r, 100));
      return arrived().length >= payload.length;
    }, `a UDP datagram to ${address}:${port}`);
  } finally {
    listener.kill();
    await exited;
  }
  return arrived().subarray(0, payload.length);
}

/**
 * Pings `address` from `from` with don't-fragment and `payload` bytes (the MTU less the IP and
 * ICMP headers: 28 for IPv4, 48 for IPv6): runs it and returns the result, without judging it.
 */
export function pingDontFragment(lab: Lab, from: string[], address: string, payload: number, count = 2) {
  const family = address.includes(':') ? ['-6'] : [];
  const argv = [...from, 'ping', ...family, '-c', String(count), '-i', '0.2', '-W', '2', '-M', 'do'];
  return lab.exec([...argv, '-s', String(payload), address]);
}

/** Two don't-fragment pings of `payload` bytes, both answered. */
export async function assertPingDontFragment(
  lab: Lab,
  from: string[],
  address: string,
  payload: number,
): Promise<void> {
  const result = await pingDontFragment(lab, from, address, payload);
  assert.match(
    result.stdout,
    /2 received/,
    `${payload}-byte ping with DF to ${address}: ${result.stdout}${result.stderr}`,
  );
}
