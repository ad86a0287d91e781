/**
 * RBAC policies on networks (`/v2.0/rbac-policies`): sharing with one project or all, external
 * access, the owner-only and admin-only rules, in-use protection, quotas and Neutron's errors.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { BACKENDS, newProjectId, useApi, type Client } from '../fixtures/api.js';
import type { Json } from '../fixtures/json.js';

for (const backend of BACKENDS) {
  describe(`RBAC policies (${backend})`, () => {
    const api = useApi(backend);
    const A = newProjectId();
    const B = newProjectId();
    const C = newProjectId();
    let a: Client;
    let b: Client;
    let c: Client;
    let net: Json;

    before(async () => {
      a = api.as({ project: A });
      b = api.as({ project: B });
      c = api.as({ project: C });
      net = (await a.post('/v2.0/networks', { network: { name: 'a-net' } })).body.network;
      await a.post('/v2.0/subnets', { subnet: { network_id: net.id, cidr: '10.90.0.0/24', ip_version: 4 } });
    });

    const share = (client: Client, body: Record<string, unknown>) =>
      client.post('/v2.0/rbac-policies', {
        rbac_policy: { object_type: 'network', object_id: net.id, action: 'access_as_shared', ...body },
      });

    let toB: Json;

    it('the owner shares its network with one project: that project sees it as shared, others do not', async () => {
      const r = await share(a, { target_tenant: B });
      assert.equal(r.status, 201, r.text);
      toB = r.body.rbac_policy;
      assert.deepEqual(Object.keys(toB).sort(), [
        'action',
        'id',
        'object_id',
        'object_type',
        'project_id',
        'target_tenant',
        'tenant_id',
      ]);
      assert.equal(toB.project_id, A);
      assert.equal(toB.target_tenant, B);
      const seen = await b.get(`/v2.0/networks/${net.id}`);
      assert.equal(seen.status, 200);
      assert.equal(seen.body.network.shared, true, 'shared from the point of view of B');
      assert.equal((await a.get(`/v2.0/networks/${net.id}`)).body.network.shared, false);
      assert.equal((await c.get(`/v2.0/networks/${net.id}`)).status, 404);
      assert.ok((await a.get(`/v2.0/networks/${net.id}`)).body.network.revision_number > net.revision_number);
    });

    it('policies are visible to their project and to admins only', async () => {
      assert.deepEqual(
        (await a.get('/v2.0/rbac-policies')).body.rbac_policies.map((p: Json) => p.id),
        [toB.id],
      );
      assert.deepEqual((await b.get('/v2.0/rbac-policies')).body.rbac_policies, []);
      assert.equal((await b.get(`/v2.0/rbac-policies/${toB.id}`)).status, 404);
      const admin = await api.admin.get(`/v2.0/rbac-policies?object_id=${net.id}&target_tenant=${B}`);
      assert.deepEqual(
        admin.body.rbac_policies.map((p: Json) => p.id),
        [toB.id],
      );
    });

    it('a policy still in use cannot be withdrawn; once the port is gone it can', async () => {
      const port = (await b.post('/v2.0/ports', { port: { network_id: net.id } })).body.port;
      assert.ok(port, 'B may create a port on the network shared with it');
      let r = await a.delete(`/v2.0/rbac-policies/${toB.id}`);
      assert.equal(r.status, 409);
      assert.equal(r.body.NeutronError.type, 'RbacPolicyInUse');
      r = await a.put(`/v2.0/rbac-policies/${toB.id}`, { rbac_policy: { target_tenant: C } });
      assert.equal(r.status, 409, 'nor moved to another project');
      assert.equal((await b.delete(`/v2.0/ports/${port.id}`)).status, 204);
      r = await a.put(`/v2.0/rbac-policies/${toB.id}`, { rbac_policy: { target_tenant: C } });
      assert.equal(r.status, 200);
      assert.equal(r.body.rbac_policy.target_tenant, C);
      assert.equal((await c.get(`/v2.0/networks/${net.id}`)).status, 200);
      assert.equal((await b.get(`/v2.0/networks/${net.id}`)).status, 404);
      assert.equal((await a.delete(`/v2.0/rbac-policies/${toB.id}`)).status, 204);
      assert.equal((await c.get(`/v2.0/networks/${net.id}`)).status, 404);
    });

    it("only admins share with everyone; the wildcard is the network's shared flag", async () => {
      let r = await share(a, { target_tenant: '*' });
      assert.equal(r.status, 403);
      r = await share(api.admin, { target_tenant: '*' });
      assert.equal(r.status, 201);
      assert.equal((await c.get(`/v2.0/networks/${net.id}`)).body.network.shared, true);
      assert.equal((await api.admin.delete(`/v2.0/rbac-policies/${r.body.rbac_policy.id}`)).status, 204);
      assert.equal((await api.admin.get(`/v2.0/networks/${net.id}`)).body.network.shared, false);
    });

    it("only the owner (or an admin) writes policies on a network; another project's is not found", async () => {
      const shared = await share(a, { target_tenant: B });
      let r = await share(b, { target_tenant: C });
      assert.equal(r.status, 400);
      assert.equal(
        r.body.NeutronError.message,
        'Invalid input for operation: Only admins can manipulate policies on networks they do not own.',
      );
      r = await share(c, { target_tenant: C });
      assert.equal(r.status, 404);
      assert.equal(r.body.NeutronError.type, 'NetworkNotFound');
      assert.equal((await a.delete(`/v2.0/rbac-policies/${shared.body.rbac_policy.id}`)).status, 204);
    });

    it("Neutron's errors: duplicate, invalid action, object type and target", async () => {
      const first = await share(a, { target_tenant: B });
      let r = await share(a, { target_tenant: B });
      assert.equal(r.status, 409);
      assert.equal(r.body.NeutronError.type, 'DuplicateRbacPolicy');
      r = await share(a, { target_tenant: C, action: 'access_as_owner' });
      assert.equal(r.status, 400);
      assert.equal(r.body.NeutronError.type, 'InvalidActionForType');
      assert.equal(
        r.body.NeutronError.message,
        "Invalid action 'access_as_owner' for object type 'network'. Valid actions: ('access_as_shared', 'access_as_external')",
      );
      r = await share(a, { target_tenant: C, object_type: 'qos_frobnicator' });
      assert.equal(r.status, 400);
      assert.equal(
        r.body.NeutronError.message,
        "Invalid input for operation: 'qos_frobnicator' is not a valid RBAC object type.",
      );
      r = await share(a, { target_tenant: 'not-a-project' });
      assert.equal(r.status, 400);
      assert.match(
        r.body.NeutronError.message,
        /'not-a-project' is not a valid target project ID; expected a UUID or '\*'/,
      );
      assert.equal((await a.delete(`/v2.0/rbac-policies/${first.body.rbac_policy.id}`)).status, 204);
    });

    it('an external policy makes the network external for its target; the last one gone, it is internal', async () => {
      const r = await share(api.admin, { target_tenant: B, action: 'access_as_external' });
      assert.equal(r.status, 201);
      const seen = await b.get(`/v2.0/networks/${net.id}`);
      assert.equal(seen.status, 200);
      assert.equal(seen.body.network['router:external'], true);
      assert.equal((await c.get(`/v2.0/networks/${net.id}`)).status, 404, 'external for B only');
      assert.equal((await api.admin.delete(`/v2.0/rbac-policies/${r.body.rbac_policy.id}`)).status, 204);
      assert.equal((await api.admin.get(`/v2.0/networks/${net.id}`)).body.network['router:external'], false);
    });

    it("an external policy a project's router gateway depends on cannot be withdrawn (RbacPolicyInUse)", async () => {
      const ext = (await api.admin.post('/v2.0/networks', { network: { name: 'ext-for-b' } })).body.network;
      await api.admin.post('/v2.0/subnets', {
        subnet: { network_id: ext.id, cidr: '172.30.0.0/24', ip_version: 4, enable_dhcp: false },
      });
      const post = (target: string) =>
        api.admin.post('/v2.0/rbac-policies', {
          rbac_policy: {
            object_type: 'network',
            object_id: ext.id,
            action: 'access_as_external',
            target_tenant: target,
          },
        });
      const forB = (await post(B)).body.rbac_policy;
      // Offered to B only, the network is external to B: B's router may use it as its gateway.
      const router = await b.post('/v2.0/routers', {
        router: { name: 'b-router', external_gateway_info: { network_id: ext.id } },
      });
      assert.equal(router.status, 201, router.text);
      const inUse = {
        NeutronError: {
          type: 'RbacPolicyInUse',
          message: `RBAC policy on object ${ext.id} cannot be removed because other objects depend on it.\nDetails: There are routers attached to this network that depend on this policy for access.`,
          detail: '',
        },
      };
      let r = await api.admin.delete(`/v2.0/rbac-policies/${forB.id}`);
      assert.deepEqual([r.status, r.body], [409, inUse]);
      r = await api.admin.put(`/v2.0/rbac-policies/${forB.id}`, { rbac_policy: { target_tenant: C } });
      assert.deepEqual([r.status, r.body], [409, inUse]);
      // With a wildcard entry, B's own entry is not needed; without B's entry, the wildcard is.
      const all = (await post('*')).body.rbac_policy;
      assert.equal((await api.admin.delete(`/v2.0/rbac-policies/${forB.id}`)).status, 204);
      r = await api.admin.delete(`/v2.0/rbac-policies/${all.id}`);
      assert.deepEqual([r.status, r.body], [409, inUse]);
      r = await api.admin.put(`/v2.0/rbac-policies/${all.id}`, { rbac_policy: { target_tenant: B } });
      assert.equal(r.status, 200, r.text);
      // The gateway gone, nothing depends on the policy.
      const cleared = await b.put(`/v2.0/routers/${router.body.router.id}`, { router: { external_gateway_info: {} } });
      assert.equal(cleared.status, 200, cleared.text);
      assert.equal((await api.admin.delete(`/v2.0/rbac-policies/${all.id}`)).status, 204);
      assert.equal((await api.admin.get(`/v2.0/networks/${ext.id}`)).body.network['router:external'], false);
    });

    it('policies count against the rbac_policy quota', async () => {
      const owner = newProjectId();
      const o = api.as({ project: owner });
      await api.admin.put(`/v2.0/quotas/${owner}`, { quota: { rbac_policy: 2 } });
      const own = (await o.post('/v2.0/networks', { network: { name: 'q' } })).body.network;
      const post = (target: string) =>
        o.post('/v2.0/rbac-policies', {
          rbac_policy: { object_type: 'network', object_id: own.id, action: 'access_as_shared', target_tenant: target },
        });
      assert.equal((await post(newProjectId())).status, 201);
      assert.equal((await post(newProjectId())).status, 201);
      const over = await post(newProjectId());
      assert.equal(over.status, 409);
      assert.equal(over.body.NeutronError.type, 'OverQuota');
    });
  });
}
