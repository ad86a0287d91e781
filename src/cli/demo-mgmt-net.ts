/**
 * The demo's management-network part: the minimal spec applied to the demo lab (one port
 * per node), the node agent plugging `o-hm0` on both nodes, an "amphora" namespace on lb-mgmt-net
 * with the amphora security group, and one heartbeat in Octavia's format (zlib'd JSON, HMAC-SHA256
 * with the generated heartbeat key) from it to each controller's health-manager address, received
 * by a listener on that node's o-hm0 and checked against the key. Everything it makes lives in the
 * demo's lab and API, so the demo's usual cleanup removes it.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { Lab } from '../lab/index.js';
import { NeutronClient } from '../mgmtnet/neutron-client.js';
import { decodeHeartbeat, encodeHeartbeat } from '../mgmtnet/node-agent/heartbeat.js';
import { fromNeutronClient, runNodeAgentUntilSettled, type NodeAgentReport } from '../mgmtnet/node-agent/index.js';
import { loadOrCreateHeartbeatKey, renderIni } from '../mgmtnet/octavia-config.js';
import { applySpec } from '../mgmtnet/reconcile.js';
import { validateSpec } from '../mgmtnet/spec.js';
import { describeReport } from './node-agent.js';

const indent = (text: string) => text.replace(/^(?=.)/gm, '  ');

/** A hang guard for the demo's waits; each normally takes well under a second. */
const WAIT_MS = 60_000;

async function until<T>(what: string, probe: () => Promise<T | undefined | false>): Promise<T> {
  const giveUpAt = Date.now() + WAIT_MS;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > giveUpAt) throw new Error(`${what}: not after ${WAIT_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Sends `datagram` from `from` to `address:5555` with a listener in `to` (socat, writing what it
 * receives to a file) until it arrives; returns the bytes received.
 */
async function deliverHeartbeat(
  lab: Lab,
  dir: string,
  from: string[],
  to: string[],
  address: string,
  datagram: Buffer,
) {
  const file = join(dir, `heartbeat-${address}`);
  const [bin, ...args] = [...to, 'socat', '-u', `UDP4-RECV:5555,bind=${address}`, `CREATE:${file}`];
  const listener = spawn(bin!, args, { stdio: 'ignore' });
  const closed = new Promise((resolve) => listener.once('close', resolve));
  try {
    await until(
      'the heartbeat listener',
      async () => (await lab.exec([...to, 'ss', '-Hlun', 'sport = :5555'])).stdout.trim() !== '',
    );
    return await until(`a heartbeat at ${address}:5555`, async () => {
      await lab.exec([...from, 'socat', '-u', '-', `UDP4-SENDTO:${address}:5555`], { input: datagram });
      for (let i = 0; i < 5; i++) {
        if (existsSync(file) && readFileSync(file).length >= datagram.length)
          return readFileSync(file).subarray(0, datagram.length);
        await new Promise((r) => setTimeout(r, 100));
      }
      return undefined;
    });
  } finally {
    listener.kill();
    await closed;
  }
}

export async function showManagementNetwork(url: string, lab: Lab, dir: string, labName: string): Promise<void> {
  const out = process.stdout;
  const nodes = (await lab.status()).nodes.map((n) => n.name);
  const raw = {
    apiVersion: 'octonet.dev/v1',
    kind: 'OctaviaManagementNetwork',
    metadata: { name: 'lb-mgmt' },
    spec: { topology: 'per-node-ports', network: { cidr: '172.24.0.0/16' }, nodes: nodes.map((name) => ({ name })) },
  };
  const specFile = join(dir, 'lb-mgmt.yaml');
  writeFileSync(specFile, stringify(raw));
  const spec = validateSpec(raw);
  const client = NeutronClient.noauth(url);
  const applied = await applySpec(spec, client);
  if (applied.error) throw new Error(`mgmt-net apply: ${applied.error}`);
  const { key } = loadOrCreateHeartbeatKey(`${specFile}.heartbeat-key`);

  const pass = (node: string, previous?: NodeAgentReport) =>
    runNodeAgentUntilSettled({
      client: fromNeutronClient(client),
      spec,
      node,
      host: lab.nodeCommand(node, []),
      previous,
    });
  for (const node of nodes) await until(`node agent on ${node}`, async () => (await pass(node)).ready);
  // Once every node is plugged, each one's probe has a peer to answer it: the reports to show.
  const reports: NodeAgentReport[] = [];
  for (const node of nodes) reports.push(await pass(node));

  const status = await applySpec(spec, client); // reads the ports the agents bound: all ACTIVE now
  const amphoraPort = await client.create('ports', {
    name: 'amphora',
    network_id: status.status.ids.network,
    device_owner: 'compute:nova',
    'binding:host_id': nodes[nodes.length - 1],
    security_groups: [status.status.ids.amphoraSecurityGroup],
  });
  await lab.createVm({ node: nodes[nodes.length - 1]!, port: amphoraPort.id, name: 'amphora' });
  const amphora = lab.vmCommand('amphora', []);
  const heard: string[] = [];
  for (const [seq, report] of reports.entries()) {
    const address = report.port!.fixedIps[0]!;
    const datagram = encodeHeartbeat({ id: amphoraPort.id, seq, ver: 3, listeners: {}, pools: {} }, key);
    const received = await deliverHeartbeat(lab, dir, amphora, lab.nodeCommand(report.node, []), address, datagram);
    const message = decodeHeartbeat(received, key);
    heard.push(
      `  ${report.node} o-hm0 ${address}:5555 received ${received.length} bytes from the amphora: HMAC ok, ` +
        `{"id": "${message.id.slice(0, 8)}…", "seq": ${message.seq}, "ver": ${message.ver}}`,
    );
  }
  const node1 = status.nodes[0]!;
  out.write(`
The Octavia management network, from the issue's minimal spec (${specFile}):

${indent(stringify(raw))}
\`octonet mgmt-net apply\` made ${applied.objects.length} Neutron objects (lb-mgmt-net ${applied.status.ids.network}, both security
groups and their rules, one port per node); the node agent on each node read its chassis name from
the node's own OVS, bound the port to it, plugged it as o-hm0 on br-int with the port's MAC, MTU
and address (static: no DHCP client, no default route) and probed the path with a full-size ping:

${indent(reports.map(describeReport).join(''))}
An "amphora" (${amphoraPort.fixed_ips?.[0]?.ip_address}, security group lb-mgmt-sec-grp) on ${nodes[nodes.length - 1]} sends each health manager a heartbeat
in Octavia's format, signed with the generated heartbeat_key (${specFile}.heartbeat-key):

${heard.join('\n')}

What Octavia on ${node1.name} gets (\`octonet mgmt-net apply -f ${specFile} --octavia-config-dir DIR\`):

${indent(renderIni(status.octavia, { node: node1.name, addresses: node1.fixedIps }))}
  $ ./octonet mgmt-net status -f ${specFile} --os-url ${url}
  $ ./octonet node-agent --node ${node1.name} -f ${specFile} --os-url ${url} --lab ${labName} --once
`);
}
