/**
 * Security groups over HTTP: the default group and what creates it, create/update/delete with the
 * `default` rules, visibility and policy, tags, quotas, filters, sorting and pages; on both stores.
 * Rules have their own suite (`security-group-rules.test.ts`).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BACKENDS, newProjectId, useApi, type Client } from '../fixtures/api.js';
import { assertError } from '../fixtures/errors.js';
import { createGroup, listGroups, RULE_KEYS, SG_KEYS, shape, type Rule } from '../fixtures/security-groups.js';

for (const backend of BACKENDS) {
  describe(`security groups (${backend})`, () => {
    const api = useApi(backend);
    const member = (project: string) => api.as({ project });
    const reader = (project: string) => api.as({ project, roles: ['reader'] });

    it("creates a new project's default group, with its four rules, on its first list", async () => {
      const project = newProjectId();
      const groups = await listGroups(member(project));
      assert.equal(groups.length, 1);
      const sg = groups[0]!;
      assert.deepEqual(Object.keys(sg), SG_KEYS);
      assert.equal(sg.name, 'default');
      assert.equal(sg.description, 'Default security group');
      assert.equal(sg.stateful, true);
      assert.equal(sg.project_id, project);
      assert.equal(sg.tenant_id, project);
      assert.equal(sg.revision_number, 1);
      assert.deepEqual(sg.tags, []);
      assert.deepEqual(sg.security_group_rules.map(shape), [
        `ingress IPv4  ${sg.id} `,
        'egress IPv4   ',
        `ingress IPv6  ${sg.id} `,
        'egress IPv6   ',
      ]);
      for (const rule of sg.security_group_rules) {
        assert.deepEqual(Object.keys(rule), RULE_KEYS);
        assert.equal(rule.project_id, project);
        assert.equal(rule.description, null);
        assert.equal(rule.belongs_to_default_sg, true);
        assert.equal(rule.remote_address_group_id, null);
        assert.equal(rule.normalized_cidr, null);
        assert.equal(rule.revision_number, 0);
      }
      const again = await listGroups(member(project));
      assert.deepEqual(
        again.map((g) => g.id),
        [sg.id],
      );
    });

    it('creates the default group on a rule list too, for the filtered project when the caller may', async () => {
      const project = newProjectId();
      const rules = await member(project).get('/v2.0/security-group-rules');
      assert.equal(rules.status, 200, rules.text);
      assert.equal(rules.body.security_group_rules.length, 4);
      const ids = rules.body.security_group_rules.map((r: Rule) => r.id);
      assert.deepEqual(ids, [...ids].sort(), 'lists are ordered by id');

      const other = newProjectId();
      assert.deepEqual(await listGroups(member(project), `?project_id=${other}`), []);
      const usage = await api.admin.get(`/v2.0/quotas/${other}/details`);
      assert.equal(usage.body.quota.security_group.used, 0, 'a member created nothing');
      const viaRules = await api.admin.get(`/v2.0/security-group-rules?tenant_id=${other}`);
      assert.equal(viaRules.body.security_group_rules.length, 4, 'an admin filter creates that project\u2019s');
      const third = newProjectId();
      const created = await listGroups(api.admin, `?project_id=${third}`);
      assert.deepEqual(
        created.map((g) => [g.name, g.project_id]),
        [['default', third]],
      );
      await listGroups(api.admin);
      assert.equal((await listGroups(api.admin, '?project_id=fake_project_id&name=default')).length, 1);
    });

    it('creates groups with the two egress rules, making the default group first', async () => {
      const project = newProjectId();
      const r = await member(project).post('/v2.0/security-groups', {
        security_group: { name: 'web', description: 'w' },
      });
      assert.equal(r.status, 201, r.text);
      const sg = r.body.security_group;
      assert.deepEqual(Object.keys(sg), SG_KEYS);
      assert.equal(sg.name, 'web');
      assert.equal(sg.description, 'w');
      assert.equal(sg.stateful, true);
      assert.equal(sg.revision_number, 1);
      assert.deepEqual(sg.security_group_rules.map(shape), ['egress IPv4   ', 'egress IPv6   ']);
      for (const rule of sg.security_group_rules) {
        assert.equal(rule.belongs_to_default_sg, false);
        assert.equal(rule.description, null);
      }
      const names = (await listGroups(member(project))).map((g) => g.name).sort();
      assert.deepEqual(names, ['default', 'web']);

      const bulk = await member(project).post('/v2.0/security-groups', {
        security_groups: [{ name: 'b1', stateful: false }, { security_group: { name: 'b2' } }],
      });
      assert.equal(bulk.status, 201, bulk.text);
      assert.deepEqual(
        bulk.body.security_groups.map((g: Rule) => [g.name, g.stateful]),
        [
          ['b1', false],
          ['b2', true],
        ],
      );
      assert.equal((await api.admin.get(`/v2.0/security-groups/${sg.id}`)).body.security_group.name, 'web');
    });

    it('refuses the name default (any case, also for admins), and invalid bodies, with Neutron errors', async () => {
      const m = member(newProjectId());
      const post = (body: unknown, client: Client = m) => client.post('/v2.0/security-groups', body);
      const taken = ['SecurityGroupDefaultAlreadyExists', 'Default security group already exists.'] as const;
      assertError(await post({ security_group: { name: 'default' } }), 409, ...taken);
      assertError(await post({ security_group: { name: 'DeFault' } }, api.admin), 409, ...taken);
      assertError(await post({ security_groups: [{ name: 'ok' }, { name: 'Default' }] }), 409, ...taken);
      assert.equal((await post({ security_group: { name: ' default' } })).status, 201, 'no strip');
      const bad = (message: string) => ['HTTPBadRequest', message] as const;
      assertError(
        await post({ security_group: { name: null } }),
        400,
        ...bad("Invalid input for name. Reason: 'None' is not a valid string."),
      );
      assertError(
        await post({ security_group: { name: 'x'.repeat(256) } }),
        400,
        ...bad(`Invalid input for name. Reason: '${'x'.repeat(256)}' exceeds maximum length of 255.`),
      );
      assertError(
        await post({ security_group: { is_default: true } }),
        400,
        ...bad("Unrecognized attribute(s) 'is_default'"),
      );
      assertError(
        await post({ security_group: { id: newProjectId() } }),
        400,
        ...bad("Attribute 'id' not allowed in POST"),
      );
      assertError(
        await post({ security_group: { security_group_rules: [] } }),
        400,
        ...bad("Attribute 'security_group_rules' not allowed in POST"),
      );
      assertError(
        await post({ security_group: { stateful: 'abc' } }),
        400,
        'InvalidInput',
        "Invalid input for operation: 'abc' cannot be converted to boolean.",
      );
      assertError(
        await post({ security_group: { project_id: newProjectId() } }),
        400,
        ...bad(
          "Specifying 'project_id' other than the authenticated project in request is not allowed for the current user.",
        ),
      );
      const forOther = newProjectId();
      const byAdmin = await post({ security_group: { name: 'for-other', project_id: forOther } }, api.admin);
      assert.equal(byAdmin.body.security_group.project_id, forOther);
      assert.equal((await listGroups(api.admin, `?project_id=${forOther}&name=default`)).length, 1);
    });

    it('updates name, description and stateful, bumping the revision once per write', async () => {
      const m = member(newProjectId());
      const sg = await createGroup(m);
      const put = (body: Record<string, unknown>, headers?: Record<string, string>) =>
        m.put(`/v2.0/security-groups/${sg.id}`, { security_group: body }, headers);
      const renamed = await put({ name: 'renamed', description: 'd' });
      assert.equal(renamed.status, 200, renamed.text);
      assert.equal(renamed.body.security_group.name, 'renamed');
      assert.equal(renamed.body.security_group.description, 'd');
      assert.equal(renamed.body.security_group.revision_number, 2);
      assert.equal((await put({ name: 'renamed' })).body.security_group.revision_number, 3, 'same value still writes');
      assert.equal((await put({})).body.security_group.revision_number, 3, 'an empty body writes nothing');
      assert.equal((await put({ stateful: false })).body.security_group.stateful, false);
      assertError(
        await put({ name: 'x' }, { 'if-match': 'revision_number=1' }),
        412,
        'RevisionNumberConstraintFailed',
        'Constrained to 1, but current revision is 4',
      );
      assert.equal((await put({ name: 'y' }, { 'if-match': 'revision_number=4' })).status, 200);
      assertError(
        await put({ name: 'DEFAULT' }),
        409,
        'SecurityGroupDefaultAlreadyExists',
        'Default security group already exists.',
      );
      assertError(
        await put({ security_group_rules: [] }),
        400,
        'HTTPBadRequest',
        'Cannot update read-only attribute security_group_rules',
      );
    });

    it('keeps the default group named default, but lets its description and statefulness change', async () => {
      const project = newProjectId();
      const [sg] = await listGroups(member(project));
      const put = (body: Record<string, unknown>, client = member(project)) =>
        client.put(`/v2.0/security-groups/${sg!.id}`, { security_group: body });
      const cannot = ['SecurityGroupCannotUpdateDefault', 'Updating default security group not allowed.'] as const;
      assertError(await put({ name: 'other' }), 409, ...cannot);
      assertError(await put({ name: 'other' }, api.admin), 409, ...cannot);
      assertError(
        await put({ name: 'default' }),
        409,
        'SecurityGroupDefaultAlreadyExists',
        'Default security group already exists.',
      );
      const described = await put({ description: 'mine', stateful: false });
      assert.equal(described.status, 200, described.text);
      assert.equal(described.body.security_group.description, 'mine');
      assert.equal(described.body.security_group.name, 'default');
    });

    it('deletes groups; the default one only by an admin, after which the next list makes a new one', async () => {
      const project = newProjectId();
      const m = member(project);
      const sg = await createGroup(m);
      const gone = await m.delete(`/v2.0/security-groups/${sg.id}`);
      assert.equal(gone.status, 204, gone.text);
      assertError(
        await m.get(`/v2.0/security-groups/${sg.id}`),
        404,
        'SecurityGroupNotFound',
        `Security group ${sg.id} does not exist`,
      );
      assertError(
        await m.delete(`/v2.0/security-groups/${sg.id}`),
        404,
        'SecurityGroupNotFound',
        `Security group ${sg.id} does not exist`,
      );

      const [def] = await listGroups(m);
      assertError(
        await m.delete(`/v2.0/security-groups/${def!.id}`),
        409,
        'SecurityGroupCannotRemoveDefault',
        'Insufficient rights for removing default security group.',
      );
      assert.equal((await api.admin.delete(`/v2.0/security-groups/${def!.id}`)).status, 204);
      const [fresh] = await listGroups(m);
      assert.equal(fresh!.name, 'default');
      assert.notEqual(fresh!.id, def!.id);
    });

    it('deletes the rules of other groups that name a deleted group as remote, bumping those groups', async () => {
      const m = member(newProjectId());
      const target = await createGroup(m, { name: 'target' });
      const holder = await createGroup(m, { name: 'holder' });
      const rule = await m.post('/v2.0/security-group-rules', {
        security_group_rule: { security_group_id: holder.id, direction: 'ingress', remote_group_id: target.id },
      });
      assert.equal(rule.status, 201, rule.text);
      const before = (await m.get(`/v2.0/security-groups/${holder.id}`)).body.security_group;
      assert.equal(before.security_group_rules.length, 3);
      assert.equal((await m.delete(`/v2.0/security-groups/${target.id}`)).status, 204);
      const after = (await m.get(`/v2.0/security-groups/${holder.id}`)).body.security_group;
      assert.deepEqual(after.security_group_rules.map(shape), ['egress IPv4   ', 'egress IPv6   ']);
      assert.equal(after.revision_number, before.revision_number + 1);
      assertError(
        await m.get(`/v2.0/security-group-rules/${rule.body.security_group_rule.id}`),
        404,
        'SecurityGroupRuleNotFound',
        `Security group rule ${rule.body.security_group_rule.id} does not exist`,
      );
    });

    it("hides other projects' groups (404) and lets a reader look but not write (403)", async () => {
      const owner = newProjectId();
      const sg = await createGroup(member(owner));
      const stranger = member(newProjectId());
      const notFound = ['SecurityGroupNotFound', `Security group ${sg.id} does not exist`] as const;
      assertError(await stranger.get(`/v2.0/security-groups/${sg.id}`), 404, ...notFound);
      assertError(
        await stranger.put(`/v2.0/security-groups/${sg.id}`, { security_group: { name: 'x' } }),
        404,
        ...notFound,
      );
      assertError(await stranger.delete(`/v2.0/security-groups/${sg.id}`), 404, ...notFound);
      assert.ok(!(await listGroups(stranger)).some((g) => g.id === sg.id));
      assert.equal((await api.admin.get(`/v2.0/security-groups/${sg.id}`)).status, 200);

      const r = reader(owner);
      assert.equal((await r.get(`/v2.0/security-groups/${sg.id}`)).status, 200);
      const denied = (rule: string) => ['PolicyNotAuthorized', `rule:${rule} is disallowed by policy`] as const;
      assertError(
        await r.post('/v2.0/security-groups', { security_group: { name: 'r' } }),
        403,
        ...denied('create_security_group'),
      );
      assertError(
        await r.put(`/v2.0/security-groups/${sg.id}`, { security_group: { name: 'r' } }),
        403,
        ...denied('update_security_group'),
      );
      assertError(await r.delete(`/v2.0/security-groups/${sg.id}`), 403, ...denied('delete_security_group'));
    });

    it('tags groups, filters on tags, and bumps the revision on a change', async () => {
      const project = newProjectId();
      const m = member(project);
      const sg = await createGroup(m, { name: 'tagged' });
      await createGroup(m, { name: 'plain' });
      const tags = await m.put(`/v2.0/security-groups/${sg.id}/tags`, { tags: ['red', 'blue'] });
      assert.equal(tags.status, 200, tags.text);
      const shown = (await m.get(`/v2.0/security-groups/${sg.id}`)).body.security_group;
      assert.deepEqual(shown.tags, ['blue', 'red']);
      assert.equal(shown.revision_number, sg.revision_number + 1);
      assert.deepEqual(
        (await listGroups(m, '?tags=red')).map((g) => g.name),
        ['tagged'],
      );
      assert.deepEqual((await listGroups(m, '?not-tags=red')).map((g) => g.name).sort(), ['default', 'plain']);
      // Neutron looks the parent up as admin: another project's group is refused, not hidden.
      assertError(
        await member(newProjectId()).put(`/v2.0/security-groups/${sg.id}/tags/x`),
        403,
        'PolicyNotAuthorized',
        'rule:update_security_group:tags is disallowed by policy',
      );
      const missing = '6f1c2d3e-0000-4000-8000-000000000000';
      assertError(
        await m.put(`/v2.0/security-groups/${missing}/tags/x`),
        404,
        'TagResourceNotFound',
        `Resource security_groups ${missing} could not be found.`,
      );
      assertError(
        await reader(project).put(`/v2.0/security-groups/${sg.id}/tags/x`),
        403,
        'PolicyNotAuthorized',
        'rule:update_security_group:tags is disallowed by policy',
      );
    });

    it('enforces the security_group quota before the default group exists, as Neutron does', async () => {
      const project = newProjectId();
      assert.equal((await api.admin.put(`/v2.0/quotas/${project}`, { quota: { security_group: 1 } })).status, 200);
      await createGroup(member(project), { name: 'first' });
      assert.equal((await listGroups(member(project))).length, 2, 'the default group is not counted when made');
      assertError(
        await member(project).post('/v2.0/security-groups', { security_group: { name: 'second' } }),
        409,
        'OverQuota',
        "Quota exceeded for resources: ['security_group'].",
      );
      const none = newProjectId();
      assert.equal((await api.admin.put(`/v2.0/quotas/${none}`, { quota: { security_group: 0 } })).status, 200);
      assert.equal((await listGroups(member(none))).length, 1, 'a quota of 0 still gets its default group');
    });

    it('charges the new rules of a group, and of a default group, to security_group_rule', async () => {
      const tight = newProjectId();
      await api.admin.put(`/v2.0/quotas/${tight}`, { quota: { security_group_rule: 5 } });
      assert.equal((await listGroups(member(tight))).length, 1);
      const overRules = ['OverQuota', "Quota exceeded for resources: ['security_group_rule']."] as const;
      assertError(await member(tight).post('/v2.0/security-groups', { security_group: {} }), 409, ...overRules);
      const tighter = newProjectId();
      await api.admin.put(`/v2.0/quotas/${tighter}`, { quota: { security_group_rule: 3 } });
      assertError(await member(tighter).get('/v2.0/security-groups'), 409, ...overRules);
      assertError(await member(tighter).get('/v2.0/security-group-rules'), 409, ...overRules);
    });

    it('filters, sorts and pages groups with Neutron keys and links', async () => {
      const project = newProjectId();
      const m = member(project);
      for (const name of ['b', 'a', 'c']) await createGroup(m, { name, stateful: name !== 'c' });
      assert.deepEqual(
        (await listGroups(m, '?name=a')).map((g) => g.name),
        ['a'],
      );
      assert.deepEqual(
        (await listGroups(m, '?stateful=false')).map((g) => g.name),
        ['c'],
      );
      const byName = await listGroups(m, '?sort_key=name&sort_dir=desc&fields=name');
      assert.deepEqual(byName, [{ name: 'default' }, { name: 'c' }, { name: 'b' }, { name: 'a' }]);
      const all = (await listGroups(m)).map((g) => g.id);
      const page1 = await m.get('/v2.0/security-groups?limit=2');
      assert.deepEqual(
        page1.body.security_groups.map((g: Rule) => g.id),
        all.slice(0, 2),
      );
      const next = page1.body.security_groups_links.find((l: Rule) => l.rel === 'next').href as string;
      const page2 = await m.get(next.slice(api.url.length));
      assert.deepEqual(
        page2.body.security_groups.map((g: Rule) => g.id),
        all.slice(2),
      );
      const unknownMarker = await m.get(`/v2.0/security-groups?limit=2&marker=${newProjectId()}`);
      assert.deepEqual(
        unknownMarker.body.security_groups.map((g: Rule) => g.id),
        all.slice(0, 2),
        'an unknown marker pages from the start',
      );
      assertError(
        await m.get('/v2.0/security-groups?sort_key=description&sort_dir=asc'),
        400,
        'HTTPBadRequest',
        "['description'] is invalid attribute for sort_keys",
      );
      assertError(
        await m.get('/v2.0/security-groups?is_default=true'),
        400,
        'HTTPBadRequest',
        "['is_default'] is invalid attribute for filtering",
      );
      assertError(
        await m.get('/v2.0/security-groups?security_group_rules=x'),
        400,
        'HTTPBadRequest',
        "['security_group_rules'] is invalid attribute for filtering",
      );
    });

    it('refuses to delete a group bound to a port, or to change its statefulness', async () => {
      const project = newProjectId();
      const m = member(project);
      const net = (await m.post('/v2.0/networks', { network: { name: 'n' } })).body.network;
      const sg = await createGroup(m);
      const port = await m.post('/v2.0/ports', { port: { network_id: net.id, security_groups: [sg.id] } });
      assert.equal(port.status, 201, port.text);
      const inUse = ['SecurityGroupInUse', `Security Group ${sg.id} in use.`] as const;
      assertError(await m.delete(`/v2.0/security-groups/${sg.id}`), 409, ...inUse);
      assertError(
        await m.put(`/v2.0/security-groups/${sg.id}`, { security_group: { stateful: false } }),
        409,
        ...inUse,
      );
      assert.equal((await m.put(`/v2.0/security-groups/${sg.id}`, { security_group: { stateful: true } })).status, 200);
      assert.equal((await m.delete(`/v2.0/ports/${port.body.port.id}`)).status, 204);
      assert.equal((await m.delete(`/v2.0/security-groups/${sg.id}`)).status, 204);
    });
  });
}
