/**
 * The quotas API over HTTP: limits, defaults, details, listing, updates with their validation and
 * usage check, resets, policy, and OverQuota on create; on both stores.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BACKENDS, newProjectId, useApi, type Response } from '../fixtures/api.js';
import type { Json } from '../fixtures/json.js';

/** Neutron master's defaults, in its key order (ML2/OVN with the L3 plugin, no trunk plugin). */
const DEFAULTS = {
  network: 100,
  subnet: 100,
  subnetpool: -1,
  port: 500,
  router_route: 30,
  router: 10,
  floatingip: 50,
  rbac_policy: 10,
  security_group: 10,
  security_group_rule: 100,
};

function assertError(r: Response, status: number, type: string, message: string): void {
  assert.equal(r.status, status, r.text);
  assert.deepEqual(r.body, { NeutronError: { type, message, detail: '' } });
}

for (const backend of BACKENDS) {
  describe(`quotas (${backend})`, () => {
    const api = useApi(backend);
    const member = (project: string) => api.as({ project });
    const setQuota = (project: string, quota: Record<string, unknown>) =>
      api.admin.put(`/v2.0/quotas/${project}`, { quota });

    it('shows the defaults, in Neutron order, for a project without limits of its own', async () => {
      const project = newProjectId();
      const own = await member(project).get(`/v2.0/quotas/${project}`);
      assert.equal(own.status, 200, own.text);
      assert.deepEqual(own.body, { quota: DEFAULTS });
      assert.deepEqual(Object.keys(own.body.quota), Object.keys(DEFAULTS));
      const byAdmin = await api.admin.get(`/v2.0/quotas/${project}`);
      assert.deepEqual(byAdmin.body, { quota: DEFAULTS });
      const defaults = await api.admin.get(`/v2.0/quotas/${project}/default`);
      assert.deepEqual(defaults.body, { quota: DEFAULTS });
      const ownDefaults = await member(project).get(`/v2.0/quotas/${project}/default`);
      assert.deepEqual(ownDefaults.body, { quota: DEFAULTS });
      assert.deepEqual((await member(project).get(`/v2.0/quotas/${project}.json`)).body, { quota: DEFAULTS });
    });

    it('names the caller project at /quotas/project and /quotas/tenant', async () => {
      const project = newProjectId();
      assert.deepEqual((await member(project).get('/v2.0/quotas/project')).body, { project: { project_id: project } });
      assert.deepEqual((await member(project).get('/v2.0/quotas/tenant')).body, { tenant: { tenant_id: project } });
      assert.deepEqual((await api.admin.get('/v2.0/quotas/project')).body, {
        project: { project_id: 'fake_project_id' },
      });
    });

    it('updates only the given limits and returns the full set; the list holds projects with limits', async () => {
      const project = newProjectId();
      const r = await setQuota(project, { network: 1, port: 5 });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body, { quota: { ...DEFAULTS, network: 1, port: 5 } });
      assert.deepEqual(Object.keys(r.body.quota), Object.keys(DEFAULTS));
      assert.deepEqual((await member(project).get(`/v2.0/quotas/${project}`)).body, {
        quota: { ...DEFAULTS, network: 1, port: 5 },
      });
      const list = await api.admin.get('/v2.0/quotas');
      assert.equal(list.status, 200);
      const entry = list.body.quotas.find((q: { project_id: string }) => q.project_id === project);
      assert.deepEqual(entry, { ...DEFAULTS, network: 1, port: 5, project_id: project, tenant_id: project });
      assert.deepEqual(Object.keys(entry), [...Object.keys(DEFAULTS), 'project_id', 'tenant_id']);
      const untouched = newProjectId();
      await member(untouched).get(`/v2.0/quotas/${untouched}`);
      const again = await api.admin.get('/v2.0/quotas');
      assert.ok(!again.body.quotas.some((q: { project_id: string }) => q.project_id === untouched));
    });

    it('converts values as int() does and accepts 0, -1 and an empty quota', async () => {
      const project = newProjectId();
      const r = await setQuota(project, { network: '7', subnet: 2.9, port: true, router: 0, floatingip: -1 });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body.quota, { ...DEFAULTS, network: 7, subnet: 2, port: 1, router: 0, floatingip: -1 });
      const empty = await setQuota(project, {});
      assert.equal(empty.status, 200);
      assert.deepEqual(empty.body, r.body);
    });

    it('refuses OverQuota on network create once the limit is reached', async () => {
      const project = newProjectId();
      assert.equal((await setQuota(project, { network: 1 })).status, 200);
      const first = await member(project).post('/v2.0/networks', { network: { name: 'quota-1' } });
      assert.equal(first.status, 201, first.text);
      const second = await member(project).post('/v2.0/networks', { network: { name: 'quota-2' } });
      assertError(second, 409, 'OverQuota', "Quota exceeded for resources: ['network'].");
      const bulk = newProjectId();
      await setQuota(bulk, { network: 1 });
      const both = await member(bulk).post('/v2.0/networks', { networks: [{ name: 'a' }, { name: 'b' }] });
      assertError(both, 409, 'OverQuota', "Quota exceeded for resources: ['network'].");
      assert.deepEqual((await member(bulk).get('/v2.0/networks')).body.networks, []);
    });

    it('details count networks, the default security group and its four rules', async () => {
      const project = newProjectId();
      const before = await member(project).get(`/v2.0/quotas/${project}/details`);
      assert.equal(before.status, 200, before.text);
      assert.deepEqual(Object.keys(before.body.quota), Object.keys(DEFAULTS));
      for (const [resource, limit] of Object.entries(DEFAULTS)) {
        assert.deepEqual(before.body.quota[resource], { limit, used: 0, reserved: 0 }, resource);
      }
      await setQuota(project, { network: 5 });
      await member(project).post('/v2.0/networks', { network: { name: 'a' } });
      await member(project).post('/v2.0/networks', { network: { name: 'b' } });
      const after = await api.admin.get(`/v2.0/quotas/${project}/details`);
      assert.deepEqual(after.body.quota.network, { limit: 5, used: 2, reserved: 0 });
      assert.deepEqual(after.body.quota.security_group, { limit: 10, used: 1, reserved: 0 });
      assert.deepEqual(after.body.quota.security_group_rule, { limit: 100, used: 4, reserved: 0 });
      assert.deepEqual(after.body.quota.router_route, { limit: 30, used: 0, reserved: 0 });
    });

    it('counts the RBAC policy of a shared network against rbac_policy', async () => {
      const project = newProjectId();
      const r = await api.admin.post('/v2.0/networks', { network: { name: 's', shared: true, project_id: project } });
      assert.equal(r.status, 201, r.text);
      const details = await api.admin.get(`/v2.0/quotas/${project}/details`);
      assert.deepEqual(details.body.quota.rbac_policy, { limit: 10, used: 1, reserved: 0 });
    });

    it('refuses a limit below current usage only when check_limit is true, as Zed', async () => {
      const project = newProjectId();
      await member(project).post('/v2.0/networks', { network: { name: 'n' } });
      const message = 'Quota limit 3 for security_group_rule must be greater than or equal to already used 4';
      assertError(
        await setQuota(project, { security_group_rule: 3, check_limit: true }),
        400,
        'HTTPBadRequest',
        message,
      );
      assertError(
        await setQuota(project, { network: 0, check_limit: true }),
        400,
        'HTTPBadRequest',
        'Quota limit 0 for network must be greater than or equal to already used 1',
      );
      assert.deepEqual((await api.admin.get(`/v2.0/quotas/${project}`)).body.quota, DEFAULTS, 'nothing was written');
      const equal = await setQuota(project, { network: 1, security_group: -1, check_limit: true });
      assert.equal(equal.status, 200, equal.text);
      // Without check_limit (force or not) the limit is set, below usage or not.
      const below = await setQuota(project, { security_group_rule: 3 });
      assert.equal(below.status, 200, below.text);
      assert.equal(below.body.quota.security_group_rule, 3);
      const forced = await setQuota(project, { security_group_rule: 2, force: true });
      assert.equal(forced.status, 200, forced.text);
      assert.equal(forced.body.quota.security_group_rule, 2);
    });

    it('validates the body', async () => {
      const project = newProjectId();
      const put = (body: unknown) => api.admin.put(`/v2.0/quotas/${project}`, body);
      assertError(await setQuota(project, { foo: 1 }), 400, 'HTTPBadRequest', "Unrecognized attribute(s) 'foo'");
      assertError(await setQuota(project, { trunk: 1 }), 400, 'HTTPBadRequest', "Unrecognized attribute(s) 'trunk'");
      assertError(
        await setQuota(project, { network: 'abc' }),
        400,
        'InvalidInput',
        "Invalid input for operation: 'abc' is not an integer.",
      );
      assertError(
        await setQuota(project, { network: null }),
        400,
        'InvalidInput',
        "Invalid input for operation: 'None' is not an integer.",
      );
      assertError(
        await setQuota(project, { network: -2 }),
        400,
        'HTTPBadRequest',
        "Invalid input for network. Reason: '-2' is too small - must be at least '-1'.",
      );
      assertError(
        await setQuota(project, { port: 2147483648 }),
        400,
        'HTTPBadRequest',
        "Invalid input for port. Reason: '2147483648' is too large - must be no larger than '2147483647'.",
      );
      assertError(await put(undefined), 400, 'HTTPBadRequest', 'Resource body required');
      assertError(await put({}), 400, 'HTTPBadRequest', 'Resource body required');
      assertError(await put({ quota: null }), 400, 'HTTPBadRequest', "Unable to find 'quota' in request body");
      assertError(await put({ quota: [] }), 400, 'HTTPBadRequest', "Object 'quota' contains invalid data");
      assertError(await put({ quotas: {} }), 400, 'HTTPBadRequest', 'Bulk operation not supported');
      assertError(await put('{"quota": '), 400, 'HTTPBadRequest', 'Body contains invalid data');
      const unrecognized = await setQuota(project, { project_id: project });
      assert.equal(unrecognized.status, 400);
      assert.match(unrecognized.body.NeutronError.message, /^Unrecognized attribute\(s\) '/);
      assert.equal(
        (await api.admin.get('/v2.0/quotas')).body.quotas.some((q: Json) => q.project_id === project),
        false,
      );
    });

    it('resets a project to the defaults; a project without limits is TenantQuotaNotFound', async () => {
      const project = newProjectId();
      await setQuota(project, { network: 3 });
      const r = await api.admin.delete(`/v2.0/quotas/${project}`);
      assert.equal(r.status, 204);
      assert.equal(r.text, '');
      assert.deepEqual((await api.admin.get(`/v2.0/quotas/${project}`)).body, { quota: DEFAULTS });
      const again = await api.admin.delete(`/v2.0/quotas/${project}`);
      assertError(again, 404, 'TenantQuotaNotFound', `Quota for project ${project} could not be found.`);
      const withBody = await api.admin.request('DELETE', `/v2.0/quotas/${project}`, {});
      assertError(withBody, 400, 'HTTPBadRequest', 'Request body is not supported in DELETE.');
    });

    it('lets only admins change quotas, and members read only their own', async () => {
      const project = newProjectId();
      const other = newProjectId();
      const m = member(project);
      assertError(
        await m.get(`/v2.0/quotas/${other}`),
        403,
        'PolicyNotAuthorized',
        'rule:get_quota is disallowed by policy',
      );
      assertError(
        await m.get(`/v2.0/quotas/${other}/default`),
        403,
        'PolicyNotAuthorized',
        'rule:get_quota is disallowed by policy',
      );
      assertError(await m.get('/v2.0/quotas'), 403, 'PolicyNotAuthorized', 'rule:get_quota is disallowed by policy');
      assertError(
        await m.get(`/v2.0/quotas/${other}/details`),
        403,
        'AdminRequired',
        'User does not have admin privileges: Only admin is authorized to access quotas for another project.',
      );
      assertError(
        await m.put(`/v2.0/quotas/${project}`, { quota: { network: 1 } }),
        403,
        'PolicyNotAuthorized',
        'rule:update_quota is disallowed by policy',
      );
      assertError(
        await m.delete(`/v2.0/quotas/${project}`),
        403,
        'PolicyNotAuthorized',
        'rule:delete_quota is disallowed by policy',
      );
      // Reading one's own quotas needs no role at all.
      assert.equal((await api.as({ project, roles: [] }).get(`/v2.0/quotas/${project}`)).status, 200);
      assert.equal((await api.as({ project, roles: [] }).get(`/v2.0/quotas/${project}/details`)).status, 200);
    });

    it("lets a manager pass get_quota but read only its own project's limits", async () => {
      const project = newProjectId();
      const other = newProjectId();
      await setQuota(project, { network: 4 });
      await setQuota(other, { network: 6 });
      const manager = api.as({ project, roles: ['manager', 'member', 'reader'] });
      const list = await manager.get('/v2.0/quotas');
      assert.equal(list.status, 200, list.text);
      assert.deepEqual(
        list.body.quotas.map((q: { project_id: string }) => q.project_id),
        [project],
      );
      const show = await manager.get(`/v2.0/quotas/${other}`);
      assert.equal(show.status, 200);
      assert.deepEqual(show.body, { quota: DEFAULTS });
      assert.equal((await manager.get(`/v2.0/quotas/${other}/details`)).status, 403);
      assert.equal((await api.admin.get(`/v2.0/quotas/${other}`)).body.quota.network, 6);
    });

    it('answers unsupported methods and paths as Neutron does', async () => {
      const project = newProjectId();
      assertError(
        await api.admin.post('/v2.0/quotas', { quota: {} }),
        501,
        'HTTPNotImplemented',
        'POST requests are not supported on this resource.',
      );
      assert.equal((await api.admin.post(`/v2.0/quotas/${project}`, { quota: {} })).status, 405);
      assert.equal((await api.admin.put('/v2.0/quotas', { quota: {} })).status, 405);
      assert.equal((await api.admin.delete('/v2.0/quotas')).status, 405);
      assert.equal((await api.admin.put(`/v2.0/quotas/${project}/default`, { quota: {} })).status, 405);
      assert.equal((await api.admin.put('/v2.0/quotas/project', { quota: { network: 1 } })).status, 405);
      assertError(
        await api.admin.get(`/v2.0/quotas/${project}/bogus`),
        404,
        'HTTPNotFound',
        'The resource could not be found.',
      );
    });
  });
}
