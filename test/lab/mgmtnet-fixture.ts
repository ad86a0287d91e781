/**
 * What the management-network lab tests share: the spec, provisioning it, running the node agent
 * in a node's namespace, an "amphora" namespace on lb-mgmt-net, and the checks on both traffic
 * directions (heartbeat UDP to the health manager, TCP 9443 to the amphora agent).
 *
 * `applyMgmtSpec` makes the Neutron objects the contract describes (names, tags, device owner,
 * security groups) with plain API calls. It stands in for the core's `applySpec` until that is
 * merged here; the tests only use what it returns, so switching is one function.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Lab } from '../../src/lab/index.js';
import {
  httpNeutron,
  nodeTag,
  ownerTag,
  runNodeAgentPass,
  type NodeAgentReport,
  type NodeAgentSpec,
} from '../../src/mgmtnet/node-agent/index.js';
import type { Client } from '../fixtures/api.js';
import { check, created, pollUntil } from './lab-fixture.js';

export interface MgmtSpec extends NodeAgentSpec {
  apiVersion: 'octonet.dev/v1';
  kind: 'OctaviaManagementNetwork';
  spec: {
    topology: 'per-node-ports' | 'link-router';
    network: { cidr: string; mtu?: number };
    nodes: { name: string }[];
    nodeInterface?: string;
    /** link-router: the controllers' provider network (flat on physnet1 here). */
    provider?: { cidr: string; routerAddress: string; pool: { start: string; end: string } };
  };
}

export function mgmtSpec(topology: MgmtSpec['spec']['topology'], nodes: string[], extra: Partial<MgmtSpec['spec']> = {}): MgmtSpec {
  return {
    apiVersion: 'octonet.dev/v1',
    kind: 'OctaviaManagementNetwork',
    metadata: { name: 'lb-mgmt' },
    spec: { topology, network: { cidr: '172.24.0.0/16' }, nodes: nodes.map((name) => ({ name })), ...extra },
  };
}

export interface Provisioned {
  /** lb-mgmt-net: where amphorae are plugged. */
  network: any;
  subnet: any;
  amphoraGroup: any;
  healthGroup: any;
  /** Per node name, its port (on lb-mgmt-net, or on the provider network for link-router). */
  ports: Map<string, any>;
}

const OWNED = (spec: MgmtSpec) => [ownerTag(spec)];

async function findTagged(admin: Client, collection: string, tags: string[]): Promise<any[]> {
  const r = await admin.get(`/v2.0/${collection}?tags=${encodeURIComponent(tags.join(','))}`);
  assert.equal(r.status, 200, r.text);
  return r.body[collection.replace(/-/g, '_')];
}

async function findOrCreate(admin: Client, collection: string, key: string, spec: MgmtSpec, name: string, body: object) {
  const found = (await findTagged(admin, collection, OWNED(spec))).find((o: any) => o.name === name);
  if (found) return found;
  return createTagged(admin, collection, key, { name, ...body }, OWNED(spec));
}

/** Neutron takes tags only after the fact (PUT .../tags), so a crash in between leaves an untagged object: the real core handles that; here it cannot happen. */
async function createTagged(admin: Client, collection: string, key: string, body: object, tags: string[]) {
  const object = (await created(admin, `/v2.0/${collection}`, { [key]: body }))[key];
  const r = await admin.put(`/v2.0/${collection}/${object.id}/tags`, { tags });
  assert.equal(r.status, 200, r.text);
  return { ...object, tags };
}

async function group(admin: Client, spec: MgmtSpec, name: string, rules: { protocol: string; port?: number }[], cidrs: string[]) {
  const sg = await findOrCreate(admin, 'security-groups', 'security_group', spec, name, {});
  if (sg.security_group_rules.some((r: any) => r.direction === 'ingress')) return sg;
  for (const cidr of cidrs) {
    for (const rule of rules) {
      await created(admin, '/v2.0/security-group-rules', {
        security_group_rule: {
          security_group_id: sg.id,
          direction: 'ingress',
          ethertype: cidr.includes(':') ? 'IPv6' : 'IPv4',
          protocol: rule.protocol,
          remote_ip_prefix: cidr,
          ...(rule.port ? { port_range_min: rule.port, port_range_max: rule.port } : {}),
        },
      });
    }
  }
  return sg;
}

