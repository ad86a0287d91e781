/**
 * `applySpec` with topology per-node-ports against a real octonet over HTTP: the objects it makes
 * (names, tags, device_owner, security-group rules), that a second apply changes nothing and writes
 * nothing, node join and leave, security-group rules kept by full diff, dual stack with pinned
 * addresses, and that an untagged look-alike is never touched (and adopted only when asked).
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { useApi } from '../../fixtures/api.js';
import { applySpec } from '../../../src/mgmtnet/reconcile.js';
import { SpecError } from '../../../src/mgmtnet/spec.js';
import { clientFor, makeSpec } from '../fixtures.js';
import type { Json } from '../../fixtures/json.js';

const TAG = 'octonet-mgmt-net:lb-mgmt';

describe('mgmt-net per-node-ports (octonet)', () => {
  const api = useApi('sqlite');

  before(async () => {
    // Each test's spec makes two groups in the default project; Neutron's default quota is 10.
    const quota = await api.admin.put('/v2.0/quotas/fake_project_id', {
      quota: { security_group: 100, security_group_rule: 1000 },
    });
    assert.equal(quota.status, 200);
  });

  const owned = async (collection: string, name = 'lb-mgmt') =>
    (await api.admin.get(`/v2.0/${collection}?tags=octonet-mgmt-net:${name}`)).body[
      collection.replace(/-/g, '_')
    ] as Json[];

  it('creates the network, subnet, both groups with their rules and one tagged port per node; a second apply writes nothing', async () => {
    const client = clientFor(api.url);
    const report = await applySpec(makeSpec(), client);
    assert.equal(report.error, undefined);
    const nets = await owned('networks');
    assert.equal(nets.length, 1);
    assert.equal(nets[0].name, 'lb-mgmt-net');
    assert.deepEqual([...nets[0].tags].sort(), [TAG, 'octonet-role:mgmt-net']);
    const subnets = (await api.admin.get(`/v2.0/subnets?network_id=${nets[0].id}`)).body.subnets;
    assert.deepEqual(
      subnets.map((s: Json) => [s.name, s.cidr, s.gateway_ip, s.enable_dhcp, s.tags.includes(TAG)]),
      [['lb-mgmt-subnet', '172.24.0.0/16', null, true, true]],
    );
    const ports = (await api.admin.get(`/v2.0/ports?network_id=${nets[0].id}&device_owner=Octavia:health-mgr`)).body
      .ports;
    assert.deepEqual(ports.map((p: Json) => p.name).sort(), [
      'octavia-health-manager-node1-listen-port',
      'octavia-health-manager-node2-listen-port',
    ]);
    const node1 = ports.find((p: Json) => p.name.includes('node1'));
    assert.deepEqual([...node1.tags].sort(), [TAG, 'octonet-node:node1', 'octonet-role:hm-port']);
    assert.equal(node1.device_id, 'octonet-mgmt-net:lb-mgmt:node1');
    // No chassis in the spec: the node agent sets binding:host_id, `apply` leaves it empty.
    assert.equal(node1['binding:host_id'], '');
    const sgs = await owned('security-groups');
    assert.deepEqual(sgs.map((g: Json) => g.name).sort(), ['lb-health-mgr-sec-grp', 'lb-mgmt-sec-grp']);
    const health = sgs.find((g: Json) => g.name === 'lb-health-mgr-sec-grp');
    const amphora = sgs.find((g: Json) => g.name === 'lb-mgmt-sec-grp');
    assert.deepEqual(node1.security_groups, [health.id]);
    const rules = (g: Json) =>
      g.security_group_rules
        .map((r: Json) => `${r.direction} ${r.ethertype} ${r.protocol} ${r.port_range_min} ${r.remote_ip_prefix}`)
        .sort();
    assert.deepEqual(rules(health), [
      'egress IPv4 null null null',
      'egress IPv6 null null null',
      'ingress IPv4 icmp null 172.24.0.0/16',
      'ingress IPv4 udp 5555 172.24.0.0/16',
    ]);
    assert.deepEqual(rules(amphora), [
      'egress IPv4 null null null',
      'egress IPv6 null null null',
      'ingress IPv4 icmp null 172.24.0.0/16',
      'ingress IPv4 tcp 9443 172.24.0.0/16',
    ]);
    assert.deepEqual(report.octavia.controller_worker.amp_boot_network_list, [nets[0].id]);
    assert.deepEqual(report.octavia.controller_worker.amp_secgroup_list, [amphora.id]);
    // what keeps tenants' VIPs off lb-mgmt-net (Octavia has no deny-list): it is not shared
    assert.equal(nets[0].shared, false);
    const addresses = ports.map((p: Json) => p.fixed_ips[0].ip_address);
    assert.deepEqual(
      [...report.octavia.health_manager.controller_ip_port_list].sort(),
      addresses.map((a: string) => `${a}:5555`).sort(),
    );
    assert.equal(report.controllerListChanged, true);
    assert.deepEqual(
      report.status.conditions.map((c) => [c.type, c.status]),
      [
        ['Ready', 'True'],
        ['NetworkReady', 'True'],
        ['SecurityGroupsReady', 'True'],
        ['PortsReady', 'True'],
        ['PortsBound', 'False'],
      ],
    );

    client.resetCounts();
    const again = await applySpec(makeSpec(), client, { previous: report.status });
    assert.deepEqual(
      again.objects.filter((o) => o.action !== 'unchanged'),
      [],
    );
    assert.ok(again.objects.length >= 14, `every object is reported (${again.objects.length})`);
    assert.equal(again.calls.writes, 0);
    assert.equal(client.calls.writes, 0);
    assert.equal(again.controllerListChanged, false);
    assert.equal(
      again.status.conditions.find((c) => c.type === 'Ready')!.lastTransitionTime,
      report.status.conditions.find((c) => c.type === 'Ready')!.lastTransitionTime,
    );
  });

  it("node join creates that node's port, node leave deletes it; the list change is reported", async () => {
    const client = clientFor(api.url);
    const first = await applySpec(makeSpec(), client);
    assert.equal(first.error, undefined);
    const joined = await applySpec(
      makeSpec({ nodes: [{ name: 'node1' }, { name: 'node2' }, { name: 'node3' }] }),
      client,
      {
        previous: first.status,
      },
    );
    assert.equal(joined.error, undefined);
    assert.deepEqual(
      joined.objects.filter((o) => o.action !== 'unchanged').map((o) => [o.kind, o.name, o.action]),
      [['port', 'octavia-health-manager-node3-listen-port', 'created']],
    );
    assert.equal(joined.controllerListChanged, true);
    assert.equal(joined.octavia.health_manager.controller_ip_port_list.length, 3);
    const left = await applySpec(makeSpec({ nodes: [{ name: 'node1' }, { name: 'node3' }] }), client, {
      previous: joined.status,
    });
    assert.equal(left.error, undefined);
    assert.deepEqual(
      left.objects.filter((o) => o.action !== 'unchanged').map((o) => [o.kind, o.name, o.action]),
      [['port', 'octavia-health-manager-node2-listen-port', 'deleted']],
    );
    assert.equal(left.controllerListChanged, true);
    const ports = (await owned('ports')).map((p) => p.name).sort();
    assert.deepEqual(ports, ['octavia-health-manager-node1-listen-port', 'octavia-health-manager-node3-listen-port']);
    const entries = left.octavia.health_manager.controller_ip_port_list;
    assert.deepEqual(
      entries,
      [...entries].sort((a, b) => compareIpPort(a, b)),
    );
  });

  it('keeps security-group rules by full diff: a foreign rule on our group is removed, a deleted one comes back', async () => {
    const client = clientFor(api.url);
    const first = await applySpec(makeSpec(), client);
    assert.equal(first.error, undefined);
    const amphoraId = first.status.ids.amphoraSecurityGroup!;
    const extra = await api.admin.post('/v2.0/security-group-rules', {
      security_group_rule: {
        security_group_id: amphoraId,
        direction: 'ingress',
        protocol: 'tcp',
        port_range_min: 80,
        port_range_max: 80,
      },
    });
    assert.equal(extra.status, 201);
    const groups = await owned('security-groups');
    const nine = groups
      .find((g) => g.id === amphoraId)
      .security_group_rules.find((r: Json) => r.port_range_min === 9443);
    assert.equal((await api.admin.delete(`/v2.0/security-group-rules/${nine.id}`)).status, 204);
    const fixed = await applySpec(makeSpec(), client, { previous: first.status });
    assert.equal(fixed.error, undefined);
    const changes = fixed.objects.filter((o) => o.action !== 'unchanged');
    assert.deepEqual(
      changes.map((o) => [o.kind, o.action, o.id === extra.body.security_group_rule.id || o.name.includes('9443')]),
      [
        ['security_group_rule', 'deleted', true],
        ['security_group_rule', 'created', true],
      ],
    );
    const again = await applySpec(makeSpec(), client, { previous: fixed.status });
    assert.equal(again.calls.writes, 0);
  });

  it('dual stack with pinned addresses: one subnet per family, the addresses pinned, IPv6 bracketed in the list', async () => {
    const client = clientFor(api.url);
    const spec = makeSpec(
      {
        network: { cidr: ['10.77.0.0/24', 'fd00:77::/64'] },
        nodes: [
          { name: 'c1', fixedIps: ['10.77.0.21', 'fd00:77::21'] },
          { name: 'c2', fixedIps: ['10.77.0.12', 'fd00:77::12'] },
        ],
      },
      'dual',
    );
    const report = await applySpec(spec, client);
    assert.equal(report.error, undefined);
    const subnets = (await owned('subnets', 'dual')).map((s) => [s.name, s.cidr, s.ip_version]).sort();
    assert.deepEqual(subnets, [
      ['lb-mgmt-subnet', '10.77.0.0/24', 4],
      ['lb-mgmt-subnet-v6', 'fd00:77::/64', 6],
    ]);
    assert.deepEqual(
      report.nodes.map((n) => [n.name, [...n.fixedIps].sort()]),
      [
        ['c1', ['10.77.0.21', 'fd00:77::21']],
        ['c2', ['10.77.0.12', 'fd00:77::12']],
      ],
    );
    // IPv4 preferred, sorted numerically (not by node name).
    assert.deepEqual(report.octavia.health_manager.controller_ip_port_list, ['10.77.0.12:5555', '10.77.0.21:5555']);
    const health = (await owned('security-groups', 'dual')).find((g) => g.name === 'lb-health-mgr-sec-grp');
    const udp = health.security_group_rules
      .filter((r: Json) => r.protocol === 'udp')
      .map((r: Json) => `${r.ethertype} ${r.remote_ip_prefix}`)
      .sort();
    assert.deepEqual(udp, ['IPv4 10.77.0.0/24', 'IPv6 fd00:77::/64']);
    const v6only = makeSpec({ network: { cidr: 'fd00:78::/64', name: 'v6-net' }, nodes: [{ name: 'c1' }] }, 'v6only');
    const v6 = await applySpec(v6only, client);
    assert.match(v6.octavia.health_manager.controller_ip_port_list[0]!, /^\[fd00:78::[0-9a-f:]+\]:5555$/);
    const again = await applySpec(spec, client, { previous: report.status });
    assert.equal(again.calls.writes, 0);
  });

  it('keeps binding:host_id set by the node agent, and deletes a second port tagged for the same node', async () => {
    const client = clientFor(api.url);
    const spec = makeSpec({ network: { cidr: '10.44.0.0/24' } }, 'agentset');
    const first = await applySpec(spec, client);
    assert.equal(first.error, undefined);
    const node1 = first.nodes.find((n) => n.name === 'node1')!;
    const bound = await api.admin.put(`/v2.0/ports/${node1.portId}`, { port: { 'binding:host_id': 'node1.example' } });
    assert.equal(bound.status, 200);
    const copy = await api.admin.post('/v2.0/ports', { port: { network_id: first.status.ids.network, name: 'copy' } });
    const copyTags = ['octonet-mgmt-net:agentset', 'octonet-node:node1', 'octonet-role:hm-port'];
    assert.equal((await api.admin.put(`/v2.0/ports/${copy.body.port.id}/tags`, { tags: copyTags })).status, 200);
    const second = await applySpec(spec, client, { previous: first.status });
    assert.deepEqual(
      second.objects.filter((o) => o.action !== 'unchanged').map((o) => [o.kind, o.id, o.action]),
      [['port', copy.body.port.id, 'deleted']],
    );
    assert.equal(second.nodes.find((n) => n.name === 'node1')!.chassis, 'node1.example');
    assert.equal(second.nodes.find((n) => n.name === 'node1')!.portId, node1.portId);
    const third = await applySpec(spec, client, { previous: second.status });
    assert.equal(third.calls.writes, 0);
  });

  it('never touches an untagged look-alike; adopts it only with spec.adopt, and says so', async () => {
    const client = clientFor(api.url);
    const foreign = (
      await api.admin.post('/v2.0/networks', { network: { name: 'shared-name-net', description: 'someone else' } })
    ).body.network;
    assert.equal((await api.admin.put(`/v2.0/networks/${foreign.id}/tags/team-a`)).status, 201);
    foreign.revision_number = (await api.admin.get(`/v2.0/networks/${foreign.id}`)).body.network.revision_number;
    const spec = makeSpec({ network: { cidr: '10.88.0.0/24', name: 'shared-name-net' } }, 'lookalike');
    await assert.rejects(applySpec(spec, client), (error: unknown) => {
      assert.ok(error instanceof SpecError);
      assert.equal(error.field, 'spec.network.name');
      assert.match(error.message, /untagged network named "shared-name-net" already exists/);
      return true;
    });
    const after = (await api.admin.get(`/v2.0/networks/${foreign.id}`)).body.network;
    assert.deepEqual(
      [after.name, after.description, after.tags, after.revision_number],
      ['shared-name-net', 'someone else', ['team-a'], foreign.revision_number],
    );
    assert.deepEqual(await owned('security-groups', 'lookalike'), [], 'refused before any write');

    const logged: string[] = [];
    const adopted = await applySpec(
      makeSpec({ adopt: true, network: { cidr: '10.88.0.0/24', name: 'shared-name-net' } }, 'lookalike'),
      client,
      {
        log: (m) => logged.push(m),
      },
    );
    assert.equal(adopted.error, undefined);
    assert.deepEqual(
      adopted.objects.filter((o) => o.kind === 'network').map((o) => [o.id, o.action]),
      [[foreign.id, 'adopted']],
    );
    assert.ok(logged.some((m) => m.includes('adopted')));
    const tagged = (await api.admin.get(`/v2.0/networks/${foreign.id}`)).body.network;
    assert.ok(tagged.tags.includes('octonet-mgmt-net:lookalike'));
    assert.ok(tagged.tags.includes('team-a'), "someone else's tag stays");
    const again = await applySpec(
      makeSpec({ adopt: true, network: { cidr: '10.88.0.0/24', name: 'shared-name-net' } }, 'lookalike'),
      client,
      { previous: adopted.status },
    );
    assert.deepEqual(
      again.objects.filter((o) => o.action !== 'unchanged'),
      [],
    );
    assert.equal(again.calls.writes, 0, 'a foreign tag on an owned object is not a difference');
  });
});

function compareIpPort(a: string, b: string): number {
  const key = (s: string) =>
    s
      .split(':')[0]!
      .split('.')
      .map((n) => n.padStart(3, '0'))
      .join('.');
  return key(a).localeCompare(key(b));
}
