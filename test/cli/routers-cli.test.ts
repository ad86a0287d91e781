/**
 * The real `openstack` CLI driving routers and floating IPs against octonet (the commands operators
 * and the OpenStack-on-OpenShift link router use): gateway with and without SNAT and with a fixed
 * address, interfaces by subnet and by port, extra routes, subnet host routes, floating IPs with a
 * chosen address, associated and disassociated. Each result is read back over HTTP. The agent
 * commands (`network agent add/remove router --l3`) need real gateway chassis: the lab test has them.
 *
 * One sequence on SQLite: each call costs about a second of Python start-up.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { useApi } from '../fixtures/api.js';
import { OpenstackCli } from '../fixtures/openstack-cli.js';
import type { Json } from '../fixtures/json.js';

describe('openstack CLI: routers and floating IPs', { concurrency: 1 }, () => {
  const api = useApi('sqlite');
  let cli: OpenstackCli;
  let extSubnetId: string;
  let tenantSubnetId: string;
  let portId: string;
  let vmPortId: string;

  before(async () => {
    cli = new OpenstackCli(api.url);
    const ext = (
      await api.admin.post('/v2.0/networks', {
        network: {
          name: 'public',
          'router:external': true,
          'provider:network_type': 'flat',
          'provider:physical_network': 'physnet1',
        },
      })
    ).body.network;
    extSubnetId = (
      await api.admin.post('/v2.0/subnets', {
        subnet: { network_id: ext.id, name: 'public-v4', cidr: '203.0.113.0/24', ip_version: 4 },
      })
    ).body.subnet.id;
    const tenant = (await api.admin.post('/v2.0/networks', { network: { name: 'private' } })).body.network;
    tenantSubnetId = (
      await api.admin.post('/v2.0/subnets', {
        subnet: { network_id: tenant.id, name: 'private-v4', cidr: '10.20.0.0/24', ip_version: 4 },
      })
    ).body.subnet.id;
    const mgmt = (await api.admin.post('/v2.0/networks', { network: { name: 'mgmt' } })).body.network;
    await api.admin.post('/v2.0/subnets', {
      subnet: { network_id: mgmt.id, name: 'mgmt-v4', cidr: '10.24.0.0/16', ip_version: 4 },
    });
    portId = (
      await api.admin.post('/v2.0/ports', {
        port: { network_id: mgmt.id, name: 'mgmt-router-port', fixed_ips: [{ ip_address: '10.24.1.89' }] },
      })
    ).body.port.id;
    vmPortId = (
      await api.admin.post('/v2.0/ports', { port: { network_id: tenant.id, name: 'vm', device_owner: 'compute:nova' } })
    ).body.port.id;
  });

  const router = async (name: string) => (await api.admin.get(`/v2.0/routers?name=${name}`)).body.routers[0];

  it('router create, set --external-gateway --disable-snat --fixed-ip, add subnet, add port', async () => {
    const created = await cli.json(['router', 'create', 'r1']);
    assert.equal(created.name, 'r1');
    await cli.ok([
      'router',
      'set',
      'r1',
      '--external-gateway',
      'public',
      '--disable-snat',
      '--fixed-ip',
      `subnet=public-v4,ip-address=203.0.113.60`,
    ]);
    const r1 = await router('r1');
    assert.deepEqual(r1.external_gateway_info, {
      network_id: r1.external_gateway_info.network_id,
      external_fixed_ips: [{ subnet_id: extSubnetId, ip_address: '203.0.113.60' }],
      enable_snat: false,
    });
    await cli.ok(['router', 'add', 'subnet', 'r1', 'private-v4']);
    await cli.ok(['router', 'add', 'port', 'r1', 'mgmt-router-port']);
    const interfaces = (await api.admin.get(`/v2.0/ports?device_id=${r1.id}&device_owner=network:router_interface`))
      .body.ports;
    assert.deepEqual(interfaces.map((p: Json) => p.fixed_ips[0].ip_address).sort(), ['10.20.0.1', '10.24.1.89']);
    assert.ok(interfaces.some((p: Json) => p.id === portId));
  });

  it('router set --route and subnet set --host-route (the link-router pattern)', async () => {
    await cli.ok(['router', 'set', 'r1', '--route', 'destination=192.0.2.0/24,gateway=10.20.0.50']);
    assert.deepEqual((await router('r1')).routes, [{ destination: '192.0.2.0/24', nexthop: '10.20.0.50' }]);
    await cli.ok(['subnet', 'set', 'mgmt-v4', '--host-route', 'destination=203.0.113.0/24,gateway=10.24.1.89']);
    const subnet = (await api.admin.get('/v2.0/subnets?name=mgmt-v4')).body.subnets[0];
    assert.deepEqual(subnet.host_routes, [{ destination: '203.0.113.0/24', nexthop: '10.24.1.89' }]);
    const shown = await cli.json(['router', 'show', 'r1']);
    assert.equal(shown.id, (await router('r1')).id);
  });

  it('floating ip create --floating-ip-address, set --port, unset --port, delete', async () => {
    const fip = await cli.json(['floating', 'ip', 'create', '--floating-ip-address', '203.0.113.77', 'public']);
    assert.equal(fip.floating_ip_address, '203.0.113.77');
    assert.equal(fip.status, 'DOWN');
    await cli.ok(['floating', 'ip', 'set', '--port', vmPortId, '203.0.113.77']);
    const associated = (await api.admin.get(`/v2.0/floatingips/${fip.id}`)).body.floatingip;
    assert.equal(associated.port_id, vmPortId);
    assert.equal(associated.router_id, (await router('r1')).id);
    const listed = await cli.json(['floating', 'ip', 'list']);
    assert.equal(listed.find((f: Json) => f.ID === fip.id)?.Port, vmPortId);
    await cli.ok(['floating', 'ip', 'unset', '--port', '203.0.113.77']);
    assert.equal((await api.admin.get(`/v2.0/floatingips/${fip.id}`)).body.floatingip.port_id, null);
    await cli.ok(['floating', 'ip', 'delete', '203.0.113.77']);
    assert.equal((await api.admin.get(`/v2.0/floatingips/${fip.id}`)).status, 404);
  });

  it('router delete refuses while interfaces remain, then unset, remove and delete succeed', async () => {
    const refused = await cli.run(['router', 'delete', 'r1']);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr + refused.stdout, /has ports still attached/);
    await cli.ok(['router', 'unset', '--route', 'destination=192.0.2.0/24,gateway=10.20.0.50', 'r1']);
    await cli.ok(['router', 'remove', 'subnet', 'r1', tenantSubnetId]);
    await cli.ok(['router', 'remove', 'port', 'r1', portId]);
    await cli.ok(['router', 'unset', '--external-gateway', 'r1']);
    assert.equal((await router('r1')).external_gateway_info, null);
    await cli.ok(['router', 'delete', 'r1']);
    assert.equal(await router('r1'), undefined);
  });
});
