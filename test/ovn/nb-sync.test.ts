/**
 * The OVN driver against a real OVN central (NB, SB, northd): what API writes put into the NB,
 * and the repair of every kind of drift. Rows are read back with `ovn-nbctl`, as an operator would.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OvnMechanismDriver } from '../../src/drivers/ovn/driver.js';
import type { FullSyncReport } from '../../src/drivers/ovn/repair/full-sync.js';
import { BACKENDS, newProjectId, useApi } from '../fixtures/api.js';
import type { Json } from '../fixtures/json.js';
import { eventually, useOvnCentral } from '../fixtures/ovn-central.js';

const pg = (sg: string) => `pg_${sg.replace(/-/g, '_')}`;

/** The driver's full pass, run now (its repair loop is private: the tests reach in on purpose). */
const fullPass = (driver: OvnMechanismDriver): Promise<FullSyncReport> =>
  (driver as unknown as { repair: { fullSync(): Promise<FullSyncReport> } }).repair.fullSync();

for (const backend of BACKENDS) {
  describe(`OVN NB rows from the API (${backend})`, () => {
    const ovn = useOvnCentral();
    const api = useApi(backend, { config: () => ({ ovn: { nb_connection: ovn.nb, sb_connection: ovn.sb } }) });
    const driver = () => api.server.drivers[0] as OvnMechanismDriver;
    const project = newProjectId();
    const member = () => api.as({ project });
    const lsp = (name: string) => ovn.nbRows('Logical_Switch_Port').find((r) => r.name === name)!;
    const switchOf = (networkId: string) => ovn.nbRows('Logical_Switch').find((r) => r.name === `neutron-${networkId}`);
    const subnetRow = (subnetId: string) =>
      ovn.nbRows('DHCP_Options').find((r) => r.external_ids.subnet_id === subnetId && !r.external_ids.port_id)!;
    const group = (name: string) => ovn.nbRows('Port_Group').find((r) => r.name === name);

    let net: Json;
    let subnet: Json;
    let port: Json;
    let metadata: Json;

    it('a network becomes a Logical_Switch named neutron-<id> with its revision', async () => {
      const r = await member().post('/v2.0/networks', { network: { name: 'n1' } });
      assert.equal(r.status, 201);
      net = r.body.network;
      const ls = switchOf(net.id);
      assert.ok(ls, 'logical switch written before the API answered');
      assert.equal(ls.external_ids['neutron:network_name'], 'n1');
      assert.equal(ls.external_ids['neutron:mtu'], String(net.mtu));
      assert.equal(ls.external_ids['neutron:revision_number'], String(net.revision_number));
      assert.equal(ls.external_ids['neutron:provnet-network-type'], 'geneve');
      assert.deepEqual(ls.other_config, {
        mcast_snoop: 'false',
        mcast_flood_unregistered: 'false',
        'vlan-passthru': 'false',
      });
    });

    it('a DHCP subnet gives the network a metadata port (localport) and a DHCP_Options row that uses it', async () => {
      const r = await member().post('/v2.0/subnets', {
        subnet: {
          network_id: net.id,
          cidr: '10.50.0.0/24',
          ip_version: 4,
          dns_nameservers: ['10.50.0.53'],
          host_routes: [{ destination: '10.60.0.0/16', nexthop: '10.50.0.254' }],
        },
      });
      assert.equal(r.status, 201);
      subnet = r.body.subnet;
      const ports = await api.admin.get(`/v2.0/ports?network_id=${net.id}&device_owner=network:distributed`);
      assert.equal(ports.body.ports.length, 1);
      metadata = ports.body.ports[0];
      assert.equal(metadata.device_id, `ovnmeta-${net.id}`);
      assert.equal(metadata.project_id, project);
      assert.deepEqual(metadata.fixed_ips, [{ subnet_id: subnet.id, ip_address: '10.50.0.2' }]);
      const meta = lsp(metadata.id);
      assert.equal(meta.type, 'localport');
      assert.deepEqual(meta.addresses, [`${metadata.mac_address} 10.50.0.2`]);
      assert.equal(meta.external_ids['neutron:mtu'], String(net.mtu));
      const row = subnetRow(subnet.id);
      assert.equal(row.cidr, '10.50.0.0/24');
      assert.deepEqual(
        { ...row.options, server_mac: undefined },
        {
          server_id: '10.50.0.1',
          lease_time: '43200',
          mtu: String(net.mtu),
          router: '10.50.0.1',
          server_mac: undefined,
          dns_server: '{10.50.0.53}',
          classless_static_route: '{169.254.169.254/32,10.50.0.2, 10.60.0.0/16,10.50.0.254, 0.0.0.0/0,10.50.0.1}',
        },
      );
      assert.match(row.options.server_mac, /^fa:16:3e(:[0-9a-f]{2}){3}$/);
      assert.deepEqual(row.external_ids, {
        subnet_id: subnet.id,
        'neutron:network_id': net.id,
        'neutron:revision_number': String(subnet.revision_number),
      });
    });

    it('a port becomes an LSP with port security, DHCP, and membership of neutron_pg_drop and its group', async () => {
      const r = await member().post('/v2.0/ports', {
        port: { network_id: net.id, name: 'p1', device_owner: 'compute:nova' },
      });
      assert.equal(r.status, 201);
      port = r.body.port;
      const row = lsp(port.id);
      const address = `${port.mac_address} ${port.fixed_ips[0].ip_address}`;
      assert.deepEqual(row.addresses, [address]);
      assert.deepEqual(row.port_security, [address]);
      assert.equal(row.dhcpv4_options, subnetRow(subnet.id)._uuid);
      assert.equal(row.enabled, true);
      assert.equal(row.external_ids['neutron:port_name'], 'p1');
      assert.equal(row.external_ids['neutron:revision_number'], String(port.revision_number));
      assert.equal(row.external_ids['neutron:security_group_ids'], port.security_groups[0]);
      assert.ok(switchOf(net.id).ports.includes(row._uuid), 'the LSP is on its switch');
      assert.ok(group('neutron_pg_drop').ports.includes(row._uuid), 'the LSP is in neutron_pg_drop');
      const sg = group(pg(port.security_groups[0]));
      assert.ok(sg, 'the default group got its Port_Group when the port needed it');
      assert.ok(sg.ports.includes(row._uuid), 'the LSP is in its group');
      assert.equal(sg.acls.length, 4, "the default group's four rules");
    });

    it('port updates rewrite the LSP: name and revision, admin state, port security off', async () => {
      let r = await member().put(`/v2.0/ports/${port.id}`, { port: { name: 'p1-renamed', admin_state_up: false } });
      assert.equal(r.status, 200);
      assert.equal(lsp(port.id).external_ids['neutron:port_name'], 'p1-renamed');
      assert.equal(lsp(port.id).external_ids['neutron:revision_number'], String(r.body.port.revision_number));
      assert.equal(lsp(port.id).enabled, false);
      r = await member().put(`/v2.0/ports/${port.id}`, { port: { security_groups: [], port_security_enabled: false } });
      assert.equal(r.status, 200);
      const row = lsp(port.id);
      assert.deepEqual(row.port_security, []);
      assert.deepEqual(row.addresses, [`${port.mac_address} ${port.fixed_ips[0].ip_address}`, 'unknown']);
      assert.ok(!group('neutron_pg_drop').ports.includes(row._uuid), 'the LSP left neutron_pg_drop');
      assert.ok(!group(pg(port.security_groups[0])).ports.includes(row._uuid), 'the LSP left its group');
    });

    it('security group rules become ACLs and go away with the rule', async () => {
      const sg = (await member().post('/v2.0/security-groups', { security_group: { name: 'web' } })).body
        .security_group;
      const rule = (
        await member().post('/v2.0/security-group-rules', {
          security_group_rule: {
            security_group_id: sg.id,
            direction: 'ingress',
            protocol: 'tcp',
            port_range_min: 22,
            port_range_max: 22,
            remote_ip_prefix: '0.0.0.0/0',
          },
        })
      ).body.security_group_rule;
      const acl = () => ovn.nbRows('ACL').find((a) => a.external_ids['neutron:security_group_rule_id'] === rule.id);
      assert.equal(acl().match, `outport == @${pg(sg.id)} && ip4 && ip4.src == 0.0.0.0/0 && tcp && tcp.dst == 22`);
      assert.equal(acl().priority, 1002);
      assert.equal(acl().action, 'allow-related');
      assert.equal(group(pg(sg.id)).acls.length, 3, 'two egress rules and the new one');
      assert.equal((await member().delete(`/v2.0/security-group-rules/${rule.id}`)).status, 204);
      assert.equal(acl(), undefined);
      assert.equal((await member().delete(`/v2.0/security-groups/${sg.id}`)).status, 204);
      assert.equal(group(pg(sg.id)), undefined);
    });

    it('an MTU change reaches the DHCP options and the metadata port', async () => {
      const r = await api.admin.put(`/v2.0/networks/${net.id}`, { network: { mtu: 1400 } });
      assert.equal(r.status, 200);
      assert.equal(switchOf(net.id).external_ids['neutron:mtu'], '1400');
      assert.equal(subnetRow(subnet.id).options.mtu, '1400');
      assert.equal(lsp(metadata.id).external_ids['neutron:mtu'], '1400');
    });

    it('a full pass right after finds nothing to change', async () => {
      await driver().settled();
      const report = await fullPass(driver());
      assert.equal(report.created + report.updated + report.deleted, 0, JSON.stringify(report));
      assert.ok(report.unchanged > 0, JSON.stringify(report));
    });

    it('deletes: the port, the subnet (its row, the metadata address), the network (its switch)', async () => {
      assert.equal((await member().delete(`/v2.0/ports/${port.id}`)).status, 204);
      assert.equal(lsp(port.id), undefined);
      assert.equal((await member().delete(`/v2.0/subnets/${subnet.id}`)).status, 204);
      assert.equal(subnetRow(subnet.id), undefined);
      assert.deepEqual(lsp(metadata.id).addresses, [metadata.mac_address]);
      assert.equal((await member().delete(`/v2.0/networks/${net.id}`)).status, 204);
      assert.equal(switchOf(net.id), undefined);
      assert.equal(lsp(metadata.id), undefined);
    });
  });

  describe(`OVN drift repair (${backend})`, () => {
    const ovn = useOvnCentral();
    const api = useApi(backend, { config: () => ({ ovn: { nb_connection: ovn.nb, sb_connection: ovn.sb } }) });
    const driver = () => api.server.drivers[0] as OvnMechanismDriver;
    let net: Json;
    let subnet: Json;
    let port: Json;
    const lsp = (name: string) => ovn.nbRows('Logical_Switch_Port').find((r) => r.name === name)!;

    it('sets up a network, a subnet and a port', async () => {
      net = (await api.admin.post('/v2.0/networks', { network: { name: 'drift' } })).body.network;
      subnet = (
        await api.admin.post('/v2.0/subnets', { subnet: { network_id: net.id, cidr: '10.70.0.0/24', ip_version: 4 } })
      ).body.subnet;
      port = (await api.admin.post('/v2.0/ports', { port: { network_id: net.id, name: 'dp' } })).body.port;
      assert.ok(lsp(port.id), 'the port has its LSP');
    });

    it('an LSP deleted by hand comes back, without an API call', async () => {
      ovn.nbctl('lsp-del', port.id);
      const row = await eventually(() => {
        const r = lsp(port.id);
        assert.ok(r, 'the LSP is back');
        return r;
      });
      assert.equal(row.external_ids['neutron:port_name'], 'dp');
      await eventually(() =>
        assert.ok(
          ovn
            .nbRows('Port_Group')
            .find((g) => g.name === 'neutron_pg_drop')
            .ports.includes(row._uuid),
          'the LSP is in neutron_pg_drop again',
        ),
      );
    });

    it('an LSP changed by hand is changed back', async () => {
      ovn.nbctl('lsp-set-addresses', port.id, 'unknown');
      ovn.nbctl('lsp-set-port-security', port.id);
      await eventually(() => {
        assert.deepEqual(lsp(port.id).addresses, [`${port.mac_address} ${port.fixed_ips[0].ip_address}`]);
        assert.deepEqual(lsp(port.id).port_security, [`${port.mac_address} ${port.fixed_ips[0].ip_address}`]);
      });
    });

    it('a deleted logical switch comes back with its ports', async () => {
      ovn.nbctl('ls-del', `neutron-${net.id}`);
      await eventually(() => {
        const ls = ovn.nbRows('Logical_Switch').find((r) => r.name === `neutron-${net.id}`);
        assert.ok(ls, 'the switch is back');
        assert.equal(ls.ports.length, 2, 'the port and the metadata port');
      });
    });

    it('deleted DHCP options, a deleted drop group and an altered ACL are put back', async () => {
      const dhcp = ovn.nbRows('DHCP_Options').find((r) => r.external_ids.subnet_id === subnet.id);
      ovn.nbctl('destroy', 'DHCP_Options', dhcp._uuid);
      ovn.nbctl('pg-del', 'neutron_pg_drop');
      const acl = ovn.nbRows('ACL').find((a) => a.external_ids['neutron:security_group_rule_id']);
      ovn.nbctl('set', 'ACL', acl._uuid, 'action=drop');
      await eventually(() => {
        const row = ovn.nbRows('DHCP_Options').find((r) => r.external_ids.subnet_id === subnet.id);
        assert.ok(row, 'the DHCP options are back');
        assert.equal(lsp(port.id).dhcpv4_options, row._uuid);
        const drop = ovn.nbRows('Port_Group').find((g) => g.name === 'neutron_pg_drop');
        assert.ok(drop, 'neutron_pg_drop is back');
        assert.ok(drop.ports.includes(lsp(port.id)._uuid), 'the port is in neutron_pg_drop again');
        assert.equal(ovn.nbRows('ACL').find((a) => a._uuid === acl._uuid).action, 'allow-related');
      });
    });

    it('repairs are counted in /metrics', async () => {
      const text = (await api.admin.get('/metrics')).text;
      const repaired = [...text.matchAll(/^octonet_ovn_repairs_total\{[^}]*\} (\d+)/gm)].reduce(
        (n, m) => n + Number(m[1]),
        0,
      );
      assert.ok(repaired >= 5, text);
    });

    it('an NB restarted empty is rebuilt from the database', async () => {
      ovn.restartNb({ empty: true });
      await eventually(() => {
        assert.ok(lsp(port.id), 'the LSP is back');
        assert.ok(
          ovn.nbRows('Logical_Switch').find((r) => r.name === `neutron-${net.id}`),
          'the switch is back',
        );
        assert.ok(
          ovn.nbRows('DHCP_Options').find((r) => r.external_ids.subnet_id === subnet.id),
          'the DHCP options are back',
        );
        assert.ok(
          ovn.nbRows('Port_Group').find((g) => g.name === 'neutron_pg_drop'),
          'neutron_pg_drop is back',
        );
      });
      await driver().settled();
      const report = await fullPass(driver());
      assert.equal(report.created + report.updated + report.deleted, 0, JSON.stringify(report));
    });

    it('rows named for resources the database does not have are removed', async () => {
      ovn.nbctl('ls-add', 'neutron-00000000-0000-0000-0000-00000000dead');
      const stale = 'pg_00000000_0000_0000_0000_000000000bad';
      ovn.nbctl(
        'pg-add',
        stale,
        '--',
        'set',
        'Port_Group',
        stale,
        'external_ids:neutron\\:security_group_id=00000000-0000-0000-0000-000000000bad',
      );
      await eventually(() => {
        assert.equal(
          ovn.nbRows('Logical_Switch').find((r) => r.name.endsWith('dead')),
          undefined,
        );
        assert.equal(
          ovn.nbRows('Port_Group').find((g) => g.name === stale),
          undefined,
        );
      });
    });
  });
}

