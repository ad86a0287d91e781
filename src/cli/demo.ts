/**
 * The demo (`octonet` with no arguments): `serve` on a temporary SQLite database, driving OVN in a
 * 2-node `lab`; a network, a subnet and two VMs on two nodes, all made through the Neutron API, and
 * the VMs pinging each other over the tunnel; then a router to the lab's outside network: a VM
 * reaches the outside through SNAT and the outside reaches the other VM on its floating IP; then
 * the Octavia management network on both nodes (`demo-mgmt-net.ts`): spec applied, node agent,
 * an amphora's signed heartbeat arriving at each health manager. Then the `openstack` and
 * `octonet lab` commands to try. Everything it made (database, lab) is removed
 * on exit. Without root (no namespaces) it shows the API alone.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../config/config.js';
import { downLab, upLab, type Lab } from '../lab/index.js';
import { addGatewayNetwork, showBgp, startBgp } from './demo-bgp.js';
import { showLoadBalancer } from './demo-lb.js';
import { showManagementNetwork } from './demo-mgmt-net.js';
import { createLogger, startServer } from './serve.js';

const LAB_NAME = 'octonet-demo';

/** What the demo reads of the API's resources; the rest of each body is only passed on. */
interface DemoResource {
  id: string;
  status: string;
  fixed_ips: { ip_address: string; subnet_id: string }[];
  security_groups: string[];
  external_gateway_info: { external_fixed_ips: { ip_address: string }[] };
  floating_ip_address: string;
  name: string;
  mtu: number;
  cidr: string;
  'provider:segmentation_id': number;
}

/** An API answer: the resource under its singular name (`{"port": {...}}`); each call reads the one it made. */
type DemoAnswer = Record<'network' | 'subnet' | 'port' | 'router' | 'floatingip' | 'security_group_rule', DemoResource>;

