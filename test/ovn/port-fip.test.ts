/**
 * `neutron:port_fip` on a floating IP's port, against a real OVN central: ML2/OVN writes the
 * floating address into the external_ids of the LSP a floating IP points at, and removes it when
 * the floating IP leaves the port. The OVN Octavia provider follows the key on a VIP port to add the
 * floating IP to its load balancer, so it must appear, move and disappear with the association,
 * survive a full pass, and come back when someone removes it by hand.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OvnMechanismDriver } from '../../src/drivers/ovn/driver.js';
import { PORT_FIP_EXT_ID as PORT_FIP } from '../../src/drivers/ovn/mapping.js';
import type { FullSyncReport } from '../../src/drivers/ovn/repair/full-sync.js';
import { useApi } from '../fixtures/api.js';
import type { Json } from '../fixtures/json.js';
import { eventually, useOvnCentral } from '../fixtures/ovn-central.js';

/** The driver's full pass, run now (its repair loop is private: the test reaches in on purpose). */
const fullPass = (driver: OvnMechanismDriver): Promise<FullSyncReport> =>
  (driver as unknown as { repair: { fullSync(): Promise<FullSyncReport> } }).repair.fullSync();

describe('neutron:port_fip follows floating IP associations', () => {
  const ovn = useOvnCentral();
  const api = useApi('sqlite', { config: () => ({ ovn: { nb_connection: ovn.nb, sb_connection: ovn.sb } }) });
  const driver = () => api.server.drivers[0] as OvnMechanismDriver;
  const lspFip = (name: string): string | undefined =>
    (ovn.nbRows('Logical_Switch_Port').find((r) => r.name === name)!.external_ids as Record<string, string>)[PORT_FIP];
  const post = async (path: string, body: unknown): Promise<Json> => {
    const r = await api.admin.post(path, body);
    assert.equal(r.status, 201, `${path}: ${r.text}`);
    return r.body;
  };
  const put = async (path: string, body: unknown): Promise<Json> => {
    const r = await api.admin.put(path, body);
    assert.equal(r.status, 200, `${path}: ${r.text}`);
    return r.body;
  };

  let vip: Json;
  let other: Json;
  let fip: Json;

  it('sets up an external network, a routed subnet and two ports', async () => {
    const external = (
      await post('/v2.0/networks', {
        network: {
          name: 'public',
          'router:external': true,
          'provider:network_type': 'flat',
          'provider:physical_network': 'physnet1',
        },
      })
    ).network;
    await post('/v2.0/subnets', {
      subnet: { network_id: external.id, cidr: '198.51.100.0/24', ip_version: 4, enable_dhcp: false },
    });
    const net = (await post('/v2.0/networks', { network: { name: 'lb-net' } })).network;
    const subnet = (await post('/v2.0/subnets', { subnet: { network_id: net.id, cidr: '10.9.0.0/24', ip_version: 4 } }))
      .subnet;
    const router = (
      await post('/v2.0/routers', { router: { name: 'r', external_gateway_info: { network_id: external.id } } })
    ).router;
    await put(`/v2.0/routers/${router.id}/add_router_interface`, { subnet_id: subnet.id });
    // What the OVN provider creates for a load balancer's VIP.
    vip = (
      await post('/v2.0/ports', { port: { network_id: net.id, name: 'ovn-lb-vip-x', device_owner: 'ovn-lb-vip' } })
    ).port;
    other = (await post('/v2.0/ports', { port: { network_id: net.id, name: 'other' } })).port;
    fip = (await post('/v2.0/floatingips', { floatingip: { floating_network_id: external.id } })).floatingip;
    assert.equal(lspFip(vip.id), undefined, 'no floating IP, no key');
  });

  it('associating a floating IP writes its address on the port, before the API answers', async () => {
    await put(`/v2.0/floatingips/${fip.id}`, { floatingip: { port_id: vip.id } });
    assert.equal(lspFip(vip.id), fip.floating_ip_address);
    assert.equal(lspFip(other.id), undefined);
  });

  it('a full pass finds nothing to change, and a key removed by hand comes back', async () => {
    await driver().settled();
    const report = await fullPass(driver());
    assert.equal(lspFip(vip.id), fip.floating_ip_address);
    assert.equal(report.created + report.updated + report.deleted, 0, JSON.stringify(report));
    ovn.nbctl('remove', 'Logical_Switch_Port', vip.id, 'external_ids', `"${PORT_FIP}"`);
    await eventually(() => assert.equal(lspFip(vip.id), fip.floating_ip_address));
  });

  it('moving the floating IP moves the key; a port update keeps it', async () => {
    await put(`/v2.0/floatingips/${fip.id}`, { floatingip: { port_id: other.id } });
    assert.equal(lspFip(vip.id), undefined);
    assert.equal(lspFip(other.id), fip.floating_ip_address);
    await put(`/v2.0/ports/${other.id}`, { port: { name: 'other-renamed' } });
    const row = ovn.nbRows('Logical_Switch_Port').find((r) => r.name === other.id)!;
    assert.equal((row.external_ids as Record<string, string>)['neutron:port_name'], 'other-renamed');
    assert.equal(lspFip(other.id), fip.floating_ip_address);
  });

  it('disassociating removes it; so does deleting an associated floating IP', async () => {
    await put(`/v2.0/floatingips/${fip.id}`, { floatingip: { port_id: null } });
    assert.equal(lspFip(other.id), undefined);
    await put(`/v2.0/floatingips/${fip.id}`, { floatingip: { port_id: vip.id } });
    assert.equal(lspFip(vip.id), fip.floating_ip_address);
    const r = await api.admin.delete(`/v2.0/floatingips/${fip.id}`);
    assert.equal(r.status, 204, r.text);
    assert.equal(lspFip(vip.id), undefined);
  });
});
