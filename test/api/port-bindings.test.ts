/**
 * `binding-extended` over HTTP on both databases, as Nova drives it in a live migration: bind the
 * target (INACTIVE), activate it (a bare dict; the old binding INACTIVE and unbound; the port's
 * `binding:*` follow; a second activate 409), delete the source; with ML2's errors for the rest.
 * A test driver binds hosts `node1` and `node2` as ML2/OVN binds a live chassis; other hosts fail.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import type { MechanismDriver, PortBinding } from '../../src/drivers/contract.js';
import { BACKENDS, newProjectId, useApi } from '../fixtures/api.js';
import type { Json } from '../fixtures/json.js';

const DETAILS = { port_filter: true, connectivity: 'l2', bridge_name: 'br-int', datapath_type: 'system' };

const binder: MechanismDriver = {
  name: 'test-binder',
  bindPort: (port): PortBinding | undefined =>
    ['node1', 'node2'].includes(port['binding:host_id']) ? { vifType: 'ovs', vifDetails: DETAILS } : undefined,
};

for (const backend of BACKENDS) {
  describe(`port bindings (${backend})`, () => {
    const api = useApi(backend, { drivers: [binder] });
    let networkId = '';

    before(async () => {
      networkId = (await api.admin.post('/v2.0/networks', { network: { name: 'b' } })).body.network.id;
    });

    async function port(fields: Record<string, Json> = {}): Promise<Json> {
      // Nova's own user: the service role may set binding:profile.
      const nova = api.as({ project: 'fake_project_id', roles: ['admin', 'service'] });
      const r = await nova.post('/v2.0/ports', {
        port: { network_id: networkId, device_id: randomUUID(), device_owner: 'compute:nova', ...fields },
      });
      assert.equal(r.status, 201, r.text);
      return r.body.port;
    }

    it('is advertised as binding-extended', async () => {
      const r = await api.admin.get('/v2.0/extensions/binding-extended');
      assert.equal(r.status, 200);
      assert.equal(r.body.extension.name, 'Port Bindings Extended');
    });

    it('a live migration: bind the target, activate it, delete the source', async () => {
      const p = await port({ 'binding:host_id': 'node1', 'binding:profile': { a: 1 } });
      const base = `/v2.0/ports/${p.id}/bindings`;
      let r = await api.admin.get(base);
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, {
        bindings: [
          {
            host: 'node1',
            vif_type: 'ovs',
            vnic_type: 'normal',
            status: 'ACTIVE',
            profile: { a: 1 },
            vif_details: DETAILS,
          },
        ],
      });

      r = await api.admin.post(base, { binding: { host: 'node2', profile: { migrating: true } } });
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(r.body, {
        binding: {
          host: 'node2',
          vif_type: 'ovs',
          vnic_type: 'normal',
          status: 'INACTIVE',
          profile: { migrating: true },
          vif_details: DETAILS,
        },
      });
      r = await api.admin.post(base, { binding: { host: 'node2' } });
      assert.equal(r.status, 409);
      assert.equal(r.body.NeutronError.type, 'PortBindingAlreadyExists');
      assert.equal(r.body.NeutronError.message, `Binding for port ${p.id} on host node2 already exists.`);
      assert.equal((await api.admin.post(base, { binding: { host: 'node1' } })).status, 409);

      r = await api.admin.get(`${base}/node2`);
      assert.equal(r.body.binding.status, 'INACTIVE');
      r = await api.admin.get(`${base}?status=INACTIVE&fields=host`);
      assert.deepEqual(r.body, { bindings: [{ host: 'node2' }] });

      // The port is unchanged until the activation.
      assert.equal((await api.admin.get(`/v2.0/ports/${p.id}`)).body.port['binding:host_id'], 'node1');

      // Nova sends no body.
      r = await api.admin.request('PUT', `${base}/node2/activate`);
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body, {
        host: 'node2',
        vif_type: 'ovs',
        vnic_type: 'normal',
        status: 'ACTIVE',
        profile: { migrating: true },
        vif_details: DETAILS,
      });
      r = await api.admin.request('PUT', `${base}/node2/activate`);
      assert.equal(r.status, 409);
      assert.equal(r.body.NeutronError.type, 'PortBindingAlreadyActive');

      const moved = (await api.admin.get(`/v2.0/ports/${p.id}`)).body.port;
      assert.equal(moved['binding:host_id'], 'node2');
      assert.deepEqual(moved['binding:profile'], { migrating: true });
      assert.equal(moved.status, 'DOWN');
      assert.equal(moved.revision_number, p.revision_number + 1);
      r = await api.admin.get(`${base}/node1`);
      assert.deepEqual(r.body.binding, {
        host: 'node1',
        vif_type: 'unbound',
        vnic_type: 'normal',
        status: 'INACTIVE',
        profile: { a: 1 },
        vif_details: {},
      });

      assert.equal((await api.admin.delete(`${base}/node1`)).status, 204);
      r = await api.admin.delete(`${base}/node1`);
      assert.equal(r.status, 404);
      assert.equal(r.body.NeutronError.type, 'PortBindingNotFound');
      assert.equal(r.body.NeutronError.message, `Binding for port ${p.id} for host node1 could not be found.`);
      assert.deepEqual(
        (await api.admin.get(base)).body.bindings.map((b: Json) => `${b.host}:${b.status}`),
        ['node2:ACTIVE'],
      );
    });

    it('activating a host without an inactive binding is PortBindingNotFound', async () => {
      const p = await port({ 'binding:host_id': 'node1' });
      const r = await api.admin.request('PUT', `/v2.0/ports/${p.id}/bindings/node2/activate`);
      assert.equal(r.status, 404);
      assert.equal(r.body.NeutronError.type, 'PortBindingNotFound');
      assert.equal((await api.admin.get(`/v2.0/ports/${p.id}/bindings/node2`)).status, 404);
    });

    it('a host no driver binds is PortBindingError and writes nothing', async () => {
      const p = await port({ 'binding:host_id': 'node1' });
      const r = await api.admin.post(`/v2.0/ports/${p.id}/bindings`, { binding: { host: 'nowhere' } });
      assert.equal(r.status, 500);
      assert.equal(r.body.NeutronError.type, 'PortBindingError');
      assert.equal((await api.admin.get(`/v2.0/ports/${p.id}/bindings`)).body.bindings.length, 1);
    });

    it('updating a binding: inactive rebinds it; the active one moves the port attributes', async () => {
      const p = await port({ 'binding:host_id': 'node1' });
      const base = `/v2.0/ports/${p.id}/bindings`;
      await api.admin.post(base, { binding: { host: 'node2' } });
      let r = await api.admin.put(`${base}/node2`, { binding: { profile: { x: 'y' } } });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body.binding.profile, { x: 'y' });
      assert.equal(r.body.binding.status, 'INACTIVE');
      r = await api.admin.put(`${base}/node1`, { binding: { vnic_type: 'direct' } });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.binding.vnic_type, 'direct');
      assert.equal((await api.admin.get(`/v2.0/ports/${p.id}`)).body.port['binding:vnic_type'], 'direct');
      r = await api.admin.put(`${base}/node3`, { binding: { vnic_type: 'normal' } });
      assert.equal(r.status, 404);
      r = await api.admin.put(`${base}/node2`, { binding: { vnic_type: 'bogus' } });
      assert.equal(r.status, 400);
    });

    it('deleting the port deletes its bindings; a missing port is PortNotFound', async () => {
      const p = await port({ 'binding:host_id': 'node1' });
      await api.admin.post(`/v2.0/ports/${p.id}/bindings`, { binding: { host: 'node2' } });
      assert.equal((await api.admin.delete(`/v2.0/ports/${p.id}`)).status, 204);
      const r = await api.admin.get(`/v2.0/ports/${p.id}/bindings`);
      assert.equal(r.status, 404);
      assert.equal(r.body.NeutronError.type, 'PortNotFound');
    });

    it('only compute ports, only admins; a body needs a host', async () => {
      const plain = (await api.admin.post('/v2.0/ports', { port: { network_id: networkId } })).body.port;
      let r = await api.admin.post(`/v2.0/ports/${plain.id}/bindings`, { binding: { host: 'node1' } });
      assert.equal(r.status, 400);
      assert.equal(r.body.NeutronError.type, 'BadRequest');
      assert.equal(
        r.body.NeutronError.message,
        `Bad port request: Invalid port ${plain.id}. Operation only valid on compute ports.`,
      );
      const p = await port();
      r = await api.admin.get(`/v2.0/ports/${p.id}/bindings`);
      // A never-bound port shows its unbound active binding.
      assert.deepEqual(r.body.bindings, [
        { host: '', vif_type: 'unbound', vnic_type: 'normal', status: 'ACTIVE', profile: {}, vif_details: {} },
      ]);
      r = await api.admin.post(`/v2.0/ports/${p.id}/bindings`, { binding: {} });
      assert.equal(r.status, 400);
      const member = api.as({ project: newProjectId() });
      r = await member.post(`/v2.0/ports/${p.id}/bindings`, { binding: { host: 'node1' } });
      assert.equal(r.status, 403);
      assert.equal(r.body.NeutronError.type, 'PolicyNotAuthorized');
    });
  });
}
