/**
 * The real `openstack` CLI driving QoS against octonet, as an operator (and Octavia's
 * `vip_qos_policy_id` setup) does: policy create and show, bandwidth-limit and DSCP rules created,
 * listed and changed, a port and a network given the policy, the rule types, and the in-use
 * refusal of a policy delete. Each result is read back over HTTP.
 *
 * One sequence on SQLite: each call costs about a second of Python start-up.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { useApi } from '../fixtures/api.js';
import { OpenstackCli } from '../fixtures/openstack-cli.js';
import type { Json } from '../fixtures/json.js';

describe('openstack CLI: QoS policies and rules', { concurrency: 1 }, () => {
  const api = useApi('sqlite');
  let cli: OpenstackCli;
  let policyId: string;
  let portId: string;
  let netId: string;

  before(async () => {
    cli = new OpenstackCli(api.url);
    const net = (await api.admin.post('/v2.0/networks', { network: { name: 'qos-net' } })).body.network;
    netId = net.id;
    portId = (await api.admin.post('/v2.0/ports', { port: { network_id: net.id, name: 'vip' } })).body.port.id;
  });

  it('network qos policy create / show', async () => {
    const created = await cli.json(['network', 'qos', 'policy', 'create', '--share', '--description', 'lb', 'lb-qos']);
    policyId = created.id;
    assert.equal(created.name, 'lb-qos');
    assert.equal(created.shared, true);
    const shown = await cli.json(['network', 'qos', 'policy', 'show', 'lb-qos']);
    assert.equal(shown.id, policyId);
    assert.equal(shown.description, 'lb');
  });

  it('network qos rule create (bandwidth limit both ways, DSCP), list and set', async () => {
    const egress = await cli.json([
      'network',
      'qos',
      'rule',
      'create',
      '--type',
      'bandwidth-limit',
      '--max-kbps',
      '10000',
      '--max-burst-kbits',
      '8000',
      '--egress',
      'lb-qos',
    ]);
    assert.equal(egress.max_kbps, 10000);
    assert.equal(egress.direction, 'egress');
    await cli.json([
      'network',
      'qos',
      'rule',
      'create',
      '--type',
      'bandwidth-limit',
      '--max-kbps',
      '5000',
      '--ingress',
      'lb-qos',
    ]);
    await cli.json(['network', 'qos', 'rule', 'create', '--type', 'dscp-marking', '--dscp-mark', '26', 'lb-qos']);
    const rules = await cli.json<Json[]>(['network', 'qos', 'rule', 'list', 'lb-qos']);
    assert.deepEqual(rules.map((r) => r.Type).sort(), ['bandwidth_limit', 'bandwidth_limit', 'dscp_marking']);
    await cli.ok(['network', 'qos', 'rule', 'set', '--max-kbps', '20000', 'lb-qos', egress.id]);
    const shown = await cli.json(['network', 'qos', 'rule', 'show', 'lb-qos', egress.id]);
    assert.equal(shown.max_kbps, 20000);
    const duplicate = await cli.run([
      'network',
      'qos',
      'rule',
      'create',
      '--type',
      'bandwidth-limit',
      '--max-kbps',
      '1',
      '--egress',
      'lb-qos',
    ]);
    assert.notEqual(duplicate.code, 0, 'a second egress limit is refused');
    assert.match(duplicate.stderr, /conflicts with rule/);
  });

  it('network qos rule type list / show', async () => {
    const types = await cli.json<Json[]>(['network', 'qos', 'rule', 'type', 'list']);
    assert.deepEqual(types.map((t) => t.Type).sort(), ['bandwidth_limit', 'dscp_marking', 'minimum_bandwidth']);
    const details = await cli.json(['network', 'qos', 'rule', 'type', 'show', 'dscp_marking']);
    assert.equal((details.drivers as Json[])[0].name, 'ovn');
  });

  it('port set --qos-policy and network set --qos-policy; the policy cannot go while used', async () => {
    await cli.ok(['port', 'set', '--qos-policy', 'lb-qos', portId]);
    await cli.ok(['network', 'set', '--qos-policy', 'lb-qos', netId]);
    const port = (await api.admin.get(`/v2.0/ports/${portId}`)).body.port;
    assert.deepEqual([port.qos_policy_id, port.qos_network_policy_id], [policyId, policyId]);
    const refused = await cli.run(['network', 'qos', 'policy', 'delete', 'lb-qos']);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr + refused.stdout, /is used by/);
    await cli.ok(['port', 'unset', '--qos-policy', portId]);
    await cli.ok(['network', 'set', '--no-qos-policy', netId]);
    await cli.ok(['network', 'qos', 'policy', 'delete', 'lb-qos']);
    assert.equal((await api.admin.get(`/v2.0/qos/policies/${policyId}`)).status, 404);
  });
});
