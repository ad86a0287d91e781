/** Networks over HTTP: create, show, list, update, delete, provider networks, errors; on both stores. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BACKENDS, newProjectId, useApi } from '../fixtures/api.js';

for (const backend of BACKENDS) {
  describe(`networks (${backend})`, () => {
    const api = useApi(backend);

    it('creates a tenant network with a geneve segment and Neutron defaults', async () => {
      const project = newProjectId();
      const r = await api.as({ project }).post('/v2.0/networks', { network: { name: 'n1' } });
      assert.equal(r.status, 201, r.text);
      const net = r.body.network;
      assert.equal(net.name, 'n1');
      assert.equal(net.project_id, project);
      assert.equal(net.tenant_id, project);
      assert.equal(net.mtu, 1442);
      assert.equal(net.status, 'ACTIVE');
      assert.equal(net.admin_state_up, true);
      assert.equal(net.shared, false);
      assert.equal(net['router:external'], false);
      assert.deepEqual(net.subnets, []);
      assert.match(net.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      assert.ok(!('provider:network_type' in net), 'provider attributes are admin-only');
      const admin = await api.admin.get(`/v2.0/networks/${net.id}`);
      assert.equal(admin.body.network['provider:network_type'], 'geneve');
      assert.equal(typeof admin.body.network['provider:segmentation_id'], 'number');
    });

    it('refuses provider attributes from a non-admin with the policy rule tree', async () => {
      const r = await api.as({ project: newProjectId() }).post('/v2.0/networks', {
        network: { name: 'x', 'provider:network_type': 'vlan' },
      });
      assert.equal(r.status, 403);
      assert.deepEqual(r.body, {
        NeutronError: {
          type: 'PolicyNotAuthorized',
          message: '(rule:create_network and rule:create_network:provider:network_type) is disallowed by policy',
          detail: '',
        },
      });
    });

    it('is_default: one default external network, admin-only, printed on external networks (as Zed)', async () => {
      const external = async (name: string) => {
        const r = await api.admin.post('/v2.0/networks', { network: { name, 'router:external': true } });
        assert.equal(r.status, 201, r.text);
        assert.equal(r.body.network.is_default, false);
        return r.body.network.id as string;
      };
      const first = await external('ext-default-1');
      const second = await external('ext-default-2');
      const internal = await api.admin.post('/v2.0/networks', { network: { name: 'internal' } });
      assert.equal(internal.body.network.is_default, false, 'a create answer carries it, as Zed');
      const shownInternal = await api.admin.get(`/v2.0/networks/${internal.body.network.id}`);
      assert.ok(!('is_default' in shownInternal.body.network), 'show: external networks only');
      const named = await api.admin.put(`/v2.0/networks/${internal.body.network.id}`, {
        network: { is_default: false },
      });
      assert.equal(named.body.network.is_default, false, 'an update naming it answers with it, as Zed');

      const member = await api.as({ project: newProjectId() }).put(`/v2.0/networks/${first}`, {
        network: { is_default: true },
      });
      assert.equal(member.status, 403, 'visible to all, changeable by admins only');
      const set = await api.admin.put(`/v2.0/networks/${first}`, { network: { is_default: true } });
      assert.equal(set.status, 200, set.text);
      assert.equal(set.body.network.is_default, true);
      assert.equal((await api.admin.get(`/v2.0/networks/${first}`)).body.network.is_default, true);

      const refused = await api.admin.put(`/v2.0/networks/${second}`, { network: { is_default: true } });
      assert.equal(refused.status, 409, refused.text);
      assert.deepEqual(refused.body.NeutronError.type, 'DefaultExternalNetworkExists');
      assert.equal(refused.body.NeutronError.message, `A default external network already exists: ${first}.`);
      assert.equal((await api.admin.get(`/v2.0/networks/${second}`)).body.network.is_default, false);

      // The default external network's wildcard access_as_external entry cannot go.
      const rbac = await api.admin.get(
        `/v2.0/rbac-policies?object_id=${first}&action=access_as_external&target_tenant=*`,
      );
      const policy = rbac.body.rbac_policies[0].id as string;
      assert.equal((await api.admin.delete(`/v2.0/rbac-policies/${policy}`)).status, 409);

      const unset = await api.admin.put(`/v2.0/networks/${first}`, { network: { is_default: false } });
      assert.equal(unset.body.network.is_default, false);
      const now = await api.admin.put(`/v2.0/networks/${second}`, { network: { is_default: true } });
      assert.equal(now.status, 200, now.text);
      await api.admin.put(`/v2.0/networks/${second}`, { network: { is_default: false } });
    });

    it('is_default: of concurrent requests naming different networks the default, exactly one wins', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) {
        const r = await api.admin.post('/v2.0/networks', {
          network: { name: `ext-race-${i}`, 'router:external': true },
        });
        ids.push(r.body.network.id as string);
      }
      const answers = await Promise.all(
        ids.map((id) => api.admin.put(`/v2.0/networks/${id}`, { network: { is_default: true } })),
      );
      assert.deepEqual(answers.map((r) => r.status).sort(), [200, 409, 409, 409]);
      const defaults = (await api.admin.get('/v2.0/networks?router:external=true')).body.networks.filter(
        (n: { is_default?: boolean }) => n.is_default === true,
      );
      assert.equal(defaults.length, 1);
      for (const id of ids) await api.admin.delete(`/v2.0/networks/${id}`);
    });

    it("hides another project's network (404, not 403)", async () => {
      const a = api.as({ project: newProjectId() });
      const b = api.as({ project: newProjectId() });
      const net = (await a.post('/v2.0/networks', { network: { name: 'private' } })).body.network;
      const show = await b.get(`/v2.0/networks/${net.id}`);
      assert.equal(show.status, 404);
      assert.equal(show.body.NeutronError.type, 'NetworkNotFound');
      assert.equal((await b.put(`/v2.0/networks/${net.id}`, { network: { name: 'stolen' } })).status, 404);
      assert.equal((await b.delete(`/v2.0/networks/${net.id}`)).status, 404);
      const list = await b.get('/v2.0/networks');
      assert.ok(!list.body.networks.some((n: { id: string }) => n.id === net.id));
    });
  });
}
