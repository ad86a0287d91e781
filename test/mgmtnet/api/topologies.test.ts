/**
 * The link-router and provider topologies against a real octonet over HTTP: the provider network
 * (flat, external), the router with SNAT off and its fixed gateway address, the router's interface
 * port on the tenant subnet, the host route back to the controllers, the controllers' ports on the
 * provider network with their routes; a VLAN provider network used directly. Each converges: the
 * second apply writes nothing.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useApi } from '../../fixtures/api.js';
import { applySpec } from '../../../src/mgmtnet/reconcile.js';
import { clientFor, makeSpec } from '../fixtures.js';
import type { Json } from '../../fixtures/json.js';

describe('mgmt-net link-router and provider (octonet)', () => {
  const api = useApi('sqlite');

  it('link-router: provider net, SNAT-less router, host route on the tenant subnet, controller ports on the provider net', async () => {
    const client = clientFor(api.url);
    const spec = makeSpec(
      { topology: 'link-router', network: { cidr: '172.24.0.0/16' }, linkRouter: { cidr: '192.168.240.0/24' } },
      'lr',
    );
    const report = await applySpec(spec, client);
    assert.equal(report.error, undefined);
    const nets = (await api.admin.get('/v2.0/networks?tags=octonet-mgmt-net:lr')).body.networks;
    const provider = nets.find((n: Json) => n.name === 'octavia-provider-net');
    const tenant = nets.find((n: Json) => n.name === 'lb-mgmt-net');
    assert.deepEqual(
      [provider['router:external'], provider['provider:network_type'], provider['provider:physical_network']],
      [true, 'flat', 'physnet1'],
    );
    assert.equal(tenant['provider:network_type'], 'geneve');
    const subnets = (await api.admin.get('/v2.0/subnets?tags=octonet-mgmt-net:lr')).body.subnets;
    const tenantSubnet = subnets.find((s: Json) => s.network_id === tenant.id);
    const providerSubnet = subnets.find((s: Json) => s.network_id === provider.id);
    assert.equal(tenantSubnet.gateway_ip, null);
    assert.deepEqual(tenantSubnet.host_routes, [{ destination: '192.168.240.0/24', nexthop: '172.24.0.1' }]);
    assert.deepEqual(tenantSubnet.allocation_pools, [{ start: '172.24.0.2', end: '172.24.255.254' }]);
    assert.deepEqual(
      [providerSubnet.name, providerSubnet.gateway_ip, providerSubnet.enable_dhcp],
      ['octavia-provider-subnet', null, false],
    );
    assert.deepEqual(providerSubnet.allocation_pools, [{ start: '192.168.240.2', end: '192.168.240.254' }]);

    const routers = (await api.admin.get('/v2.0/routers?tags=octonet-mgmt-net:lr')).body.routers;
    assert.equal(routers.length, 1);
    const router = routers[0];
    assert.equal(router.name, 'octavia-link-router');
    assert.equal(router.external_gateway_info.network_id, provider.id);
    assert.equal(router.external_gateway_info.enable_snat, false);
    assert.deepEqual(
      router.external_gateway_info.external_fixed_ips.map((f: Json) => f.ip_address),
      ['192.168.240.1'],
    );
    const interfaces = (await api.admin.get(`/v2.0/ports?device_id=${router.id}&device_owner=network:router_interface`))
      .body.ports;
    assert.equal(interfaces.length, 1);
    assert.deepEqual(
      interfaces[0].fixed_ips.map((f: Json) => f.ip_address),
      ['172.24.0.1'],
    );
    assert.ok(interfaces[0].tags.includes('octonet-role:router-port'));

    const hm = (await api.admin.get('/v2.0/ports?device_owner=Octavia:health-mgr&tags=octonet-mgmt-net:lr')).body.ports;
    assert.equal(hm.length, 2);
    assert.ok(hm.every((p: Json) => p.network_id === provider.id));
    // Amphorae (tenant CIDR) reach the health managers; controllers (provider CIDR) reach amphorae.
    const sgs = (await api.admin.get('/v2.0/security-groups?tags=octonet-mgmt-net:lr')).body.security_groups;
    const rule = (name: string, proto: string) =>
      sgs.find((g: Json) => g.name === name).security_group_rules.find((r: Json) => r.protocol === proto)
        .remote_ip_prefix;
    assert.equal(rule('lb-health-mgr-sec-grp', 'udp'), '172.24.0.0/16');
    assert.equal(rule('lb-mgmt-sec-grp', 'tcp'), '192.168.240.0/24');
    assert.deepEqual(
      report.nodes.map((n) => n.routes),
      [
        [{ destination: '172.24.0.0/16', nexthop: '192.168.240.1' }],
        [{ destination: '172.24.0.0/16', nexthop: '192.168.240.1' }],
      ],
    );
    assert.ok(report.nodes.every((n) => n.fixedIps.length === 1 && n.fixedIps[0]!.startsWith('192.168.240.')));
    assert.deepEqual([tenant.shared, provider.shared], [false, false]);
    assert.deepEqual(report.octavia.controller_worker.amp_boot_network_list, [tenant.id]);
    assert.equal(report.status.conditions.find((c) => c.type === 'RouterReady')?.status, 'True');

    client.resetCounts();
    const again = await applySpec(spec, client, { previous: report.status });
    assert.deepEqual(
      again.objects.filter((o) => o.action !== 'unchanged').map((o) => [o.kind, o.name, o.action, o.detail]),
      [],
    );
    assert.equal(again.calls.writes, 0);
  });

  it("provider: a VLAN provider network used directly, with the controllers' ports on it", async () => {
    const client = clientFor(api.url);
    const spec = makeSpec(
      {
        topology: 'provider',
        network: { cidr: '10.99.0.0/24', mtu: 1500 },
        provider: { networkType: 'vlan', physicalNetwork: 'physnet1', segmentationId: 142 },
      },
      'prov',
    );
    const report = await applySpec(spec, client);
    assert.equal(report.error, undefined);
    const nets = (await api.admin.get('/v2.0/networks?tags=octonet-mgmt-net:prov')).body.networks;
    assert.equal(nets.length, 1);
    assert.deepEqual(
      [
        nets[0]['provider:network_type'],
        nets[0]['provider:physical_network'],
        nets[0]['provider:segmentation_id'],
        nets[0].mtu,
      ],
      ['vlan', 'physnet1', 142, 1500],
    );
    const hm = (await api.admin.get(`/v2.0/ports?network_id=${nets[0].id}&device_owner=Octavia:health-mgr`)).body.ports;
    assert.equal(hm.length, 2);
    assert.deepEqual(
      report.nodes.map((n) => n.mtu),
      [1500, 1500],
    );
    const again = await applySpec(spec, client, { previous: report.status });
    assert.equal(again.calls.writes, 0);
  });

  it('a spec whose create-only attribute changed is refused with a condition, not rewritten', async () => {
    const client = clientFor(api.url);
    const first = await applySpec(makeSpec({ network: { cidr: '10.61.0.0/24' } }, 'cidrchange'), client);
    assert.equal(first.error, undefined);
    assert.equal(first.error, undefined);
    const changed = await applySpec(makeSpec({ network: { cidr: '10.62.0.0/24' } }, 'cidrchange'), client, {
      previous: first.status,
    });
    const network = changed.status.conditions.find((c) => c.type === 'NetworkReady')!;
    assert.deepEqual([network.status, network.reason], ['False', 'CannotChange']);
    assert.match(network.message, /cidr="10\.61\.0\.0\/24", the spec wants "10\.62\.0\.0\/24"/);
    assert.equal(changed.status.conditions.find((c) => c.type === 'Ready')!.status, 'False');
    assert.equal(changed.calls.writes, 0);
  });
});