/** Level-triggered like the real thing: finds what is tagged, makes what is missing, deletes ports of nodes that left. */
export async function applyMgmtSpec(admin: Client, spec: MgmtSpec): Promise<Provisioned> {
  const cidr = spec.spec.network.cidr;
  const network = await findOrCreate(admin, 'networks', 'network', spec, 'lb-mgmt-net', {
    ...(spec.spec.network.mtu ? { mtu: spec.spec.network.mtu } : {}),
  });
  const subnet = await findOrCreate(admin, 'subnets', 'subnet', spec, 'lb-mgmt-subnet', {
    network_id: network.id,
    cidr,
    ip_version: cidr.includes(':') ? 6 : 4,
    gateway_ip: null,
    enable_dhcp: false,
  });
  const controllerCidrs = [cidr, ...(spec.spec.provider ? [spec.spec.provider.cidr] : [])];
  const amphoraGroup = await group(admin, spec, 'lb-mgmt-sec-grp', [{ protocol: 'tcp', port: 9443 }, { protocol: 'icmp' }], controllerCidrs);
  const healthGroup = await group(admin, spec, 'lb-health-mgr-sec-grp', [{ protocol: 'udp', port: 5555 }, { protocol: 'icmp' }], controllerCidrs);

  let controllerNet = network;
  let controllerSubnet = subnet;
  if (spec.spec.topology === 'link-router') {
    const provider = spec.spec.provider!;
    controllerNet = await findOrCreate(admin, 'networks', 'network', spec, 'octavia-provider-net', {
      'provider:network_type': 'flat',
      'provider:physical_network': 'physnet1',
      'router:external': true,
    });
    controllerSubnet = await findOrCreate(admin, 'subnets', 'subnet', spec, 'octavia-provider-subnet', {
      network_id: controllerNet.id,
      cidr: provider.cidr,
      ip_version: 4,
      gateway_ip: null,
      enable_dhcp: false,
      allocation_pools: [provider.pool],
    });
    const routers = await findTagged(admin, 'routers', OWNED(spec));
    if (!routers.length) {
      const router = (
        await createTagged(admin, 'routers', 'router', {
          name: 'octavia-link-router',
          external_gateway_info: {
            network_id: controllerNet.id,
            enable_snat: false,
            external_fixed_ips: [{ subnet_id: controllerSubnet.id, ip_address: provider.routerAddress }],
          },
        }, OWNED(spec))
      );
      // lb-mgmt-subnet has no gateway (so nothing on it gets a default route): the router joins it
      // through a port of its own, as OpenStack-on-OpenShift's lb-mgmt-router-port does.
      const inside = await createTagged(admin, 'ports', 'port', { name: 'lb-mgmt-router-port', network_id: network.id }, OWNED(spec));
      const r = await admin.put(`/v2.0/routers/${router.id}/add_router_interface`, { port_id: inside.id });
      assert.equal(r.status, 200, r.text);
      // The amphorae's way back to the controllers: the router's address on lb-mgmt-net.
      const via = inside.fixed_ips[0].ip_address;
      const u = await admin.put(`/v2.0/subnets/${subnet.id}`, {
        subnet: { host_routes: [{ destination: provider.cidr, nexthop: via }] },
      });
      assert.equal(u.status, 200, u.text);
    }
  }

  const wanted = new Set(spec.spec.nodes.map((n) => n.name));
  const existing = await findTagged(admin, 'ports', OWNED(spec));
  const ports = new Map<string, any>();
  for (const port of existing) {
    const node = (port.tags as string[]).find((t) => t.startsWith('octonet-node:'))?.slice('octonet-node:'.length);
    if (!node) continue;
    if (wanted.has(node)) ports.set(node, port);
    else assert.equal((await admin.delete(`/v2.0/ports/${port.id}`)).status, 204);
  }
  for (const node of wanted) {
    if (ports.has(node)) continue;
    const port = await createTagged(
      admin,
      'ports',
      'port',
      {
        name: `octavia-health-manager-${node}-listen-port`,
        network_id: controllerNet.id,
        fixed_ips: [{ subnet_id: controllerSubnet.id }],
        device_owner: 'Octavia:health-mgr',
        device_id: `${ownerTag(spec)}:${node}`,
        security_groups: [healthGroup.id],
      },
      [ownerTag(spec), nodeTag(node)],
    );
    ports.set(node, port);
  }
  return { network, subnet, amphoraGroup, healthGroup, ports };
}

