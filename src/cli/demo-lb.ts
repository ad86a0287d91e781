/**
 * The demo's load-balancer part: an OVN load balancer answering the outside on a floating IP, with
 * connections landing on members on two nodes (vm1 on node1, vm2 on node2, each running a small
 * TCP server that answers with its name).
 *
 * The demo runs octonet without Keystone, and the real Octavia needs Keystone, a database and five
 * services, so the `Load_Balancer` row here is written by the demo itself, the way
 * ovn-octavia-provider writes it (name, protocol, vips for the VIP and its floating IP,
 * SOURCE_IP_PORT's selection fields, the provider's external_ids, the row on the VIP's switch and on
 * the router): a stand-in, and the output says so. What octonet does is real: the VIP port the
 * provider would create, the floating IP on it and the `neutron:port_fip` key the provider reads.
 * `test/octavia/ovn-provider-traffic.test.ts` runs the real Octavia on a lab.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { Lab } from '../lab/index.js';

const LISTENER_PORT = 80;
const MEMBER_PORT = 8080;
/** A hang guard for the demo's waits; each normally takes well under a second. */
const WAIT_MS = 60_000;

/** What this step reads of the demo's ports and of the API's answers. */
export interface DemoLbPort {
  id: string;
  name: string;
  fixed_ips: { ip_address: string; subnet_id: string }[];
  security_groups: string[];
}

type Api = (method: string, path: string, body?: unknown) => Promise<Record<string, unknown>>;

function apiOf(url: string): Api {
  return async (method, path, body) => {
    const response = await fetch(url + path, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return (text ? JSON.parse(text) : {}) as Record<string, unknown>;
  };
}

async function until<T>(what: string, probe: () => Promise<T | undefined | false>): Promise<T> {
  const giveUpAt = Date.now() + WAIT_MS;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > giveUpAt) throw new Error(`${what}: not after ${WAIT_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A member's server in its VM: answers every connection with the VM's name (ends with the lab). */
async function startMemberServer(lab: Lab, vm: string): Promise<void> {
  const argv = lab.vmCommand(vm, ['socat', `TCP4-LISTEN:${MEMBER_PORT},fork,reuseaddr`, `SYSTEM:echo ${vm}`]);
  spawn(argv[0]!, argv.slice(1), { stdio: 'ignore', detached: true }).unref();
  await until(
    `${vm}'s server`,
    async () => (await lab.exec(lab.vmCommand(vm, ['ss', '-Hltn', `sport = :${MEMBER_PORT}`]))).stdout.trim() !== '',
  );
}

/**
 * What ovn-octavia-provider writes for a load balancer with one TCP listener, a SOURCE_IP_PORT
 * pool and its members, and a floating IP on the VIP (`helper.py`: `lb_create`, `listener_create`,
 * `pool_create`, `member_create`, `handle_vip_fip`).
 */
async function writeProviderLoadBalancer(
  lab: Lab,
  input: {
    lbId: string;
    vip: { address: string; portId: string; fip: string };
    networkId: string;
    routerId: string;
    subnetId: string;
    members: { address: string }[];
  },
): Promise<void> {
  const { lbId, vip, members } = input;
  const listenerId = randomUUID();
  const poolId = randomUUID();
  const backends = members.map((m) => `${m.address}:${MEMBER_PORT}`).join(',');
  const poolMembers = members
    .map((m) => `member_${randomUUID()}_${m.address}:${MEMBER_PORT}_${input.subnetId}`)
    .join(',');
  await lab.nbctl('lb-add', lbId, `${vip.address}:${LISTENER_PORT}`, backends, 'tcp');
  await lab.nbctl('--may-exist', 'lb-add', lbId, `${vip.fip}:${LISTENER_PORT}`, backends, 'tcp');
  const ids: Record<string, string> = {
    'neutron:vip': vip.address,
    'neutron:vip_port_id': vip.portId,
    'neutron:vip_fip': vip.fip,
    enabled: 'True',
    lr_ref: `neutron-${input.routerId}`,
    ls_refs: JSON.stringify({ [`neutron-${input.networkId}`]: 1 }),
    [`listener_${listenerId}`]: `${LISTENER_PORT}:pool_${poolId}`,
    [`pool_${poolId}`]: poolMembers,
  };
  const quoted = (text: string) => JSON.stringify(text);
  await lab.nbctl(
    'set',
    'Load_Balancer',
    lbId,
    'selection_fields=ip_dst,ip_src,tp_dst,tp_src',
    ...Object.entries(ids).map(([key, value]) => `external_ids:${quoted(key)}=${quoted(value)}`),
  );
  await lab.nbctl('ls-lb-add', `neutron-${input.networkId}`, lbId);
  await lab.nbctl('lr-lb-add', `neutron-${input.routerId}`, lbId);
}

