/**
 * RBAC policies on QoS policies (`object_type: qos_policy`): sharing with one project or all,
 * `shared` as the caller sees it, the wildcard entry behind `shared`, the owner-only rule, and the
 * in-use refusals when a project's network depends on a share (Neutron's `rbac_db.py`).
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { BACKENDS, newProjectId, useApi, type Client } from '../fixtures/api.js';
import type { Json } from '../fixtures/json.js';

const ADMIN_ROLES = ['admin', 'member', 'reader'];

for (const backend of BACKENDS) {
  describe(`RBAC policies on QoS policies (${backend})`, () => {
    const api = useApi(backend);
    const A = newProjectId();
    const B = newProjectId();
    const C = newProjectId();
    let admin: Client;
    let a: Client;
    let b: Client;
    let c: Client;

    before(() => {
      admin = api.as({ project: A, roles: ADMIN_ROLES });
      a = api.as({ project: A });
      b = api.as({ project: B });
      c = api.as({ project: C });
    });

    const newPolicy = async (body: Json = {}): Promise<Json> => {
      const r = await admin.post('/v2.0/qos/policies', { policy: { name: 'p', ...body } });
      assert.equal(r.status, 201, r.text);
      return r.body.policy;
    };
    const share = (client: Client, policyId: string, target: string, action = 'access_as_shared') =>
      client.post('/v2.0/rbac-policies', {
        rbac_policy: { object_type: 'qos_policy', object_id: policyId, action, target_tenant: target },
      });

    it('shares a policy with one project: it sees the policy as shared, a third project does not see it', async () => {
      const policy = await newPolicy();
      assert.equal((await b.get(`/v2.0/qos/policies/${policy.id}`)).status, 404);
      const r = await share(admin, policy.id, B);
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(r.body.rbac_policy, {
        id: r.body.rbac_policy.id,
        project_id: A,
        tenant_id: A,
        action: 'access_as_shared',
        object_id: policy.id,
        object_type: 'qos_policy',
        target_tenant: B,
      });
      const seen = await b.get(`/v2.0/qos/policies/${policy.id}`);
      assert.equal(seen.status, 200, seen.text);
      assert.equal(seen.body.policy.shared, true, 'shared with the caller');
      assert.equal((await a.get(`/v2.0/qos/policies/${policy.id}`)).body.policy.shared, false, 'not with the owner');
      assert.equal((await c.get(`/v2.0/qos/policies/${policy.id}`)).status, 404);
      assert.deepEqual(
        (await b.get('/v2.0/qos/policies')).body.policies.map((p: Json) => p.id),
        [policy.id],
      );
      const listed = await admin.get(`/v2.0/rbac-policies?object_type=qos_policy&object_id=${policy.id}`);
      assert.deepEqual(
        listed.body.rbac_policies.map((p: Json) => p.id),
        [r.body.rbac_policy.id],
      );
      assert.deepEqual(
        (await admin.get(`/v2.0/rbac-policies?object_type=network&object_id=${policy.id}`)).body.rbac_policies,
        [],
      );
      // The target does not see the entry: it belongs to the policy's project.
      assert.deepEqual((await b.get('/v2.0/rbac-policies')).body.rbac_policies, []);
      const retargeted = await admin.put(`/v2.0/rbac-policies/${r.body.rbac_policy.id}`, {
        rbac_policy: { target_tenant: C },
      });
      assert.equal(retargeted.status, 200, retargeted.text);
      assert.equal(retargeted.body.rbac_policy.target_tenant, C);
      assert.equal((await b.get(`/v2.0/qos/policies/${policy.id}`)).status, 404);
      assert.equal((await c.get(`/v2.0/qos/policies/${policy.id}`)).status, 200);
    });

    it('refuses other actions, duplicates, and a non-owner sharing', async () => {
      const policy = await newPolicy();
      const external = await share(admin, policy.id, B, 'access_as_external');
      assert.equal(external.status, 400);
      assert.equal(external.body.NeutronError.type, 'InvalidActionForType');
      assert.equal(
        external.body.NeutronError.message,
        "Invalid action 'access_as_external' for object type 'qos_policy'. Valid actions: ('access_as_shared',)",
      );
      assert.equal((await share(admin, policy.id, B)).status, 201);
      const twice = await share(admin, policy.id, B);
      assert.equal(twice.status, 409);
      assert.equal(twice.body.NeutronError.type, 'DuplicateRbacPolicy');
      const byB = await share(b, policy.id, C);
      assert.equal(byB.status, 400, byB.text);
      assert.equal(
        byB.body.NeutronError.message,
        'Invalid input for operation: Only admins can manipulate policies on objects they do not own.',
      );
    });

    it('`shared: true` is the wildcard entry, owned by the caller’s project; unsharing removes it', async () => {
      const policy = await newPolicy({ shared: true });
      const wildcard = async () =>
        (await admin.get(`/v2.0/rbac-policies?object_id=${policy.id}&target_tenant=*`)).body.rbac_policies as Json[];
      assert.deepEqual(
        (await wildcard()).map((p) => [p.object_type, p.project_id, p.action]),
        [['qos_policy', A, 'access_as_shared']],
      );
      assert.equal((await c.get(`/v2.0/qos/policies/${policy.id}`)).body.policy.shared, true);
      assert.equal((await admin.put(`/v2.0/qos/policies/${policy.id}`, { policy: { shared: false } })).status, 200);
      assert.deepEqual(await wildcard(), []);
      assert.equal((await c.get(`/v2.0/qos/policies/${policy.id}`)).status, 404);
      // A wildcard entry made through /rbac-policies is `shared` too; deleting it unshares.
      const made = await share(admin, policy.id, '*');
      assert.equal((await admin.get(`/v2.0/qos/policies/${policy.id}`)).body.policy.shared, true);
      assert.equal(
        (await admin.get('/v2.0/qos/policies?shared=true')).body.policies.some((p: Json) => p.id === policy.id),
        true,
      );
      assert.equal((await admin.delete(`/v2.0/rbac-policies/${made.body.rbac_policy.id}`)).status, 204);
      assert.equal((await admin.get(`/v2.0/qos/policies/${policy.id}`)).body.policy.shared, false);
    });

    it('keeps the share a project’s network depends on, unless a wildcard covers it', async () => {
      const policy = await newPolicy();
      const toB = (await share(admin, policy.id, B)).body.rbac_policy;
      const net = await b.post('/v2.0/networks', { network: { name: 'n', qos_policy_id: policy.id } });
      assert.equal(net.status, 201, net.text);
      const refused = await admin.delete(`/v2.0/rbac-policies/${toB.id}`);
      assert.equal(refused.status, 409);
      assert.equal(refused.body.NeutronError.type, 'RbacPolicyInUse');
      assert.equal(
        refused.body.NeutronError.message,
        `RBAC policy on object ${policy.id} cannot be removed because other objects depend on it.\nDetails: project_id=${B}`,
      );
      const wild = (await share(admin, policy.id, '*')).body.rbac_policy;
      assert.equal((await admin.delete(`/v2.0/rbac-policies/${toB.id}`)).status, 204);
      assert.equal((await admin.delete(`/v2.0/rbac-policies/${wild.id}`)).status, 409);
      const moved = await admin.put(`/v2.0/rbac-policies/${wild.id}`, { rbac_policy: { target_tenant: C } });
      assert.equal(moved.status, 409);
      const unshare = await admin.put(`/v2.0/qos/policies/${policy.id}`, { policy: { shared: false } });
      assert.equal(unshare.status, 409);
      assert.equal(unshare.body.NeutronError.type, 'RbacPolicyInUse');
      assert.equal((await b.delete(`/v2.0/networks/${net.body.network.id}`)).status, 204);
      assert.equal((await admin.delete(`/v2.0/rbac-policies/${wild.id}`)).status, 204);
    });

    it('the owner’s own network keeps the wildcard too (`shared: false` refused), and deleting the policy drops its entries', async () => {
      const policy = await newPolicy({ shared: true });
      const net = await admin.post('/v2.0/networks', { network: { name: 'own', qos_policy_id: policy.id } });
      assert.equal(net.status, 201, net.text);
      assert.equal((await admin.put(`/v2.0/qos/policies/${policy.id}`, { policy: { shared: false } })).status, 409);
      assert.equal((await admin.delete(`/v2.0/networks/${net.body.network.id}`)).status, 204);
      assert.equal((await admin.delete(`/v2.0/qos/policies/${policy.id}`)).status, 204);
      assert.deepEqual((await admin.get(`/v2.0/rbac-policies?object_id=${policy.id}`)).body.rbac_policies, []);
    });
  });
}