/** One node-agent pass for `node`, run inside the node's namespace, against the test's API. */
export function agentPass(lab: Lab, apiUrl: string, spec: MgmtSpec, node: string, previous?: NodeAgentReport) {
  return runNodeAgentPass({
    client: httpNeutron(apiUrl),
    spec,
    node,
    host: lab.nodeCommand(node, []),
    previous,
  });
}

/** Passes until the node is Ready (a pass waits for the port to go ACTIVE, but the probe's peers may still be coming up). */
export async function agentReady(lab: Lab, apiUrl: string, spec: MgmtSpec, node: string): Promise<NodeAgentReport> {
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
export const ipOf = (port: any): string => port.fixed_ips[0].ip_address;

/**
 * An "amphora": a namespace plugged into a port on lb-mgmt-net with the amphora security group, on
 * `node`, addressed statically as the amphora's cloud-init would be (lb-mgmt-net has no DHCP), with
 * the subnet's host routes.
 */
export async function plugAmphora(lab: Lab, admin: Client, made: Provisioned, node: string, name: string): Promise<any> {
  const port = (
    await created(admin, '/v2.0/ports', {
      port: {
        name,
        network_id: made.network.id,
        device_owner: 'compute:nova',
        'binding:host_id': node,
        security_groups: [made.amphoraGroup.id],
      },
    })
  ).port;
  const mtu = (await admin.get(`/v2.0/networks/${made.network.id}`)).body.network.mtu as number;
  await lab.createVm({ node, port: port.id, name, dhcp: false, mtu });
  const prefix = made.subnet.cidr.split('/')[1];
  const vm = lab.vmCommand(name, []);
  await check(lab, [...vm, 'ip', 'addr', 'add', `${ipOf(port)}/${prefix}`, 'dev', 'eth0']);
  await check(lab, [...vm, 'ip', 'link', 'set', 'eth0', 'up']);
  const subnet = (await admin.get(`/v2.0/subnets/${made.subnet.id}`)).body.subnet;
  for (const route of subnet.host_routes) {
    await check(lab, [...vm, 'ip', 'route', 'replace', route.destination, 'via', route.nexthop]);
  }
  return port;
}

/**
 * A TCP connection that must not get through: a listener waits in `to`, the connection from
 * `from` times out (the security group drops the SYN; nothing answers, not even a reset).
 */
export async function assertTcpBlocked(lab: Lab, from: string[], to: string[], address: string, port: number): Promise<void> {
  const [file, ...args] = [...to, 'socat', '-u', `TCP4-LISTEN:${port},reuseaddr`, 'OPEN:/dev/null'];
  const listener = spawn(file!, args, { stdio: 'ignore' });
  const exited = new Promise((resolve) => listener.once('close', resolve));
  try {
    await pollUntil(
      async () => (await lab.exec([...to, 'ss', '-Hltn', `sport = :${port}`])).stdout.trim().length > 0,
      `a listener on ${port}`,
    );
    const attempt = await lab.exec([...from, 'socat', '-u', 'OPEN:/dev/null', `TCP4:${address}:${port},connect-timeout=3`]);
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
  const file = join(dir, `udp-${address}-${port}`);
  rmSync(file, { force: true });
  const [bin, ...args] = [...to, 'socat', '-u', `UDP4-RECV:${port},bind=${address}`, `CREATE:${file}`];
  const listener = spawn(bin!, args, { stdio: 'ignore' });
  const exited = new Promise((resolve) => listener.once('close', resolve));
  const arrived = () => (existsSync(file) ? readFileSync(file) : Buffer.alloc(0));
  try {
    await pollUntil(
      async () => (await lab.exec([...to, 'ss', '-Hlun', `sport = :${port}`])).stdout.trim().length > 0,
      `a UDP listener on ${address}:${port}`,
    );
    await pollUntil(async () => {
      await check(lab, [...from, 'socat', '-u', '-', `UDP4-SENDTO:${address}:${port}`], payload);
      for (let i = 0; i < 5 && arrived().length < payload.length; i++) await new Promise((r) => setTimeout(r, 100));
      return arrived().length >= payload.length;
    }, `a UDP datagram to ${address}:${port}`);
  } finally {
    listener.kill();
    await exited;
  }
  return arrived().subarray(0, payload.length);
}
