/**
 * QoS over HTTP, on both databases: policies (admin writes, owner and shared visibility, the
 * default policy), bandwidth-limit / DSCP / minimum-bandwidth rules with Neutron's bodies and
 * errors (duplicate type and direction, invalid values, parameter conflicts), the rules-alias and
 * rule-type URLs, and `qos_policy_id` on networks and ports (with `qos_network_policy_id`, the
 * project's default policy for new networks, and the in-use refusal on delete).
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { BACKENDS, newProjectId, useApi, type Client } from '../fixtures/api.js';
import type { Json } from '../fixtures/json.js';

const ADMIN_ROLES = ['admin', 'member', 'reader'];

for (const backend of BACKENDS) {
  describe(`QoS (${backend})`, () => {
    const api = useApi(backend);
    const A = newProjectId();
    const B = newProjectId();
    let admin: Client;
    let a: Client;
    let b: Client;
    let policy: Json;
    let bwEgress: Json;

    before(() => {
      admin = api.as({ project: A, roles: ADMIN_ROLES });
      a = api.as({ project: A });
      b = api.as({ project: B });
    });

    const rules = (policyId: string, type: string) => `/v2.0/qos/policies/${policyId}/${type}_rules`;

    it('creates a policy as an admin, with Neutron’s attributes; a member may not', async () => {
      const r = await admin.post('/v2.0/qos/policies', { policy: { name: 'gold', description: 'd' } });
      assert.equal(r.status, 201, r.text);
      policy = r.body.policy;
      assert.deepEqual(
        Object.keys(policy).sort(),
        [
          'created_at',
          'description',
          'id',
          'is_default',
          'name',
          'project_id',
          'revision_number',
          'rules',
          'shared',
          'tags',
          'tenant_id',
          'updated_at',
        ].sort(),
      );
      assert.deepEqual(
        [policy.name, policy.shared, policy.is_default, policy.project_id, policy.rules],
        ['gold', false, false, A, []],
      );
      const denied = await a.post('/v2.0/qos/policies', { policy: { name: 'x' } });
      assert.equal(denied.status, 403, denied.text);
      assert.equal(denied.body.NeutronError.type, 'PolicyNotAuthorized');
    });

    it('shows a policy to its project and to nobody else until it is shared', async () => {
      assert.equal((await a.get(`/v2.0/qos/policies/${policy.id}`)).status, 200);
      const hidden = await b.get(`/v2.0/qos/policies/${policy.id}`);
      assert.equal(hidden.status, 404);
      assert.equal(hidden.body.NeutronError.type, 'QosPolicyNotFound');
      assert.equal(hidden.body.NeutronError.message, `QoS policy ${policy.id} could not be found.`);
      assert.deepEqual((await b.get('/v2.0/qos/policies')).body.policies, []);
      // A marker the caller cannot see is no 404: Neutron's object pager pages from the start.
      const paged = await b.get(`/v2.0/qos/policies?limit=1&marker=${policy.id}`);
      assert.equal(paged.status, 200, paged.text);
      assert.deepEqual(paged.body.policies, []);
      const shared = await admin.put(`/v2.0/qos/policies/${policy.id}`, { policy: { shared: true } });
      assert.equal(shared.status, 200, shared.text);
      assert.equal(shared.body.policy.revision_number, policy.revision_number + 1);
      const seen = await b.get(`/v2.0/qos/policies?id=${policy.id}`);
      assert.deepEqual(
        seen.body.policies.map((p: Json) => p.id),
        [policy.id],
      );
      assert.equal((await admin.put(`/v2.0/qos/policies/${policy.id}/tags/lb`)).status, 201);
      const tagged = await b.get('/v2.0/qos/policies?tags=lb');
      assert.deepEqual(
        tagged.body.policies.map((p: Json) => p.id),
        [policy.id],
        'tags and the tags filter work on policies',
      );
      // Neutron serves a policy's tags under the bare collection name too (`/v2.0/policies/{id}/tags`).
      const replaced = await admin.put(`/v2.0/policies/${policy.id}/tags`, { tags: ['lb', 'edge'] });
      assert.equal(replaced.status, 200, replaced.text);
      assert.deepEqual((await admin.get(`/v2.0/policies/${policy.id}/tags`)).body.tags.sort(), ['edge', 'lb']);
      // Whoever sees the policy tags it, as in Zed (which checks no tag policy): a member of the
      // owning project, and another project's member once it is shared (though only an admin updates it).
      const own = await a.put(`/v2.0/policies/${policy.id}/tags`, { tags: ['mine'] });
      assert.equal(own.status, 200, own.text);
      const theirs = await b.put(`/v2.0/policies/${policy.id}/tags`, { tags: ['theirs'] });
      assert.equal(theirs.status, 200, theirs.text);
      assert.equal((await admin.put(`/v2.0/policies/${policy.id}/tags`, { tags: ['lb', 'edge'] })).status, 200);
      const update = await a.put(`/v2.0/qos/policies/${policy.id}`, { policy: { name: 'mine' } });
      assert.equal(update.status, 403, 'updating a policy is an admin’s, even the owner’s');
    });

    it('adds a bandwidth-limit rule per direction and refuses a second one in the same direction', async () => {
      const r = await admin.post(rules(policy.id, 'bandwidth_limit'), {
        bandwidth_limit_rule: { max_kbps: 10000, max_burst_kbps: 8000 },
      });
      assert.equal(r.status, 201, r.text);
      bwEgress = r.body.bandwidth_limit_rule;
      assert.deepEqual(Object.keys(bwEgress), ['id', 'max_kbps', 'max_burst_kbps', 'direction']);
      assert.deepEqual([bwEgress.max_kbps, bwEgress.max_burst_kbps, bwEgress.direction], [10000, 8000, 'egress']);
      const ingress = await admin.post(rules(policy.id, 'bandwidth_limit'), {
        bandwidth_limit_rule: { max_kbps: 5000, direction: 'ingress' },
      });
      assert.equal(ingress.status, 201, ingress.text);
      assert.equal(ingress.body.bandwidth_limit_rule.max_burst_kbps, 0);
      const twice = await admin.post(rules(policy.id, 'bandwidth_limit'), { bandwidth_limit_rule: { max_kbps: 1 } });
      assert.equal(twice.status, 409);
      assert.equal(twice.body.NeutronError.type, 'QoSRulesConflict');
      assert.equal(
        twice.body.NeutronError.message,
        `Rule bandwidth_limit conflicts with rule ${bwEgress.id} which already exists in QoS Policy ${policy.id}.`,
      );
      const member = await a.post(rules(policy.id, 'bandwidth_limit'), {
        bandwidth_limit_rule: { max_kbps: 1, direction: 'ingress' },
      });
      assert.equal(member.status, 403, 'rules are an admin’s to write');
    });

    it('refuses invalid values with 400 and names the attribute', async () => {
      const negative = await admin.post(rules(policy.id, 'bandwidth_limit'), {
        bandwidth_limit_rule: { max_kbps: -1, direction: 'ingress' },
      });
      assert.equal(negative.status, 400);
      assert.match(negative.body.NeutronError.message, /^Invalid input for max_kbps\. Reason: '-1' is too small/);
      const direction = await admin.post(rules(policy.id, 'bandwidth_limit'), {
        bandwidth_limit_rule: { max_kbps: 1, direction: 'sideways' },
      });
      assert.equal(direction.status, 400);
      const dscp = await admin.post(rules(policy.id, 'dscp_marking'), { dscp_marking_rule: { dscp_mark: 7 } });
      assert.equal(dscp.status, 400);
      assert.match(dscp.body.NeutronError.message, /^Invalid input for dscp_mark\./);
      const missing = await admin.post(rules(policy.id, 'bandwidth_limit'), { bandwidth_limit_rule: {} });
      assert.equal(missing.status, 400);
      const unknownPolicy = await admin.post(rules('00000000-0000-0000-0000-000000000000', 'dscp_marking'), {
        dscp_marking_rule: { dscp_mark: 8 },
      });
      assert.equal(unknownPolicy.status, 404);
      assert.equal(unknownPolicy.body.NeutronError.type, 'QosPolicyNotFound');
      // A member is refused before the policy is looked up (Neutron's order): 403, not 404.
      const byMember = await a.post(rules('policy', 'bandwidth_limit'), { bandwidth_limit_rule: { max_kbps: 1 } });
      assert.equal(byMember.status, 403, byMember.text);
      assert.equal(byMember.body.NeutronError.type, 'PolicyNotAuthorized');
    });

    it('adds DSCP and minimum-bandwidth rules; a limit below a minimum conflicts', async () => {
      const dscp = await admin.post(rules(policy.id, 'dscp_marking'), { dscp_marking_rule: { dscp_mark: 26 } });
      assert.equal(dscp.status, 201, dscp.text);
      assert.deepEqual(Object.keys(dscp.body.dscp_marking_rule), ['id', 'dscp_mark']);
      const min = await admin.post(rules(policy.id, 'minimum_bandwidth'), {
        minimum_bandwidth_rule: { min_kbps: 20000 },
      });
      assert.equal(min.status, 409, 'above the 10000 kbps egress limit');
      assert.equal(min.body.NeutronError.type, 'QoSRuleParameterConflict');
      const fits = await admin.post(rules(policy.id, 'minimum_bandwidth'), {
        minimum_bandwidth_rule: { min_kbps: 1000 },
      });
      assert.equal(fits.status, 201, fits.text);
      const shown = (await a.get(`/v2.0/qos/policies/${policy.id}`)).body.policy;
      assert.deepEqual(
        shown.rules.map((r: Json) => [r.type, r.direction]),
        [
          ['bandwidth_limit', 'egress'],
          ['bandwidth_limit', 'ingress'],
          ['dscp_marking', undefined],
          ['minimum_bandwidth', 'egress'],
        ],
      );
      assert.equal(shown.rules[0].qos_policy_id, policy.id);
    });

    it('lists, shows, updates and deletes rules under the policy and through the alias URLs', async () => {
      const list = await b.get(`${rules(policy.id, 'bandwidth_limit')}?direction=ingress`);
      assert.equal(list.status, 200, list.text);
      assert.deepEqual(
        list.body.bandwidth_limit_rules.map((r: Json) => r.direction),
        ['ingress'],
      );
      const updated = await admin.put(`${rules(policy.id, 'bandwidth_limit')}/${bwEgress.id}`, {
        bandwidth_limit_rule: { max_kbps: 20000 },
      });
      assert.equal(updated.status, 200, updated.text);
      assert.equal(updated.body.bandwidth_limit_rule.max_kbps, 20000);
      const alias = await a.get(`/v2.0/qos/alias_bandwidth_limit_rules/${bwEgress.id}`);
      assert.equal(alias.status, 200, alias.text);
      assert.equal(alias.body.alias_bandwidth_limit_rule.max_kbps, 20000);
      const viaAlias = await admin.put(`/v2.0/qos/alias_bandwidth_limit_rules/${bwEgress.id}`, {
        alias_bandwidth_limit_rule: { max_burst_kbps: 100 },
      });
      assert.equal(viaAlias.status, 200, viaAlias.text);
      assert.equal(viaAlias.body.alias_bandwidth_limit_rule.max_burst_kbps, 100);
      const flip = await admin.put(`${rules(policy.id, 'bandwidth_limit')}/${bwEgress.id}`, {
        bandwidth_limit_rule: { direction: 'ingress' },
      });
      assert.equal(flip.status, 409, 'the ingress one exists already');
      const missing = await a.get(`/v2.0/qos/alias_dscp_marking_rules/${bwEgress.id}`);
      assert.equal(missing.status, 404);
      assert.equal(missing.body.NeutronError.type, 'QosRuleNotFound');
      const wrongPolicy = await admin.get(`${rules(policy.id, 'dscp_marking')}/${bwEgress.id}`);
      assert.equal(wrongPolicy.status, 404);
      assert.equal(
        wrongPolicy.body.NeutronError.message,
        `QoS rule ${bwEgress.id} for policy ${policy.id} could not be found.`,
      );
      const revision = (await a.get(`/v2.0/qos/policies/${policy.id}`)).body.policy.revision_number;
      const min = (await a.get(rules(policy.id, 'minimum_bandwidth'))).body.minimum_bandwidth_rules[0];
      assert.equal((await admin.delete(`/v2.0/qos/alias_minimum_bandwidth_rules/${min.id}`)).status, 204);
      const after = (await a.get(`/v2.0/qos/policies/${policy.id}`)).body.policy;
      assert.equal(after.revision_number, revision + 1, 'a rule change revises its policy');
      assert.equal(
        after.rules.some((r: Json) => r.id === min.id),
        false,
      );
    });

    it('lists rule types; their details are an admin’s', async () => {
      const types = await admin.get('/v2.0/qos/rule-types');
      assert.deepEqual(types.body.rule_types.map((t: Json) => t.type).sort(), [
        'bandwidth_limit',
        'dscp_marking',
        'minimum_bandwidth',
      ]);
      const all = await admin.get('/v2.0/qos/rule-types?all_rules=true');
      assert.equal(all.body.rule_types.length, 5, 'qos-rule-type-filter: every type Neutron implements');
      const details = await admin.get('/v2.0/qos/rule-types/bandwidth_limit');
      assert.equal(details.status, 200, details.text);
      assert.equal(details.body.rule_type.drivers[0].name, 'ovn');
      assert.deepEqual(
        details.body.rule_type.drivers[0].supported_parameters.map((p: Json) => p.parameter_name),
        ['max_kbps', 'max_burst_kbps', 'direction'],
      );
      assert.equal((await a.get('/v2.0/qos/rule-types/bandwidth_limit')).status, 403);
    });

    it('attaches a policy to a network and a port; ports show their network’s too', async () => {
      const net = await a.post('/v2.0/networks', { network: { name: 'q', qos_policy_id: policy.id } });
      assert.equal(net.status, 201, net.text);
      assert.equal(net.body.network.qos_policy_id, policy.id);
      const plain = (await a.post('/v2.0/ports', { port: { network_id: net.body.network.id } })).body.port;
      assert.equal(plain.qos_policy_id, null);
      assert.equal(plain.qos_network_policy_id, policy.id);
      const own = await a.put(`/v2.0/ports/${plain.id}`, { port: { qos_policy_id: policy.id } });
      assert.equal(own.status, 200, own.text);
      assert.equal(own.body.port.qos_policy_id, policy.id);
      const listed = (await a.get(`/v2.0/ports?id=${plain.id}`)).body.ports[0];
      assert.deepEqual([listed.qos_policy_id, listed.qos_network_policy_id], [policy.id, policy.id]);
      const unknown = await a.post('/v2.0/ports', {
        port: { network_id: net.body.network.id, qos_policy_id: '00000000-0000-0000-0000-000000000000' },
      });
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.NeutronError.type, 'QosPolicyNotFound');
      assert.equal(
        (await a.get(`/v2.0/ports?network_id=${net.body.network.id}`)).body.ports.length,
        1,
        'the refused port left nothing behind',
      );
      const bad = await a.put(`/v2.0/networks/${net.body.network.id}`, { network: { qos_policy_id: 'nope' } });
      assert.equal(bad.status, 400);

      const other = (await b.post('/v2.0/networks', { network: { name: 'b', qos_policy_id: policy.id } })).body.network;
      assert.equal(other.qos_policy_id, policy.id, 'another project may use a shared policy');
      const unshare = await admin.put(`/v2.0/qos/policies/${policy.id}`, { policy: { shared: false } });
      assert.equal(unshare.status, 409, 'not while another project uses it');
      assert.equal(unshare.body.NeutronError.type, 'RbacPolicyInUse');
      assert.equal((await b.delete(`/v2.0/networks/${other.id}`)).status, 204);

      const privatePolicy = (await admin.post('/v2.0/qos/policies', { policy: { name: 'private' } })).body.policy;
      const bNet = (await b.post('/v2.0/networks', { network: { name: 'b2' } })).body.network;
      const bPort = (await b.post('/v2.0/ports', { port: { network_id: bNet.id } })).body.port;
      assert.equal(
        (await admin.put(`/v2.0/ports/${bPort.id}`, { port: { qos_policy_id: privatePolicy.id } })).status,
        200,
        'an admin may give any port any policy',
      );
      const replace = await b.put(`/v2.0/ports/${bPort.id}`, { port: { qos_policy_id: null } });
      assert.equal(replace.status, 403, 'B cannot see the policy it would remove');
      assert.equal(replace.body.NeutronError.type, 'PolicyRemoveAuthorizationError');
      assert.equal((await admin.delete(`/v2.0/ports/${bPort.id}`)).status, 204);
      assert.equal((await b.delete(`/v2.0/networks/${bNet.id}`)).status, 204);
      assert.equal((await admin.delete(`/v2.0/qos/policies/${privatePolicy.id}`)).status, 204);

      const inUse = await admin.delete(`/v2.0/qos/policies/${policy.id}`);
      assert.equal(inUse.status, 409);
      assert.equal(inUse.body.NeutronError.type, 'QosPolicyInUse');
      assert.equal(
        inUse.body.NeutronError.message,
        `QoS Policy ${policy.id} is used by network ${net.body.network.id}.`,
      );
      const cleared = await a.put(`/v2.0/networks/${net.body.network.id}`, { network: { qos_policy_id: null } });
      assert.equal(cleared.body.network.qos_policy_id, null);
      const portInUse = await admin.delete(`/v2.0/qos/policies/${policy.id}`);
      assert.equal(portInUse.body.NeutronError.message, `QoS Policy ${policy.id} is used by port ${plain.id}.`);
      assert.equal((await a.delete(`/v2.0/ports/${plain.id}`)).status, 204);
      assert.equal((await admin.delete(`/v2.0/qos/policies/${policy.id}`)).status, 204, 'no longer used');
      assert.equal((await admin.get(`/v2.0/qos/policies/${policy.id}`)).status, 404);
    });

    it('gives a project’s new networks its default policy; one default per project', async () => {
      const def = (await admin.post('/v2.0/qos/policies', { policy: { name: 'default', is_default: true } })).body
        .policy;
      assert.equal(def.is_default, true);
      const second = await admin.post('/v2.0/qos/policies', { policy: { name: 'other', is_default: true } });
      assert.equal(second.status, 409);
      assert.equal(second.body.NeutronError.type, 'QoSPolicyDefaultAlreadyExists');
      const net = (await a.post('/v2.0/networks', { network: { name: 'd' } })).body.network;
      assert.equal(net.qos_policy_id, def.id);
      const other = (await b.post('/v2.0/networks', { network: { name: 'e' } })).body.network;
      assert.equal(other.qos_policy_id, null, 'another project has no default');
      const filtered = await admin.get('/v2.0/qos/policies?is_default=true');
      assert.deepEqual(
        filtered.body.policies.map((p: Json) => p.id),
        [def.id],
      );
      const unset = await admin.put(`/v2.0/qos/policies/${def.id}`, { policy: { is_default: false } });
      assert.equal(unset.body.policy.is_default, false);
    });

    it('advertises the QoS extensions', async () => {
      const aliases = (await a.get('/v2.0/extensions')).body.extensions.map((e: Json) => e.alias);
      for (const alias of ['qos', 'qos-bw-limit-direction', 'qos-default', 'qos-rules-alias', 'qos-rule-type-details'])
        assert.ok(aliases.includes(alias), alias);
    });
  });
}
