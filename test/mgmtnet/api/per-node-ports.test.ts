/**
 * `applySpec` with topology per-node-ports against a real octonet over HTTP: the objects it makes
 * (names, tags, device_owner, security-group rules), that a second apply changes nothing and writes
 * nothing, node join and leave, and that an untagged look-alike is never touched.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useApi } from '../../fixtures/api.js';
import { applySpec } from '../../../src/mgmtnet/reconcile.js';
import { clientFor, makeSpec } from '../fixtures.js';

describe('mgmt-net per-node-ports (octonet)', () => {
  const api = useApi('sqlite');

  it('creates the network, subnet, both groups with their rules and one tagged port per node', async () => {
    const client = clientFor(api.url);
    const report = await applySpec(makeSpec(), client);
    assert.equal(report.error, undefined);
    const nets = (await api.admin.get('/v2.0/networks?tags=octonet-mgmt-net:lb-mgmt')).body.networks;
    assert.equal(nets.length, 1);
    assert.equal(nets[0].name, 'lb-mgmt-net');
    const subnets = (await api.admin.get(`/v2.0/subnets?network_id=${nets[0].id}`)).body.subnets;
    assert.deepEqual(
      subnets.map((s: any) => [s.name, s.cidr, s.gateway_ip]),
      [['lb-mgmt-subnet', '172.24.0.0/16', null]],
    );
    const ports = (await api.admin.get(`/v2.0/ports?network_id=${nets[0].id}&device_owner=Octavia:health-mgr`)).body
      .ports;
    assert.deepEqual(ports.map((p: any) => p.name).sort(), [
      'octavia-health-manager-node1-listen-port',
      'octavia-health-manager-node2-listen-port',
    ]);
    const node1 = ports.find((p: any) => p.name.includes('node1'));
    assert.deepEqual([...node1.tags].sort(), [
      'octonet-mgmt-net:lb-mgmt',
      'octonet-node:node1',
      'octonet-role:hm-port',
    ]);
    assert.equal(node1.device_id, 'octonet-mgmt-net:lb-mgmt:node1');
    const sgs = (await api.admin.get('/v2.0/security-groups?tags=octonet-mgmt-net:lb-mgmt')).body.security_groups;
    assert.deepEqual(sgs.map((g: any) => g.name).sort(), ['lb-health-mgr-sec-grp', 'lb-mgmt-sec-grp']);
    const health = sgs.find((g: any) => g.name === 'lb-health-mgr-sec-grp');
    assert.deepEqual(node1.security_groups, [health.id]);
    const ingress = health.security_group_rules
      .filter((r: any) => r.direction === 'ingress')
      .map((r: any) => `${r.protocol}/${r.port_range_min}/${r.remote_ip_prefix}`)
      .sort();
    assert.deepEqual(ingress, ['icmp/null/172.24.0.0/16', 'udp/5555/172.24.0.0/16']);
    assert.deepEqual(report.octavia.controller_worker.amp_boot_network_list, [nets[0].id]);
    assert.equal(report.nodes.length, 2);
    assert.equal(report.octavia.health_manager.controller_ip_port_list.length, 2);

    client.resetCounts();
    const again = await applySpec(makeSpec(), client, { previous: report.status });
    assert.deepEqual(
      again.objects.filter((o) => o.action !== 'unchanged'),
      [],
    );
    assert.equal(again.calls.writes, 0);
    assert.equal(again.controllerListChanged, false);
  });
});
