/**
 * Debian's real Octavia (api, driver agent, health manager, housekeeping, worker) on octonet with
 * Keystone, the OVN provider writing to a real OVN central (no data plane: the traffic test is
 * `ovn-provider-traffic.test.ts`). Octavia finds octonet through the catalog with its own service
 * user; the `openstack loadbalancer` CLI is how the test acts. What must hold: the load balancer
 * goes ACTIVE, its VIP port is on octonet, the provider's Load_Balancer row is in NB on the VIP
 * network's switch, and a cascade delete leaves nothing behind on either side.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useApi } from '../fixtures/api.js';
import type { Json } from '../fixtures/json.js';
import { useKeystone, withToken } from '../fixtures/keystone.js';
import { useOctavia } from '../fixtures/octavia.js';
import { eventually, useOvnCentral } from '../fixtures/ovn-central.js';

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

  it('creates an OVN load balancer with listener, pool and member, then deletes it with cascade', async () => {
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
    const row = await eventually(() => {
      const rows = ovn.nbRows('Load_Balancer').filter((r) => r.name === lb.id);
      assert.equal(rows.length, 1);
      return rows[0]!;
    });
    assert.ok(row);
    const sw = ovn.nbRows('Logical_Switch').find((s) => s.name === `neutron-${net.id}`)!;
    assert.ok((sw.load_balancer as string[]).includes(row._uuid as string), 'the LB is on the VIP network switch');

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
    await eventually(() => {
      const vips = ovn.nbRows('Load_Balancer').find((r) => r.name === lb.id)!.vips as Record<string, string>;
      assert.equal(vips[`${lb.vip_address}:80`], '10.8.0.50:8080');
    });

    await cli.ok(['loadbalancer', 'delete', '--cascade', '--wait', lb.id]);
    assert.deepEqual(
      ovn.nbRows('Load_Balancer').filter((r) => r.name === lb.id),
      [],
    );
    const left = (await admin.get(`/v2.0/ports?network_id=${net.id}&device_owner=ovn-lb-vip`)).body.ports;
    assert.deepEqual(left, [], 'the VIP port is gone');
  });
});
