/**
 * The topology page on a real OVN lab (`webui`, 3 nodes, the gateway on node3), driven by octonet
 * with the OVN driver and its status watcher: the page shows the chassis, the router's gateway
 * chassis, the VMs' ports ACTIVE once plugged; unplugging a VM turns its port DOWN on screen; an
 * amphora taking the VIP (address + gratuitous ARP, as keepalived's master does) marks it as the
 * holder once traffic reaches the VIP through the router (the default `learned-mac` VIP: the holder is
 * the port whose MAC the router learned for the VIP, and routers learn a new address only from an
 * answer to their own ARP, not from a gratuitous one), and the VIP moving to the other amphora
 * (its gratuitous ARP updates the router's binding) moves the marker. No reload, no timing: every
 * step waits for the DOM. With OCTONET_WEB_SCREENSHOT=<file> it saves a PNG of the page (the
 * README's docs/topology.png is made this way).
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { useApi } from '../fixtures/api.js';
import type { Json } from '../fixtures/json.js';
import { check, createOutsideNetwork, created, notRoot, useLab } from '../lab/lab-fixture.js';
import { openPage, useBrowser, type OpenPage } from './browser.js';

const VIP = '10.9.0.10';
/** Generous: the data plane and the status watcher work in between; this only guards against hangs. */
const WAIT = { timeout: 30_000 };
const item = (kind: string, id: string) => `[data-kind="${kind}"][data-id="${id}"]`;

describe('topology page on the lab', { skip: notRoot }, () => {
  const { lab } = useLab({ name: 'webui', nodes: 3, gateways: ['node3'] });
  // The `auto` VIP failover (learned-mac): the holder comes from the router's MAC binding of the VIP.
  const api = useApi('sqlite', { config: () => ({ ovn: { nb_connection: lab().nb, sb_connection: lab().sb } }) });
  const browser = useBrowser();
  const vm = (name: string) => lab().vmCommand(name, []);
  const ports: Record<string, Json> = {};
  let vip: Json;
  let fip: Json;
  let router: Json;
  let open: OpenPage;

  const post = (path: string, body: unknown) => created(api.admin, path, body);

  before(async () => {
    const { network: external } = await createOutsideNetwork(api.admin);
    const net = (await post('/v2.0/networks', { network: { name: 'app-net' } })).network;
    const subnet = (
      await post('/v2.0/subnets', { subnet: { network_id: net.id, cidr: '10.9.0.0/24', ip_version: 4, name: 'app' } })
    ).subnet;
    router = (
      await post('/v2.0/routers', { router: { name: 'edge', external_gateway_info: { network_id: external.id } } })
    ).router;
    await api.admin.put(`/v2.0/routers/${router.id}/add_router_interface`, { subnet_id: subnet.id });
    vip = (
      await post('/v2.0/ports', {
        port: { network_id: net.id, name: 'lb-vip', device_owner: 'Octavia', fixed_ips: [{ ip_address: VIP }] },
      })
    ).port;
    for (const [name, node, pairs] of [
      ['web1', 'node1', []],
      ['amphora1', 'node1', [{ ip_address: VIP }]],
      ['amphora2', 'node2', [{ ip_address: VIP }]],
    ] as const) {
      ports[name] = (
        await post('/v2.0/ports', {
          port: {
            network_id: net.id,
            name,
            device_owner: 'compute:nova',
            'binding:host_id': node,
            allowed_address_pairs: pairs,
          },
        })
      ).port;
      await lab().createVm({ node, port: ports[name].id, name });
    }
    fip = (await post('/v2.0/floatingips', { floatingip: { floating_network_id: external.id, port_id: vip.id } }))
      .floatingip;
    open = await openPage(browser(), `${api.url}/ui/`);
  });

  it('draws the chassis, the gateway chassis and the plugged VMs ACTIVE', async () => {
    const { page } = open;
    for (const node of ['node1', 'node2', 'node3']) {
      await page.waitForSelector(`${item('node', node)}[data-status="active"]`, WAIT);
    }
    await page.waitForSelector(`${item('router', router.id)}[data-gateway-host="node3"]`, WAIT);
    for (const name of ['web1', 'amphora1', 'amphora2']) {
      await page.waitForSelector(`${item('port', ports[name].id)}[data-status="active"]`, WAIT);
    }
  });

  it('recolours a VM’s port DOWN when the VM is unplugged', async () => {
    await lab().deleteVm('web1');
    await open.page.waitForSelector(`${item('port', ports.web1.id)}[data-status="down"]`, WAIT);
  });

  it('marks the amphora holding the VIP, and moves the marker on failover', async () => {
    const { page } = open;
    const holder = (name: string) => `${item('vip', vip.id)} ${item('amphora', ports[name].id)}[data-holder]`;
    await check(lab(), [...vm('amphora1'), 'ip', 'addr', 'add', `${VIP}/24`, 'dev', 'eth0']);
    await check(lab(), [...vm('amphora1'), 'arping', '-U', '-c', '2', '-w', '2', '-I', 'eth0', VIP]);
    // The outside sends to the VIP's floating IP: the router ARPs for the VIP and amphora1 answers.
    // (The echo replies themselves may not come back: the amphorae's default security group
    // admits no ICMP from outside. The ARP is what matters here.)
    await check(lab(), [
      ...lab().outsideCommand([]),
      'sh',
      '-c',
      `ping -c 3 -i 0.2 -W 1 ${fip.floating_ip_address}; true`,
    ]);
    await page.waitForSelector(holder('amphora1'), WAIT);
    await page.waitForSelector(`${item('vip', vip.id)}[data-status="active"]`, WAIT);

    await check(lab(), [...vm('amphora1'), 'ip', 'addr', 'del', `${VIP}/24`, 'dev', 'eth0']);
    await check(lab(), [...vm('amphora2'), 'ip', 'addr', 'add', `${VIP}/24`, 'dev', 'eth0']);
    await check(lab(), [...vm('amphora2'), 'arping', '-U', '-c', '2', '-w', '2', '-I', 'eth0', VIP]);
    await page.waitForSelector(holder('amphora2'), WAIT);
    assert.equal(await page.locator(`${item('vip', vip.id)} [data-holder]`).count(), 1);

    const file = process.env.OCTONET_WEB_SCREENSHOT;
    if (file) {
      await page.setViewportSize({ width: 1100, height: 700 });
      await page.screenshot({ path: file, fullPage: true });
    }
  });
});
