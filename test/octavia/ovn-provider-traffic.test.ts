/**
 * Debian's real Octavia with the OVN provider on octonet, with real packets in a lab (`octt`, two
 * nodes): a load balancer on a routed subnet, a TCP listener, a SOURCE_IP_PORT pool with members on
 * VMs on node1 and node2 (socat answering its own name), a TCP health monitor, a floating IP on the
 * VIP. What holds: a VM on another network reaches the members through the router and connections
 * land on both; the floating IP reaches the provider (octonet's `neutron:port_fip`, the provider's
 * extra VIP); a member whose server stops is taken out (OVN's Service_Monitor goes offline,
 * Octavia's member goes ERROR) while traffic keeps flowing to the other, and comes back when it
 * restarts; octonet's full pass and an NB drift repair while traffic flows leave the provider's
 * rows and columns as they were, and traffic still flows; the outside reaches both members on the
 * floating IP (the provider leaves the external switch alone: the router's gateway LRP carries
 * `gateway_chassis`, as Zed's ML2/OVN writes it).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { before, after, describe, it } from 'node:test';
import type { OvnMechanismDriver } from '../../src/drivers/ovn/driver.js';
import { useApi } from '../fixtures/api.js';
import type { Json } from '../fixtures/json.js';
import { useKeystone, withToken } from '../fixtures/keystone.js';
import { useOctavia } from '../fixtures/octavia.js';
import { createOutsideNetwork, created, notRoot, pollUntil, useLab } from '../lab/lab-fixture.js';

/** The driver's full pass, run now (its repair loop is private: the test reaches in on purpose). */
const fullPass = (driver: OvnMechanismDriver): Promise<unknown> =>
  (driver as unknown as { repair: { fullSync(): Promise<unknown> } }).repair.fullSync();

/** Guards against hangs on a loaded machine (health checks every 2 s, northd, the provider's events). */
const STATUS_DEADLINE_MS = 90_000;
const MEMBER_PORT = 8080;
const LISTENER_PORT = 80;

