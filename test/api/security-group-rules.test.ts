/**
 * Security group rules over HTTP: what a rule may say and how it is stored, every validation
 * error with Neutron's type and message, duplicates, bulk creation, remote groups, policy,
 * immutability, the group's revision, quotas, filters, sorting and pages; on both stores.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BACKENDS, newProjectId, useApi, type Client } from '../fixtures/api.js';
import { assertError } from '../fixtures/errors.js';
import { invalidProtocol, INVALID_RULES, STORED_RULES } from '../fixtures/security-group-rule-cases.js';
import { createGroup, createRule, RULE_KEYS, type Rule } from '../fixtures/security-groups.js';

for (const backend of BACKENDS) {
  describe(`security group rules (${backend})`, () => {
    const api = useApi(backend);
    const member = (project: string) => api.as({ project });
    const postRule = (client: Client, body: Rule) =>
      client.post('/v2.0/security-group-rules', { security_group_rule: body });
    const revisionOf = async (client: Client, id: string) =>
      (await client.get(`/v2.0/security-groups/${id}`)).body.security_group.revision_number as number;

    it('stores protocols, ports and prefixes as Neutron does, bumping the group once per rule', async () => {
      const m = member(newProjectId());
      const sg = await createGroup(m);
      for (const [input, expected] of STORED_RULES) {
        const rule = await createRule(m, { security_group_id: sg.id, direction: 'ingress', ...input });
        assert.deepEqual(Object.keys(rule), RULE_KEYS);
        const got = [
          rule.protocol,
          rule.port_range_min,
          rule.port_range_max,
          rule.remote_ip_prefix,
          rule.normalized_cidr,
        ];
        assert.deepEqual(got, expected, JSON.stringify(input));
        assert.equal(rule.description, '');
        assert.equal(rule.revision_number, 0);
        assert.equal(rule.belongs_to_default_sg, false);
        assert.equal(rule.remote_address_group_id, null);
      }
      assert.equal(await revisionOf(m, sg.id), 1 + STORED_RULES.length);
      const shown = (await m.get(`/v2.0/security-groups/${sg.id}`)).body.security_group;
      assert.equal(shown.security_group_rules.length, 2 + STORED_RULES.length);
    });

    it('refuses invalid rules with Neutron\u2019s error types and messages', async () => {
      const m = member(newProjectId());
      const sg = await createGroup(m);
      for (const [input, [status, type, message]] of INVALID_RULES) {
        const body: Rule = { security_group_id: sg.id, direction: 'ingress', ...input };
        for (const key of Object.keys(body)) if (body[key] === undefined) delete body[key];
        assertError(await postRule(m, body), status, type, message);
      }
      assert.equal(await revisionOf(m, sg.id), 1, 'nothing was written');
      const missing = await postRule(m, { security_group_id: 'no-such-group', direction: 'ingress' });
      assertError(missing, 404, 'SecurityGroupNotFound', 'Security group no-such-group does not exist');
      const checksFirst = await postRule(api.admin, {
        security_group_id: 'no-such-group',
        direction: 'ingress',
        protocol: 'tcp',
        port_range_min: 9,
        port_range_max: 1,
      });
      assert.equal(
        checksFirst.body.NeutronError.type,
        'SecurityGroupInvalidPortRange',
        'rule checks come before existence',
      );
    });

    it('finds duplicates the way Neutron compares rules', async () => {
      const m = member(newProjectId());
      const sg = await createGroup(m);
      const exists = async (body: Rule, id: string) =>
        assertError(
          await postRule(m, { security_group_id: sg.id, ...body }),
          409,
          'SecurityGroupRuleExists',
          `Security group rule already exists. Rule id is ${id}.`,
        );
      const egress4 = sg.security_group_rules.find((r: Rule) => r.ethertype === 'IPv4').id;
      await exists({ direction: 'egress' }, egress4);
      await exists({ direction: 'egress', remote_ip_prefix: '0.0.0.0/0', description: 'other' }, egress4);
      const ssh = await createRule(m, {
        security_group_id: sg.id,
        direction: 'ingress',
        protocol: 'tcp',
        port_range_min: 22,
        port_range_max: 22,
      });
      await exists({ direction: 'ingress', protocol: '6', port_range_min: 22, port_range_max: 22 }, ssh.id);
      await exists({ direction: 'ingress', protocol: 'TCP', port_range_min: '22', port_range_max: 22 }, ssh.id);
      const tcp = await createRule(m, { security_group_id: sg.id, direction: 'ingress', protocol: 'tcp' });
      await exists({ direction: 'ingress', protocol: 'tcp', port_range_min: 1, port_range_max: 65535 }, tcp.id);
      const icmp6 = await createRule(m, {
        security_group_id: sg.id,
        direction: 'ingress',
        ethertype: 'IPv6',
        protocol: 'ipv6-icmp',
      });
      for (const protocol of ['icmp', 'icmpv6', '1', '58']) {
        await exists({ direction: 'ingress', ethertype: 'IPv6', protocol }, icmp6.id);
      }
      const net = await createRule(m, {
        security_group_id: sg.id,
        direction: 'egress',
        remote_ip_prefix: '10.0.0.0/8',
      });
      await exists({ direction: 'egress', remote_ip_prefix: '10.0.0.0/255.0.0.0' }, net.id);
      await createRule(m, { security_group_id: sg.id, direction: 'egress', remote_ip_prefix: '10.0.0.1/8' });
      const ip = await createRule(m, { security_group_id: sg.id, direction: 'egress', protocol: 'ip' });
      await exists({ direction: 'egress', protocol: '0' }, ip.id);
      await createRule(m, { security_group_id: sg.id, direction: 'egress', protocol: 'hopopt' });
    });

    it('creates rules in bulk, all or nothing, for one group and project', async () => {
      const project = newProjectId();
      const m = member(project);
      const sg = await createGroup(m);
      const other = await createGroup(m);
      const bulk = (rules: unknown[], client: Client = m) =>
        client.post('/v2.0/security-group-rules', { security_group_rules: rules });
      const ok = await bulk([
        { security_group_id: sg.id, direction: 'ingress', protocol: 'tcp', port_range_min: 80, port_range_max: 80 },
        {
          security_group_rule: {
            security_group_id: sg.id,
            direction: 'ingress',
            protocol: 'tcp',
            port_range_min: 443,
            port_range_max: 443,
          },
        },
      ]);
      assert.equal(ok.status, 201, ok.text);
      assert.deepEqual(
        ok.body.security_group_rules.map((r: Rule) => r.port_range_min),
        [80, 443],
      );
      assert.equal(await revisionOf(m, sg.id), 3);
      const udp = (port: number, group = sg.id) => ({
        security_group_id: group,
        direction: 'ingress',
        protocol: 'udp',
        port_range_min: port,
        port_range_max: port,
      });
      assertError(await bulk([]), 400, 'HTTPBadRequest', 'Resources required');
      assertError(
        await bulk([udp(1), udp(1)]),
        409,
        'DuplicateSecurityGroupRuleInPost',
        'Duplicate Security Group Rule in POST.',
      );
      assertError(
        await bulk([udp(1), udp(2, other.id)]),
        400,
        'SecurityGroupNotSingleGroupRules',
        'Only allowed to update rules for one security profile at a time',
      );
      assertError(
        await bulk([udp(1), { ...udp(2), project_id: newProjectId() }], api.admin),
        400,
        'SecurityGroupRulesNotSingleProject',
        'Multiple project_ids in bulk security group rule create not allowed',
      );
      assertError(
        await bulk([udp(1), { ...udp(2), protocol: 'nope' }]),
        400,
        'SecurityGroupRuleInvalidProtocol',
        invalidProtocol('nope'),
      );
      assertError(
        await bulk([udp(3), { ...udp(80), protocol: 'tcp' }]),
        409,
        'SecurityGroupRuleExists',
        `Security group rule already exists. Rule id is ${ok.body.security_group_rules[0].id}.`,
      );
      assert.equal(await revisionOf(m, sg.id), 3, 'failed requests wrote nothing');
      const rules = await m.get(`/v2.0/security-group-rules?security_group_id=${sg.id}`);
      assert.equal(rules.body.security_group_rules.length, 4);
    });

    it('accepts a remote group of the rule\u2019s project, and any for an admin', async () => {
      const project = newProjectId();
      const m = member(project);
      const sg = await createGroup(m);
      const peer = await createGroup(m);
      const foreign = await createGroup(member(newProjectId()));
      const rule = await createRule(m, { security_group_id: sg.id, direction: 'ingress', remote_group_id: peer.id });
      assert.equal(rule.remote_group_id, peer.id);
      assertError(
        await postRule(m, { security_group_id: sg.id, direction: 'egress', remote_group_id: foreign.id }),
        404,
        'SecurityGroupNotFound',
        `Security group ${foreign.id} does not exist`,
      );
      const byAdmin = await createRule(api.admin, {
        security_group_id: sg.id,
        direction: 'egress',
        remote_group_id: foreign.id,
      });
      assert.equal(byAdmin.project_id, 'fake_project_id', 'a rule belongs to its creator\u2019s project');
      const seen = await m.get(`/v2.0/security-group-rules/${byAdmin.id}`);
      assert.equal(seen.status, 200, 'the group\u2019s project sees every rule of its group');
      const empty = await createRule(m, {
        security_group_id: sg.id,
        direction: 'egress',
        protocol: 'tcp',
        remote_group_id: '',
      });
      assert.equal(empty.remote_group_id, null);
    });

    it('lets only the group\u2019s project see and write its rules', async () => {
      const owner = newProjectId();
      const sg = await createGroup(member(owner));
      const rule = await createRule(member(owner), { security_group_id: sg.id, direction: 'ingress', protocol: 'tcp' });
      const stranger = member(newProjectId());
      const hidden = ['HTTPNotFound', 'The resource could not be found.'] as const;
      assertError(await stranger.get(`/v2.0/security-group-rules/${rule.id}`), 404, ...hidden);
      assertError(await stranger.delete(`/v2.0/security-group-rules/${rule.id}`), 404, ...hidden);
      const denied = (action: string) =>
        ['PolicyNotAuthorized', `rule:${action}_security_group_rule is disallowed by policy`] as const;
      assertError(
        await postRule(stranger, { security_group_id: sg.id, direction: 'ingress' }),
        403,
        ...denied('create'),
      );
      const theirs = (await stranger.get('/v2.0/security-group-rules')).body.security_group_rules;
      assert.ok(!theirs.some((r: Rule) => r.security_group_id === sg.id));
      const reader = api.as({ project: owner, roles: ['reader'] });
      assert.equal((await reader.get(`/v2.0/security-group-rules/${rule.id}`)).status, 200);
      assertError(
        await postRule(reader, { security_group_id: sg.id, direction: 'ingress', protocol: 'udp' }),
        403,
        ...denied('create'),
      );
      assertError(await reader.delete(`/v2.0/security-group-rules/${rule.id}`), 403, ...denied('delete'));
    });

    it('deletes rules (bumping the group) and never updates them', async () => {
      const m = member(newProjectId());
      const sg = await createGroup(m);
      const rule = await createRule(m, { security_group_id: sg.id, direction: 'ingress', protocol: 'tcp' });
      const url = `/v2.0/security-group-rules/${rule.id}`;
      assertError(
        await m.put(url, { security_group_rule: { direction: 'egress' } }),
        400,
        'HTTPBadRequest',
        'Cannot update read-only attribute direction',
      );
      assertError(
        await m.put(url, { security_group_rule: { description: 'd' } }),
        400,
        'HTTPBadRequest',
        'Cannot update read-only attribute description',
      );
      assertError(
        await m.put(url, { security_group_rule: {} }),
        405,
        'HTTPMethodNotAllowed',
        'The server could not comply with the request since it is either malformed or otherwise incorrect.',
      );
      assertError(
        await m.delete(url, { 'if-match': 'revision_number=3' }),
        412,
        'RevisionNumberConstraintFailed',
        'Constrained to 3, but current revision is 0',
      );
      assert.equal((await m.delete(url)).status, 204);
      assert.equal(await revisionOf(m, sg.id), 3);
      const gone = ['SecurityGroupRuleNotFound', `Security group rule ${rule.id} does not exist`] as const;
      assertError(await m.get(url), 404, ...gone);
      assertError(await m.delete(url), 404, ...gone);
      assertError(await m.put(url, { security_group_rule: {} }), 404, ...gone);
    });

    it('counts rules against security_group_rule before any rule check', async () => {
      const project = newProjectId();
      const m = member(project);
      const sg = await createGroup(m);
      await api.admin.put(`/v2.0/quotas/${project}`, { quota: { security_group_rule: 7 } });
      const over = ['OverQuota', "Quota exceeded for resources: ['security_group_rule']."] as const;
      const tcp = (port: number) => ({
        security_group_id: sg.id,
        direction: 'ingress',
        protocol: 'tcp',
        port_range_min: port,
        port_range_max: port,
      });
      assertError(await m.post('/v2.0/security-group-rules', { security_group_rules: [tcp(1), tcp(2)] }), 409, ...over);
      await createRule(m, tcp(1));
      assertError(await postRule(m, { ...tcp(3), port_range_min: 9, port_range_max: 1 }), 409, ...over);
    });

    it('filters with converted values, sorts with NULLs first, and pages across NULLs', async () => {
      const project = newProjectId();
      const m = member(project);
      const sg = await createGroup(m);
      for (const body of [
        { protocol: 'tcp', port_range_min: 22, port_range_max: 22 },
        { protocol: '6', port_range_min: 80, port_range_max: 80 },
        { protocol: 'udp', port_range_min: 53, port_range_max: 53, remote_ip_prefix: '10.0.0.0/8' },
        { protocol: 'icmp', port_range_min: 0 },
      ]) {
        await createRule(m, { security_group_id: sg.id, direction: 'ingress', ...body });
      }
      const list = async (query: string) => {
        const r = await m.get(`/v2.0/security-group-rules?${query}`);
        assert.equal(r.status, 200, r.text);
        return r.body.security_group_rules as Rule[];
      };
      assert.deepEqual(
        (await list('protocol=TCP')).map((r) => r.port_range_min),
        [22],
      );
      assert.equal((await list(`security_group_id=${sg.id}&ethertype=ipv6&direction=egress`)).length, 1);
      assert.equal((await list('port_range_min=0')).length, 1);
      assert.equal((await list('remote_ip_prefix=10.0.0.0/8')).length, 1);
      assert.equal(
        (await list('normalized_cidr=192.168.0.0/24')).length,
        (await list('')).length,
        'ignored, as in Neutron',
      );
      assert.deepEqual(await list('remote_address_group_id=x'), []);
      assertError(
        await m.get('/v2.0/security-group-rules?port_range_min=abc'),
        400,
        'SecurityGroupInvalidPortValue',
        'Invalid value for port abc',
      );
      assertError(
        await m.get('/v2.0/security-group-rules?belongs_to_default_sg=maybe'),
        400,
        'InvalidInput',
        "Invalid input for operation: 'maybe' cannot be converted to boolean.",
      );
      assertError(
        await m.get('/v2.0/security-group-rules?sort_key=normalized_cidr&sort_dir=asc'),
        400,
        'BadRequest',
        "Bad securitygrouprules request: 'normalized_cidr' is an invalid attribute for sort key.",
      );
      assertError(
        await m.get('/v2.0/security-group-rules?sort_key=belongs_to_default_sg&sort_dir=asc'),
        400,
        'HTTPBadRequest',
        "['belongs_to_default_sg'] is invalid attribute for sort_keys",
      );

      for (const dir of ['asc', 'desc']) {
        const sorted = await list(`sort_key=port_range_min&sort_dir=${dir}`);
        const ports = sorted.map((r) => r.port_range_min as number | null);
        const nulls = ports.filter((p) => p === null).length;
        assert.equal(nulls, 6, 'four default rules and two egress rules have no ports');
        const numbers = ports.filter((p): p is number => p !== null);
        assert.deepEqual(
          numbers,
          [...numbers].sort((a, b) => (dir === 'asc' ? a - b : b - a)),
        );
        const edge = dir === 'asc' ? ports.slice(0, nulls) : ports.slice(-nulls);
        assert.ok(
          edge.every((p) => p === null),
          'NULLs first ascending, last descending',
        );
        const paged: Rule[] = [];
        let next: string | undefined = `/v2.0/security-group-rules?sort_key=port_range_min&sort_dir=${dir}&limit=3`;
        while (next) {
          const page = await m.get(next);
          paged.push(...page.body.security_group_rules);
          const link = page.body.security_group_rules_links?.find((l: Rule) => l.rel === 'next')?.href as
            string | undefined;
          next = link?.slice(api.url.length);
        }
        assert.deepEqual(
          paged.map((r) => r.id),
          sorted.map((r) => r.id),
        );
      }
      assert.deepEqual(
        (await list('sort_key=remote_address_group_id&sort_dir=desc')).map((r) => r.id),
        (await list('')).map((r) => r.id),
      );
    });
  });
}