describe('OVN virtual ports: a VIP listed in other ports’ allowed address pairs (sqlite)', () => {
  const ovn = useOvnCentral();
  // ML2/OVN's form, which `auto` (the default) leaves for `learned-mac` unless floating IPs are distributed.
  const api = useApi('sqlite', {
    config: () => ({ ovn: { nb_connection: ovn.nb, sb_connection: ovn.sb, vip_failover: 'virtual-port' } }),
  });
  const lsp = (name: string) => ovn.nbRows('Logical_Switch_Port').find((r) => r.name === name)!;
  let net: Json;
  let vip: Json;
  let amphora1: Json;
  let amphora2: Json;

  /** The full pass computes the parents from its snapshot: it must agree with the write path. */
  const fullPassChangesNothing = async () => {
    const driver = api.server.drivers[0] as OvnMechanismDriver;
    await driver.settled();
    const report = await fullPass(driver);
    assert.equal(report.created + report.updated + report.deleted, 0, JSON.stringify(report));
  };

  const amphora = async (name: string, pairs: string[]) =>
    (
      await api.admin.post('/v2.0/ports', {
        port: {
          network_id: net.id,
          name,
          device_owner: 'compute:nova',
          allowed_address_pairs: pairs.map((ip_address) => ({ ip_address })),
        },
      })
    ).body.port;

  it('a VIP port becomes virtual when amphorae list its address, with every parent', async () => {
    net = (await api.admin.post('/v2.0/networks', { network: { name: 'lb' } })).body.network;
    await api.admin.post('/v2.0/subnets', { subnet: { network_id: net.id, cidr: '10.70.0.0/24', ip_version: 4 } });
    vip = (
      await api.admin.post('/v2.0/ports', {
        port: {
          network_id: net.id,
          name: 'octavia-lb-vip',
          device_owner: 'Octavia',
          fixed_ips: [{ ip_address: '10.70.0.10' }],
        },
      })
    ).body.port;
    assert.equal(lsp(vip.id).type, '', 'no parents yet: an ordinary port');
    amphora1 = await amphora('amphora-1', ['10.70.0.10']);
    amphora2 = await amphora('amphora-2', ['10.70.0.10']);
    await eventually(() => lsp(vip.id).options['virtual-parents']?.split(',').length === 2);
    const row = lsp(vip.id);
    assert.equal(row.type, 'virtual');
    assert.equal(row.options['virtual-ip'], '10.70.0.10');
    assert.deepEqual(row.options['virtual-parents'].split(','), [amphora1.id, amphora2.id].sort());
    assert.equal(lsp(amphora1.id).type, '', 'the parents stay ordinary ports');
    await fullPassChangesNothing();
  });

  it('parents follow the pairs: one removed, one replaced Octavia’s way, then none', async () => {
    await api.admin.put(`/v2.0/ports/${amphora1.id}`, { port: { allowed_address_pairs: [] } });
    await eventually(() => lsp(vip.id).options['virtual-parents'] === amphora2.id);
    const amphora3 = await amphora('amphora-3', ['10.70.0.10']);
    assert.equal((await api.admin.delete(`/v2.0/ports/${amphora2.id}`)).status, 204);
    await eventually(() => lsp(vip.id).options['virtual-parents'] === amphora3.id);
    assert.equal((await api.admin.delete(`/v2.0/ports/${amphora3.id}`)).status, 204);
    await eventually(() => lsp(vip.id).type === '');
    assert.equal(lsp(vip.id).options['virtual-ip'], undefined);
    await fullPassChangesNothing();
  });
});
