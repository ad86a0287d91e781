/**
 * A live migration's port-binding calls, in the order Nova makes them, against a real OVN NB/SB
 * (chassis written with ovn-sbctl, no data plane): the target binding (INACTIVE) leaves the LSP
 * alone; `binding:profile.migrating_to` requests both chassis with `activation-strategy=rarp`, as
 * ML2/OVN writes it; activation moves `requested-chassis` to the target and the port, set DOWN by
 * it, is ACTIVE again while its VIF is up; clearing `migrating_to` and deleting the source binding
 * leave one chassis and no activation strategy.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { useApi } from '../fixtures/api.js';
import { eventually, useOvnCentral } from '../fixtures/ovn-central.js';
import type { Json } from '../fixtures/json.js';

describe('live migration: port bindings in OVN', () => {
  const ovn = useOvnCentral();
  const api = useApi('sqlite', { config: () => ({ ovn: { nb_connection: ovn.nb, sb_connection: ovn.sb } }) });
  // Nova's user: admin with the service role, which may set binding:profile.
  const nova = () => api.as({ project: 'fake_project_id', roles: ['admin', 'service'] });

  before(() => {
    ovn.addChassis('compute1', '192.0.2.21', { 'datapath-type': 'system' });
    ovn.addChassis('compute2', '192.0.2.22', { 'datapath-type': 'system' });
  });

  const lspOptions = (portId: string): Json =>
    ovn.nbRows('Logical_Switch_Port').find((r) => r.name === portId)?.options;

  it('requests both chassis while migrating_to is set, then the target alone', async () => {
    const net = (await api.admin.post('/v2.0/networks', { network: { name: 'lm' } })).body.network;
    await api.admin.post('/v2.0/subnets', { subnet: { network_id: net.id, cidr: '10.1.0.0/24', ip_version: 4 } });
    const created = await eventually(async () => {
      const r = await nova().post('/v2.0/ports', {
        port: {
          network_id: net.id,
          device_id: randomUUID(),
          device_owner: 'compute:nova',
          'binding:host_id': 'compute1',
        },
      });
      assert.equal(r.body.port['binding:vif_type'], 'ovs', 'the chassis is seen as alive');
      return r.body.port;
    });
    const id = created.id as string;
    const base = `/v2.0/ports/${id}/bindings`;
    await eventually(async () =>
      assert.deepEqual(lspOptions(id), { 'requested-chassis': 'compute1', mcast_flood_reports: 'true' }),
    );
    // The VIF comes up on compute1 as its ovn-controller would report it; northd copies `up` to the LSP.
    ovn.sbctl('lsp-bind', id, 'compute1');
    ovn.sbctl('set', 'Port_Binding', id, 'up=true');
    await eventually(async () => assert.equal((await api.admin.get(`/v2.0/ports/${id}`)).body.port.status, 'ACTIVE'));

    let r = await nova().post(base, { binding: { host: 'compute2' } });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.binding.status, 'INACTIVE');
    assert.equal(r.body.binding.vif_details.datapath_type, 'system');
    assert.deepEqual(lspOptions(id), { 'requested-chassis': 'compute1', mcast_flood_reports: 'true' });

    r = await nova().put(`/v2.0/ports/${id}`, { port: { 'binding:profile': { migrating_to: 'compute2' } } });
    assert.equal(r.status, 200, r.text);
    await eventually(async () =>
      assert.deepEqual(lspOptions(id), {
        'requested-chassis': 'compute1,compute2',
        'activation-strategy': 'rarp',
        mcast_flood_reports: 'true',
      }),
    );

    r = await nova().request('PUT', `${base}/compute2/activate`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.status, 'ACTIVE');
    await eventually(async () =>
      assert.deepEqual(lspOptions(id), { 'requested-chassis': 'compute2', mcast_flood_reports: 'true' }),
    );
    // Activation sets the port DOWN; its VIF is up (on the target, with multi-chassis), so it is
    // ACTIVE again without any change of the LSP's `up`.
    await eventually(async () => assert.equal((await api.admin.get(`/v2.0/ports/${id}`)).body.port.status, 'ACTIVE'));

    r = await nova().put(`/v2.0/ports/${id}`, { port: { 'binding:profile': {} } });
    assert.equal(r.status, 200, r.text);
    assert.equal((await nova().delete(`${base}/compute1`)).status, 204);
    const port = (await api.admin.get(`/v2.0/ports/${id}`)).body.port;
    assert.equal(port['binding:host_id'], 'compute2');
    assert.equal(port['binding:vif_type'], 'ovs');
    await eventually(async () =>
      assert.deepEqual(lspOptions(id), { 'requested-chassis': 'compute2', mcast_flood_reports: 'true' }),
    );
  });
});