async function call(url: string, method: string, path: string, body?: unknown): Promise<DemoAnswer> {
  const response = await fetch(url + path, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  // An empty answer (a 204) is never read.
  return (text ? JSON.parse(text) : {}) as DemoAnswer;
}

const indent = (text: string) => text.replace(/^(?=.)/gm, '  ');

/**
 * Runs the real `openstack` CLI against the demo and returns what it printed (or why it could not).
 * Asynchronously: the server answering it runs in this very process.
 */
function openstack(url: string, args: string[]): Promise<string> {
  return new Promise((resolve) => {
    const env = { ...process.env, OS_AUTH_TYPE: 'none', OS_ENDPOINT: url };
    execFile('openstack', args, { env, timeout: 60_000 }, (error, stdout, stderr) => {
      const missing = (error as NodeJS.ErrnoException | null)?.code === 'ENOENT';
      if (missing) resolve('  (the openstack CLI is not installed: apt-get install python3-openstackclient)\n');
      else resolve(indent(stdout || stderr));
    });
  });
}

/** Polls until `ready` (the data plane follows the API within moments; the demo does not guess how long). */
async function until(what: string, ready: () => Promise<boolean>): Promise<void> {
  const giveUpAt = Date.now() + 60_000;
  while (!(await ready())) {
    if (Date.now() > giveUpAt) throw new Error(`${what}: not after 60 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The lab's physical network as an external network, a router with its gateway there and an
 * interface on the demo subnet, and a floating IP on vm1: vm2 reaches the outside through SNAT,
 * the outside reaches vm1 on its floating IP. The subnet's gateway is the cloudgws' VRRP address
 * (the BGP step's way back to the core); the outside is on the same link, so it needs none.
 */
async function showRouting(
  url: string,
  lab: Lab,
  ports: DemoResource[],
  ipOf: (port: DemoResource) => string,
  onExternalNetwork: (id: string) => Promise<void>,
): Promise<string> {
  const out = process.stdout;
  const { outside, bgp } = await lab.status();
  const external = (
    await call(url, 'POST', '/v2.0/networks', {
      network: {
        name: 'public',
        'router:external': true,
        'provider:network_type': 'flat',
        'provider:physical_network': outside.physnet,
      },
    })
  ).network;
  await onExternalNetwork(external.id);
  await call(url, 'POST', '/v2.0/subnets', {
    subnet: {
      name: 'public-subnet',
      network_id: external.id,
      ip_version: 4,
      cidr: outside.cidr,
      gateway_ip: bgp?.gatewayIp ?? outside.address,
      enable_dhcp: false,
      allocation_pools: [{ start: '198.51.100.10', end: '198.51.100.90' }],
    },
  });
  const router = (
    await call(url, 'POST', '/v2.0/routers', {
      router: { name: 'demo-router', external_gateway_info: { network_id: external.id } },
    })
  ).router;
  await call(url, 'PUT', `/v2.0/routers/${router.id}/add_router_interface`, {
    subnet_id: ports[0]!.fixed_ips[0]!.subnet_id,
  });
  // The default security group lets in only its own members; the outside's pings need a rule.
  await call(url, 'POST', '/v2.0/security-group-rules', {
    security_group_rule: { security_group_id: ports[0]!.security_groups[0], direction: 'ingress', protocol: 'icmp' },
  });
  const fip = (
    await call(url, 'POST', '/v2.0/floatingips', {
      floatingip: { floating_network_id: external.id, port_id: ports[0]!.id },
    })
  ).floatingip;
  const address = fip.floating_ip_address as string;
  const inOutside = (argv: string[]) => lab.outsideCommand(argv);
  await until(
    'SNAT to the outside',
    async () => (await lab.exec(lab.vmCommand('vm2', ['ping', '-c', '1', '-W', '1', outside.address]))).code === 0,
  );
  await until(
    'the floating IP',
    async () => (await lab.exec(inOutside(['ping', '-c', '1', '-W', '1', address]))).code === 0,
  );
  const snat = await lab.exec(lab.vmCommand('vm2', ['ping', '-c', '2', '-i', '0.2', outside.address]));
  const toFip = await lab.exec(inOutside(['ping', '-c', '2', '-i', '0.2', address]));
  const gateway = router.external_gateway_info.external_fixed_ips[0]!.ip_address;
  out.write(`
A router (demo-router) joins demo-subnet to the lab's physical network ${outside.cidr}, where the
"outside" namespace (${outside.address}) stands for the world; its gateway ${gateway} is scheduled on a
gateway chassis by prioritised Gateway_Chassis rows. vm2 (${ipOf(ports[1]!)}) reaches the outside through SNAT:

  $ ./octonet lab vm exec vm2 --lab ${LAB_NAME} -- ping -c 2 ${outside.address}
${indent(snat.stdout || snat.stderr)}
vm1 has floating IP ${address} and its security group now lets ICMP in; the outside reaches it there:

  $ ./octonet lab outside exec --lab ${LAB_NAME} -- ping -c 2 ${address}
${indent(toFip.stdout || toFip.stderr)}`);
  return address;
}

async function waitActive(url: string, portId: string): Promise<void> {
  const giveUpAt = Date.now() + 60_000;
  while ((await call(url, 'GET', `/v2.0/ports/${portId}`)).port.status !== 'ACTIVE') {
    if (Date.now() > giveUpAt) throw new Error(`port ${portId} did not go ACTIVE`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function runDemo(listen: string): Promise<{ stop: () => Promise<void> }> {
  const out = process.stdout;
  const dir = mkdtempSync(join(tmpdir(), 'octonet-demo-'));
  const root = process.getuid?.() === 0;
  let lab: Lab | undefined;
  if (root) {
    out.write(`Starting a 2-node OVN lab (${LAB_NAME}) ...\n`);
    await downLab({ name: LAB_NAME }); // left over from a demo that was killed
    lab = await upLab({ name: LAB_NAME, nodes: 2, bgp: true });
  } else {
    out.write('Not root: no network namespaces, so no OVN lab; showing the API alone.\n');
  }
  const config = loadConfig({
    env: {},
    overrides: {
      listen,
      state_dir: dir,
      database: `sqlite:${join(dir, 'octonet.db')}`,
      log_level: 'warn',
      ovn: lab ? { nb_connection: lab.nb, sb_connection: lab.sb } : {},
    },
  });
  const server = await startServer(config, createLogger(config));
  const url = server.url;
  const stop = async () => {
    await server.close();
    if (lab) await downLab({ name: LAB_NAME });
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    const net = (await call(url, 'POST', '/v2.0/networks', { network: { name: 'demo-net' } })).network;
    const subnet = (
      await call(url, 'POST', '/v2.0/subnets', {
        subnet: { name: 'demo-subnet', network_id: net.id, ip_version: 4, cidr: '10.0.0.0/24' },
      })
    ).subnet;
    const ports: DemoResource[] = [];
    for (const [name, node] of [
      ['vm1', 'node1'],
      ['vm2', 'node2'],
    ] as const) {
      const body = {
        name,
        network_id: net.id,
        device_owner: 'compute:nova',
        ...(lab ? { 'binding:host_id': node } : {}),
      };
      ports.push((await call(url, 'POST', '/v2.0/ports', { port: body })).port);
    }
    const ipOf = (port: DemoResource) => port.fixed_ips[0]!.ip_address;
    const demoCall = (method: string, path: string, body?: unknown) =>
      call(url, method, path, body) as unknown as Promise<Record<string, Record<string, unknown>>>;
    // FRR's first configuration and the BGP sessions come up while the next steps run.
    const bgp = lab ? await startBgp({ url, call: demoCall, lab }) : undefined;

    out.write(`
octonet serves the OpenStack Networking API at ${url} (SQLite in ${dir})${
      lab
        ? `,
writing OVN's northbound database in the lab (${lab.nb})`
        : ''
    }.

Made through the API: network demo-net (geneve VNI ${net['provider:segmentation_id']}, MTU ${net.mtu}), subnet ${subnet.cidr},
ports vm1 ${ipOf(ports[0]!)} and vm2 ${ipOf(ports[1]!)}${lab ? ', bound to lab nodes node1 and node2' : ''}.
`);
    if (lab) {
      for (const [i, port] of ports.entries()) {
        await lab.createVm({ node: `node${i + 1}`, port: port.id, name: port.name });
        await waitActive(url, port.id);
      }
      const ping = await lab.exec(lab.vmCommand('vm1', ['ping', '-c', '3', '-i', '0.2', ipOf(ports[1]!)]));
      out.write(`
Two VMs (network namespaces) plugged into those ports the way Nova does, on two nodes; each got its
address from OVN's DHCP and its port went ACTIVE. vm1 on node1 pings vm2 on node2 across Geneve:

  $ ./octonet lab vm exec vm1 --lab ${LAB_NAME} -- ping -c 3 ${ipOf(ports[1]!)}
${indent(ping.stdout || ping.stderr)}`);
    }
    if (lab && bgp) await showBgp(bgp, await showRouting(url, lab, ports, ipOf, (id) => addGatewayNetwork(bgp, id)));
    if (lab) await showLoadBalancer(url, lab, ports, LAB_NAME);
    if (lab) await showManagementNetwork(url, lab, dir, LAB_NAME);
    out.write(`
The real openstack CLI, talking to it (noauth: you are admin of project ${config.noauth_default_project_id}):

  $ openstack port list --network demo-net
${await openstack(url, ['port', 'list', '--network', 'demo-net'])}`);
    if (lab) {
      out.write(`
  $ openstack floating ip list
${await openstack(url, ['floating', 'ip', 'list'])}
  $ openstack network agent list
${await openstack(url, ['network', 'agent', 'list'])}`);
    }
    out.write(`
The topology page, live (networks, routers and their gateway chassis, ports, VIPs and their holder):

  open ${url}/ui/ in a browser
`);
    out.write(`
Try more:

  export OS_AUTH_TYPE=none OS_ENDPOINT=${url}
  openstack network list --long
  openstack port show vm1
  openstack security group rule create default --protocol tcp --dst-port 22
${
  lab
    ? `  openstack router show demo-router
  openstack network agent list --router demo-router --long
  octonet lab status --name ${LAB_NAME}
  ./octonet lab vm exec vm2 --lab ${LAB_NAME} -- ip addr
  openstack bgp speaker list advertised routes demo-speaker
  ovn-nbctl --db=${lab.nb} show
  curl -s ${url}/metrics | grep octonet_ovn
`
    : ''
}
Press Ctrl-C to stop (the demo database${lab ? ' and the lab are' : ' is'} removed).
`);
  } catch (error) {
    await stop();
    throw error;
  }
  return { stop };
}
