/**
 * Debian's real Octavia (api, driver agent, health manager, housekeeping, worker) on octonet with
 * Keystone, the OVN provider writing to a real OVN central (no data plane runs here). Octavia finds
 * octonet through the catalog with its own service user; the `openstack loadbalancer` CLI is how
 * the test acts. What must hold: the load balancer goes ACTIVE with its VIP port on octonet; the
 * provider's Load_Balancer and Load_Balancer_Health_Check rows and the `load_balancer` columns of
 * the switch and the router survive octonet's full pass, an NB drift repair and API updates that
 * rewrite those rows; a cascade delete leaves nothing of the load balancer on either side.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OvnMechanismDriver } from '../../src/drivers/ovn/driver.js';
import { useApi } from '../fixtures/api.js';
import type { Json } from '../fixtures/json.js';
import { useKeystone, withToken } from '../fixtures/keystone.js';
import { useOctavia } from '../fixtures/octavia.js';
import { eventually, useOvnCentral } from '../fixtures/ovn-central.js';

/** The driver's full pass, run now (its repair loop is private: the test reaches in on purpose). */
const fullPass = (driver: OvnMechanismDriver): Promise<unknown> =>
  (driver as unknown as { repair: { fullSync(): Promise<unknown> } }).repair.fullSync();

describe('real Octavia on octonet: the OVN provider through the API', () => {
  const ovn = useOvnCentral();
  const keystone = useKeystone();
  const api = useApi('postgres', {
    config: () => ({ ...keystone.octonetConfig(), ovn: { nb_connection: ovn.nb, sb_connection: ovn.sb } }),
  });
  const octavia = useOctavia(() => ({ keystone, ovn: { nb: ovn.nb, sb: ovn.sb } }));

  it('every Octavia service is up, the OVN provider is listed', async () => {
    await keystone.setEndpoint('network', api.url);
    assert.deepEqual(octavia.running().length, 5, octavia.running().join(','));
    const providers = await octavia.cli.json<{ name: string }[]>(['loadbalancer', 'provider', 'list']);
    assert.deepEqual(providers.map((p) => p.name).sort(), ['amphora', 'ovn']);
  });

  it("builds an OVN load balancer whose NB rows octonet's repair leaves alone, then deletes it with cascade", async () => {
    const cli = octavia.cli;
    const admin = withToken(api.admin, await keystone.issueToken(keystone.users.cloudAdmin));
    const net = await cli.json<Json>(['network', 'create', 'lb-net']);
    const subnet = await cli.json<Json>([
      'subnet',
      'create',
      '--network',
      net.id,
      '--subnet-range',
      '10.8.0.0/24',
      'lb-sub',
    ]);
    const router = await cli.json<Json>(['router', 'create', 'lb-router']);
    await cli.ok(['router', 'add', 'subnet', router.id, subnet.id]);
    const memberPort = await cli.json<Json>([
      'port',
      'create',
      '--network',
      net.id,
      '--fixed-ip',
      `subnet=${subnet.id},ip-address=10.8.0.50`,
      'm1',
    ]);
    const lb = await cli.json<Json>([
      'loadbalancer',
      'create',
      '--provider',
      'ovn',
      '--vip-subnet-id',
      subnet.id,
      '--name',
      'lb1',
      '--wait',
    ]);
    assert.equal(lb.provisioning_status, 'ACTIVE', JSON.stringify(lb));
    const vipPort = (await admin.get(`/v2.0/ports/${lb.vip_port_id}`)).body.port;
    assert.equal(vipPort.fixed_ips[0].ip_address, lb.vip_address);

    await cli.ok([
      'loadbalancer',
      'listener',
      'create',
      '--protocol',
      'TCP',
      '--protocol-port',
      '80',
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
    await cli.ok([
      'loadbalancer',
      'member',
      'create',
      '--address',
      '10.8.0.50',
      '--subnet-id',
      subnet.id,
      '--protocol-port',
      '8080',
      '--wait',
      'p1',
    ]);
    await cli.ok([
      'loadbalancer',
      'healthmonitor',
      'create',
      '--delay',
      '5',
      '--timeout',
      '3',
      '--max-retries',
      '2',
      '--type',
      'TCP',
      '--wait',
      'p1',
    ]);

    const lbRow = () => ovn.nbRows('Load_Balancer').find((r) => r.name === lb.id);
    const switchRow = () => ovn.nbRows('Logical_Switch').find((s) => s.name === `neutron-${net.id}`)!;
    const routerRow = () => ovn.nbRows('Logical_Router').find((r) => r.name === `neutron-${router.id}`)!;
    const owned = () => ({
      lb: lbRow(),
      checks: ovn.nbRows('Load_Balancer_Health_Check'),
      switchLbs: switchRow().load_balancer,
      routerLbs: routerRow().load_balancer,
    });
    const before = await eventually(() => {
      const state = owned();
      assert.ok(state.lb, 'the provider wrote its Load_Balancer row');
      assert.equal((state.lb.vips as Record<string, string>)[`${lb.vip_address}:80`], '10.8.0.50:8080');
      assert.equal(state.checks.length, 1, 'the health check row');
      assert.ok((state.switchLbs as string[]).includes(state.lb._uuid as string), 'on the VIP network switch');
      assert.ok((state.routerLbs as string[]).includes(state.lb._uuid as string), 'on the router');
      return state;
    });

    // What rewrites octonet's rows: a full pass, a drift repair of the member's LSP, API updates.
    const driver = api.server.drivers[0] as OvnMechanismDriver;
    await fullPass(driver);
    ovn.nbctl('lsp-set-addresses', memberPort.id, 'unknown');
    await eventually(() =>
      assert.notDeepEqual(ovn.nbRows('Logical_Switch_Port').find((p) => p.name === memberPort.id)!.addresses, [
        'unknown',
      ]),
    );
    await cli.ok(['network', 'set', '--name', 'lb-net-renamed', net.id]);
    await cli.ok(['router', 'set', '--name', 'lb-router-renamed', router.id]);
    await eventually(() => assert.equal(switchRow().external_ids['neutron:network_name'], 'lb-net-renamed'));
    await fullPass(driver);
    assert.deepEqual(owned(), before, "octonet left the provider's rows and columns as they were");

    await cli.ok(['loadbalancer', 'delete', '--cascade', '--wait', lb.id]);
    assert.equal(lbRow(), undefined);
    // The Zed provider's VIP port has no device_owner: ask for the port itself.
    const vip = await admin.get(`/v2.0/ports/${lb.vip_port_id}`);
    assert.equal(vip.status, 404, 'the VIP port is gone');
  });
});