/** Who answered `count` connections from the outside to `address`, by name. */
async function tally(lab: Lab, address: string, count: number): Promise<Map<string, number>> {
  const seen = new Map<string, number>();
  for (let i = 0; i < count; i++) {
    const argv = lab.outsideCommand(['socat', '-T', '3', '-', `TCP4:${address}:${LISTENER_PORT},connect-timeout=3`]);
    const r = await lab.exec(argv, { input: '', timeoutMs: 10_000 });
    const who = r.code === 0 ? r.stdout.trim() : '(no answer)';
    seen.set(who, (seen.get(who) ?? 0) + 1);
  }
  return seen;
}

const indent = (text: string) => text.replace(/^(?=.)/gm, '  ');

/** vm1 and vm2 (on the demo subnet, routed by demo-router) become the members; see the head comment. */
export async function showLoadBalancer(url: string, lab: Lab, ports: DemoLbPort[], labName: string): Promise<void> {
  const api = apiOf(url);
  const [vm1, vm2] = ports as [DemoLbPort, DemoLbPort];
  const subnetId = vm1.fixed_ips[0]!.subnet_id;
  const networkId = ((await api('GET', `/v2.0/ports/${vm1.id}`)).port as { network_id: string }).network_id;
  const router = ((await api('GET', '/v2.0/routers?name=demo-router')).routers as { id: string }[])[0]!;
  const external = ((await api('GET', '/v2.0/networks?router:external=true')).networks as { id: string }[])[0]!;
  await api('POST', '/v2.0/security-group-rules', {
    security_group_rule: {
      security_group_id: vm1.security_groups[0],
      direction: 'ingress',
      protocol: 'tcp',
      port_range_min: MEMBER_PORT,
      port_range_max: MEMBER_PORT,
    },
  });
  for (const vm of [vm1, vm2]) await startMemberServer(lab, vm.name);

  // What the provider asks of Neutron: the VIP port, then (the user) a floating IP on it.
  const lbId = randomUUID();
  const vipPort = (
    await api('POST', '/v2.0/ports', {
      port: { name: `ovn-lb-vip-${lbId}`, network_id: networkId, fixed_ips: [{ subnet_id: subnetId }] },
    })
  ).port as DemoLbPort;
  const fip = (
    await api('POST', '/v2.0/floatingips', {
      floatingip: { floating_network_id: external.id, port_id: vipPort.id },
    })
  ).floatingip as { floating_ip_address: string };
  const vipAddress = vipPort.fixed_ips[0]!.ip_address;
  const portFip = await until('neutron:port_fip on the VIP port', async () => {
    const value = await lab.nbctl(
      '--if-exists',
      'get',
      'Logical_Switch_Port',
      vipPort.id,
      'external_ids:"neutron:port_fip"',
    );
    return value.replace(/"/g, '') || undefined;
  });

  await writeProviderLoadBalancer(lab, {
    lbId,
    vip: { address: vipAddress, portId: vipPort.id, fip: portFip },
    networkId,
    routerId: router.id,
    subnetId,
    members: [vm1, vm2].map((vm) => ({ address: vm.fixed_ips[0]!.ip_address })),
  });
  const address = fip.floating_ip_address;
  const expected = [vm1.name, vm2.name].sort().join(',');
  let seen = new Map<string, number>();
  await until('connections landing on both members', async () => {
    seen = await tally(lab, address, 12);
    return [...seen.keys()].sort().join(',') === expected;
  });
  const counts = [...seen].map(([who, n]) => `${who}: ${n}`).join(', ');
  const one = await lab.exec(
    lab.outsideCommand(['socat', '-T', '3', '-', `TCP4:${address}:${LISTENER_PORT},connect-timeout=3`]),
    { input: '', timeoutMs: 10_000 },
  );
  const lbRow = await lab.nbctl('--columns=name,protocol,vips,selection_fields', 'list', 'Load_Balancer', lbId);
  process.stdout.write(`
An OVN load balancer: the VIP port ovn-lb-vip-… (${vipAddress}) on demo-subnet, made through the API as
ovn-octavia-provider makes it, has floating IP ${address}; octonet marks the port's LSP with
neutron:port_fip=${portFip}, which the provider reads to add the floating IP to its load balancer.
The Load_Balancer row itself is a STAND-IN written by this demo the way ovn-octavia-provider writes
it (the real Octavia needs Keystone; test/octavia/ovn-provider-traffic.test.ts runs it on a lab):
a TCP listener on port ${LISTENER_PORT}, a SOURCE_IP_PORT pool with members vm1 (node1) and vm2 (node2) on
port ${MEMBER_PORT}, where a small server answers with the VM's name. octonet's repair leaves that row alone.

  $ ovn-nbctl --db=${lab.nb} list Load_Balancer ${lbId}
${indent(lbRow)}

12 connections from the outside to ${address}:${LISTENER_PORT} landed on both nodes (${counts}):

  $ ./octonet lab outside exec --lab ${labName} -- socat - TCP4:${address}:${LISTENER_PORT}
${indent(one.stdout || one.stderr)}`);
}