describe('real Octavia on octonet: an OVN load balancer carries real traffic', { skip: notRoot }, () => {
  const { lab } = useLab({ name: 'octt', nodes: 2 });
  const keystone = useKeystone();
  const api = useApi('sqlite', {
    config: () => ({ ...keystone.octonetConfig(), ovn: { nb_connection: lab().nb, sb_connection: lab().sb } }),
  });
  const octavia = useOctavia(() => ({ keystone, ovn: { nb: lab().nb, sb: lab().sb } }));
  const servers = new Map<string, ChildProcess>();
  let admin: ReturnType<typeof withToken>;
  let lbNet: Json;
  let lbSubnet: Json;
  let router: Json;
  let external: Json;
  const vms: Record<string, Json> = {};
  let lb: Json;
  let fipAddress: string;

  const post = (path: string, body: unknown) => created(admin, path, body);
  const put = async (path: string, body: unknown): Promise<Json> => {
    const r = await admin.put(path, body);
    assert.equal(r.status, 200, `${path}: ${r.text}`);
    return r.body;
  };
  const ipOf = (port: Json) => port.fixed_ips[0].ip_address as string;
  const vm = (name: string) => lab().vmCommand(name, []);
  const outside = () => lab().outsideCommand([]);

  /** A VM on `node` whose port lets everything in (the test is about load balancing, not filtering). */
  const plug = async (name: string, network: Json, node: string) => {
    const port = (
      await post('/v2.0/ports', {
        port: {
          network_id: network.id,
          name,
          'binding:host_id': node,
          device_owner: 'compute:nova',
          port_security_enabled: false,
          security_groups: [],
        },
      })
    ).port;
    vms[name] = port;
    await lab().createVm({ node, port: port.id, name });
    return port;
  };

  /** The member's server: answers every connection with the VM's name. */
  const startServer = async (name: string) => {
    const argv = [...vm(name), 'socat', `TCP4-LISTEN:${MEMBER_PORT},fork,reuseaddr`, `SYSTEM:echo ${name}`];
    const child = spawn(argv[0]!, argv.slice(1), { stdio: 'ignore' });
    servers.set(name, child);
    await pollUntil(
      async () => (await lab().exec([...vm(name), 'ss', '-Hltn', `sport = :${MEMBER_PORT}`])).stdout.trim().length > 0,
      `${name}'s server listening`,
    );
  };
  const stopServer = async (name: string) => {
    const child = servers.get(name);
    servers.delete(name);
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill();
    await exited;
  };

  /** One connection from `from` to `address`: the name of the member that answered, or '' if none did. */
  const connect = async (from: string[], address: string): Promise<string> => {
    const r = await lab().exec(
      [...from, 'socat', '-T', '3', '-', `TCP4:${address}:${LISTENER_PORT},connect-timeout=3`],
      {
        input: '',
        timeoutMs: 10_000,
      },
    );
    return r.code === 0 ? r.stdout.trim() : '';
  };
  /** Who answered `count` connections, by name ('' for a failed one). */
  const tally = async (from: string[], address: string, count: number): Promise<Map<string, number>> => {
    const seen = new Map<string, number>();
    for (let i = 0; i < count; i++) {
      const who = await connect(from, address);
      seen.set(who, (seen.get(who) ?? 0) + 1);
    }
    return seen;
  };
  const both = ['member1', 'member2'];
  /** Waits until `count` connections in a row are all answered, by exactly the members in `expected`. */
  const assertSpread = async (from: string[], address: string, expected: readonly string[], count = 16) => {
    let last = new Map<string, number>();
    await pollUntil(
      async () => {
        last = await tally(from, address, count);
        return [...last.keys()].sort().join(',') === [...expected].sort().join(',');
      },
      `connections to ${address} answered by ${expected.join(' and ')} (last: ${JSON.stringify([...last])})`,
      STATUS_DEADLINE_MS,
    );
  };

  const lbCli = () => octavia.cli;
  const memberStatus = async (name: string): Promise<string> => {
    const members = await lbCli().json<Json[]>(['loadbalancer', 'member', 'list', 'p1']);
    return members.find((m) => m.name === name)?.operating_status as string;
  };
  const monitorStatus = async (address: string): Promise<string> => {
    const out = await lab().sbctl('--format=json', '--columns=ip,status', 'list', 'Service_Monitor');
    const rows = (JSON.parse(out) as { data: unknown[][] }).data;
    const row = rows.find(([ip]) => ip === address);
    return typeof row?.[1] === 'string' ? row[1] : '';
  };

  before(async () => {
    await keystone.setEndpoint('network', api.url);
    admin = withToken(api.admin, await keystone.issueToken(keystone.users.cloudAdmin));
    ({ network: external } = await createOutsideNetwork(admin));
    lbNet = (await post('/v2.0/networks', { network: { name: 'lb-net' } })).network;
    lbSubnet = (await post('/v2.0/subnets', { subnet: { network_id: lbNet.id, cidr: '10.8.0.0/24', ip_version: 4 } }))
      .subnet;
    const clientNet = (await post('/v2.0/networks', { network: { name: 'client-net' } })).network;
    const clientSubnet = (
      await post('/v2.0/subnets', { subnet: { network_id: clientNet.id, cidr: '10.9.0.0/24', ip_version: 4 } })
    ).subnet;
    router = (
      await post('/v2.0/routers', { router: { name: 'lb-router', external_gateway_info: { network_id: external.id } } })
    ).router;
    await put(`/v2.0/routers/${router.id}/add_router_interface`, { subnet_id: lbSubnet.id });
    await put(`/v2.0/routers/${router.id}/add_router_interface`, { subnet_id: clientSubnet.id });
    await plug('member1', lbNet, 'node1');
    await plug('member2', lbNet, 'node2');
    await plug('client', clientNet, 'node1');
    for (const name of both) await startServer(name);
  });

  after(async () => {
    for (const name of [...servers.keys()]) await stopServer(name);
  });

  it('builds the load balancer with the openstack CLI: TCP listener, SOURCE_IP_PORT pool, two members, a health monitor', async () => {
    const cli = lbCli();
    lb = await cli.json<Json>([
      'loadbalancer',
      'create',
      '--provider',
      'ovn',
      '--vip-subnet-id',
      lbSubnet.id,
      '--name',
      'lb1',
      '--wait',
    ]);
    assert.equal(lb.provisioning_status, 'ACTIVE', JSON.stringify(lb));
    await cli.ok([
      'loadbalancer',
      'listener',
      'create',
      '--protocol',
      'TCP',
      '--protocol-port',
      String(LISTENER_PORT),
      '--name',
      'l1',
      '--wait',
      lb.id,
    ]);
    await cli.ok([
      'loadbalancer',
      'pool',
      'create',
      '--protocol',
      'TCP',
      '--lb-algorithm',
      'SOURCE_IP_PORT',
      '--listener',
      'l1',
      '--name',
      'p1',
      '--wait',
    ]);
    for (const name of both) {
      await cli.ok([
        'loadbalancer',
        'member',
        'create',
        '--name',
        name,
        '--address',
        ipOf(vms[name]!),
        '--subnet-id',
        lbSubnet.id,
        '--protocol-port',
        String(MEMBER_PORT),
        '--wait',
        'p1',
      ]);
    }
    await cli.ok([
      'loadbalancer',
      'healthmonitor',
      'create',
      '--delay',
      '2',
      '--timeout',
      '1',
      '--max-retries',
      '1',
      '--max-retries-down',
      '1',
      '--type',
      'TCP',
      '--name',
      'hm1',
      '--wait',
      'p1',
    ]);
    for (const name of both) {
      await pollUntil(async () => (await memberStatus(name)) === 'ONLINE', `${name} ONLINE`, STATUS_DEADLINE_MS);
    }
  });

  it('a VM on another network reaches both members through the router', async () => {
    await assertSpread(vm('client'), lb.vip_address as string, both);
  });

  it("a floating IP on the VIP reaches the provider: octonet marks the VIP's LSP, the provider adds it as a VIP", async () => {
    const fip = (
      await post('/v2.0/floatingips', { floatingip: { floating_network_id: external.id, port_id: lb.vip_port_id } })
    ).floatingip;
    fipAddress = fip.floating_ip_address as string;
    const portFip = await lab().nbctl(
      'get',
      'Logical_Switch_Port',
      lb.vip_port_id as string,
      'external_ids:"neutron:port_fip"',
    );
    assert.equal(portFip.replace(/"/g, ''), fipAddress);
    await pollUntil(
      async () => {
        const vips = await lab().nbctl('get', 'Load_Balancer', lb.id as string, 'vips');
        return vips.includes(`"${fipAddress}:${LISTENER_PORT}"`);
      },
      'the floating IP among the load balancer vips',
      STATUS_DEADLINE_MS,
    );
  });

  it('a member whose server stops is taken out, traffic keeps flowing to the other; it comes back', async () => {
    await stopServer('member1');
    await pollUntil(
      async () => (await monitorStatus(ipOf(vms.member1!))) === 'offline',
      "member1's Service_Monitor offline",
      STATUS_DEADLINE_MS,
    );
    await pollUntil(async () => (await memberStatus('member1')) === 'ERROR', 'member1 ERROR', STATUS_DEADLINE_MS);
    assert.equal(await memberStatus('member2'), 'ONLINE');
    await assertSpread(vm('client'), lb.vip_address as string, ['member2']);
    await startServer('member1');
    await pollUntil(
      async () => (await memberStatus('member1')) === 'ONLINE',
      'member1 ONLINE again',
      STATUS_DEADLINE_MS,
    );
    assert.equal(await monitorStatus(ipOf(vms.member1!)), 'online');
    await assertSpread(vm('client'), lb.vip_address as string, both);
  });

  it("octonet's full pass and NB drift repair leave the provider's rows alone while traffic flows", async () => {
    const nbRows = async (table: string) => {
      const parsed = JSON.parse(await lab().nbctl('--format=json', 'list', table)) as {
        headings: string[];
        data: unknown[][];
      };
      return parsed.data.map((row) => Object.fromEntries(parsed.headings.map((h, i) => [h, row[i]])));
    };
    const owned = async () => {
      const lbs = (await nbRows('Load_Balancer')).filter((r) => r.name === lb.id);
      const switches = await nbRows('Logical_Switch');
      const routers = await nbRows('Logical_Router');
      return {
        lbs,
        checks: await nbRows('Load_Balancer_Health_Check'),
        switchLbs: switches.map((s) => [s.name, s.load_balancer]).sort(),
        routerLbs: routers.map((r) => [r.name, r.load_balancer]).sort(),
      };
    };
    const before = await owned();
    assert.ok(before.lbs.length > 0, 'the provider wrote its Load_Balancer rows');
    const vips = JSON.stringify(before.lbs.map((r) => r.vips));
    assert.ok(
      vips.includes(`${fipAddress}:${LISTENER_PORT}`),
      `the floating IP is a VIP of the load balancer: ${vips}`,
    );

    // Traffic through the router while octonet rewrites its own rows.
    let stop = false;
    const answered: string[] = [];
    const traffic = (async () => {
      while (!stop) answered.push(await connect(vm('client'), lb.vip_address as string));
    })();
    try {
      const driver = api.server.drivers[0] as OvnMechanismDriver;
      await fullPass(driver);
      const member = vms.member2!.id as string;
      await lab().nbctl('lsp-set-addresses', member, 'unknown');
      await pollUntil(
        async () => (await lab().nbctl('get', 'Logical_Switch_Port', member, 'addresses')).trim() !== '[unknown]',
        "the member's LSP repaired",
      );
      await fullPass(driver);
      while (answered.length < 8) await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      stop = true;
      await traffic;
    }
    assert.deepEqual(await owned(), before, "octonet left the provider's rows and columns as they were");
    assert.deepEqual(
      answered.filter((who) => !both.includes(who)),
      [],
      'every connection during the repair was answered',
    );
    await assertSpread(vm('client'), lb.vip_address as string, both);
  });

  /**
   * ovn-octavia-provider 3.0.0 (Zed) tells a router's gateway port from its interfaces by the LRP's
   * `gateway_chassis` column (`_find_ls_for_lr`). While octonet wrote the gateway as an
   * `HA_Chassis_Group` (Neutron 2023.2's form), the provider also put the load balancer on the
   * external network's switch: traffic to the floating IP never came back, and OVS 3.1's userspace
   * conntrack asserted in `conn_update_state` on the gateway node. Last in the file, in case a
   * regression takes a datapath down again.
   */
  it('the outside reaches both members on the floating IP; the load balancer stays off the external switch', async () => {
    const onExternal = await lab().nbctl('get', 'Logical_Switch', `neutron-${external.id as string}`, 'load_balancer');
    const lbUuids = (await lab().nbctl('--bare', '--columns=_uuid', 'find', 'Load_Balancer', `name=${lb.id as string}`))
      .split(/\s+/)
      .filter(Boolean);
    assert.ok(lbUuids.length > 0, 'the provider wrote its Load_Balancer rows');
    for (const uuid of lbUuids)
      assert.ok(!onExternal.includes(uuid), `the LB is not on the external switch: ${onExternal}`);
    await assertSpread(outside(), fipAddress, both);
  });
});
