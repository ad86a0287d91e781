import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PortState, QosRuleState } from '../host.js';
import { effectiveQosPolicyId, portQosRows, withQos } from './qos.js';

const port = (overrides: Partial<PortState> = {}): PortState => ({
  id: 'p1',
  name: '',
  network_id: 'n1',
  project_id: 'proj',
  mac_address: 'fa:16:3e:00:00:01',
  fixed_ips: [],
  admin_state_up: true,
  status: 'DOWN',
  device_id: 'vm',
  device_owner: 'compute:nova',
  port_security_enabled: true,
  security_groups: [],
  allowed_address_pairs: [],
  extra_dhcp_opts: [],
  'binding:host_id': '',
  'binding:vnic_type': 'normal',
  'binding:profile': {},
  'binding:vif_type': 'unbound',
  qos_policy_id: null,
  qos_network_policy_id: null,
  revision_number: 1,
  ...overrides,
});

const rule = (r: Partial<QosRuleState> & Pick<QosRuleState, 'type'>): QosRuleState => ({
  id: `${r.type}-${r.direction ?? ''}`,
  direction: '',
  max_kbps: null,
  max_burst_kbps: null,
  dscp_mark: null,
  min_kbps: null,
  ...r,
});

describe('OVN QoS mapping', () => {
  it('takes the port’s own policy before its network’s, and none for Neutron’s own ports', () => {
    assert.equal(effectiveQosPolicyId(port({ qos_policy_id: 'a', qos_network_policy_id: 'b' })), 'a');
    assert.equal(effectiveQosPolicyId(port({ qos_network_policy_id: 'b' })), 'b');
    assert.equal(effectiveQosPolicyId(port({ device_owner: 'network:dhcp', qos_policy_id: 'a' })), null);
  });

  it('combines the egress limit and the DSCP mark in one row; the ingress limit gets its own', () => {
    const rows = portQosRows(port(), [
      rule({ type: 'bandwidth_limit', direction: 'egress', max_kbps: 1000, max_burst_kbps: 0 }),
      rule({ type: 'dscp_marking', dscp_mark: 26 }),
      rule({ type: 'bandwidth_limit', direction: 'ingress', max_kbps: 500, max_burst_kbps: 400 }),
      rule({ type: 'minimum_bandwidth', direction: 'egress', min_kbps: 100 }),
    ]);
    assert.deepEqual(
      rows.map((r) => [r.direction, r.match, r.bandwidth, r.action]),
      [
        ['from-lport', 'inport == "p1"', { rate: 1000 }, { dscp: 26 }],
        ['to-lport', 'outport == "p1"', { rate: 500, burst: 400 }, {}],
      ],
    );
  });

  it('writes no row for a direction with nothing OVN can enforce (a 0 kbps limit, a minimum only)', () => {
    const rows = portQosRows(port(), [
      rule({ type: 'bandwidth_limit', direction: 'ingress', max_kbps: 0 }),
      rule({ type: 'minimum_bandwidth', direction: 'egress', min_kbps: 100 }),
    ]);
    assert.deepEqual(rows, []);
  });

  it('reports the port’s outcome, or `updated` when only its QoS rows change', () => {
    const op = { op: 'delete', table: 'QoS', where: [] } as const;
    assert.equal(withQos({ ops: [], outcome: 'unchanged' }, { ops: [op], outcome: 'created' }).outcome, 'updated');
    assert.equal(withQos({ ops: [op], outcome: 'created' }, { ops: [op], outcome: 'created' }).outcome, 'created');
    assert.equal(
      withQos({ ops: [], outcome: 'unchanged', superseded: true }, { ops: [op], outcome: 'created' }).ops.length,
      0,
    );
  });
});
