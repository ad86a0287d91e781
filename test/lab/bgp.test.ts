/**
 * BGP with centralized floating IPs, with real packets, in Wikimedia's cloudgw layout (seed 004):
 * a floating IP and a no-SNAT tenant subnet become reachable from the core only through routes the
 * cloudgws learned by BGP from the node holding the router's gateway; deleting the floating IP
 * withdraws its /32; when the active gateway node dies the announcement moves to the next gateway
 * chassis and traffic resumes; when a cloudgw dies traffic flows through the other.
 *
 * Lab `bgp`: 3 nodes, the VM on node1, gateways on node2 and node3, `--bgp`.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { created, notRoot, pollUntil } from './lab-fixture.js';
import { coreReaches, ribPaths, useBgpWorld } from './bgp-fixture.js';

describe('octonet on the lab: BGP, centralized floating IPs', { skip: notRoot }, () => {
  const world = useBgpWorld('bgp', { distributed: false });
  const { lab, api } = world;
  const vmIp = () => world.vmPort().fixed_ips[0].ip_address as string;
  let fip = { id: '', address: '' };

  it('the core has no route off its link but what BGP taught it', async () => {
    const routes = await lab().exec(lab().coreCommand(['ip', '-j', 'route', 'show']));
    const entries = JSON.parse(routes.stdout) as { dst: string; protocol?: string }[];
    assert.deepEqual(
      entries.filter((r) => r.protocol !== 'bgp').map((r) => r.dst),
      ['203.0.113.0/24'],
      'only the connected core link',
    );
  });

  it('the tenant subnet (no SNAT) is announced from the active gateway and reached from the core', async () => {
    const tenant = world.tenantSubnet().cidr as string;
    const active = await world.activeGateway();
    for (const cloudgw of ['cloudgw1', 'cloudgw2']) {
      const paths = await pollUntil(async () => {
        const found = await ribPaths(lab(), cloudgw, tenant);
        return found.length ? found : undefined;
      }, `${tenant} in ${cloudgw}'s RIB`);
      assert.deepEqual(
        paths.map((p) => p.nextHop),
        [world.gatewayIp()],
        "the router's gateway is the next hop",
      );
      assert.equal(await world.nodeOfPeer(paths[0]!.peer), active, 'learned from the active gateway node only');
    }
    await coreReaches(lab(), vmIp());
  });

  it('a floating IP is announced as a /32 and reached from the core; deleting it withdraws the /32', async () => {
    const body = await created(api.admin, '/v2.0/floatingips', {
      floatingip: { floating_network_id: world.external().id, port_id: world.vmPort().id },
    });
    fip = { id: body.floatingip.id, address: body.floatingip.floating_ip_address };
    const prefix = `${fip.address}/32`;
    const paths = await pollUntil(async () => {
      const found = await ribPaths(lab(), 'cloudgw1', prefix);
      return found.length ? found : undefined;
    }, `${prefix} in cloudgw1's RIB`);
    assert.equal(paths[0]!.nextHop, world.gatewayIp());
    // The core learns it from the cloudgws a moment later, by BGP and by nothing else.
    await pollUntil(async () => {
      const route = await lab().exec(lab().coreCommand(['ip', '-j', 'route', 'show', prefix]));
      return (JSON.parse(route.stdout) as { protocol: string }[])[0]?.protocol === 'bgp';
    }, `${prefix} in the core's kernel table, from BGP`);
    await coreReaches(lab(), fip.address);

    assert.equal((await api.admin.delete(`/v2.0/floatingips/${fip.id}`)).status, 204);
    await pollUntil(
      async () =>
        (await ribPaths(lab(), 'cloudgw1', prefix)).length === 0 &&
        (await ribPaths(lab(), 'cloudgw2', prefix)).length === 0,
      `${prefix} withdrawn from both cloudgws`,
    );
  });

  it('killing one cloudgw keeps traffic flowing through the other', async () => {
    await lab().killCloudgw('cloudgw1');
    // BFD takes the dead cloudgw's paths away; the core's route then only leads through cloudgw2.
    await pollUntil(async () => {
      const route = await lab().exec(lab().coreCommand(['ip', '-j', 'route', 'show', world.tenantSubnet().cidr]));
      const [entry] = JSON.parse(route.stdout) as { gateway?: string; nexthops?: unknown[] }[];
      return entry?.gateway === '203.0.113.3' && !entry.nexthops;
    }, "the core's route through cloudgw2 only");
    await coreReaches(lab(), vmIp());
  });

  it('failing the active gateway node moves the announcement, and traffic resumes', async () => {
    const before = await world.activeGateway();
    await lab().killNode(before);
    const tenant = world.tenantSubnet().cidr as string;
    const after = await pollUntil(async () => {
      const [path] = await ribPaths(lab(), 'cloudgw2', tenant);
      const node = path ? await world.nodeOfPeer(path.peer) : undefined;
      return node && node !== before ? node : undefined;
    }, 'the announcement to move to the other gateway node');
    assert.equal(await world.activeGateway(), after);
    await coreReaches(lab(), vmIp());
  });
});
