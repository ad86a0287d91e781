/**
 * QoS in the OVN NB against a real OVN central: a port's policy (its own, or its network's)
 * becomes one `QoS` row per direction on its switch, as ML2/OVN writes them (priority 2002,
 * `inport`/`outport` match, `bandwidth` rate and burst, `action` dscp, `neutron:port_id`); rule
 * changes, network policies and detaching follow; rows changed or deleted by hand are repaired and
 * a full pass leaves correct rows alone. Rows are read back with `ovn-nbctl`.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { OvnMechanismDriver } from '../../src/drivers/ovn/driver.js';
import type { FullSyncReport } from '../../src/drivers/ovn/repair/full-sync.js';
import { newProjectId, useApi, type Client } from '../fixtures/api.js';
import type { Json } from '../fixtures/json.js';
import { eventually, useOvnCentral } from '../fixtures/ovn-central.js';

/** The driver's full pass, run now (its repair loop is private: the test reaches in on purpose). */
const fullPass = (driver: OvnMechanismDriver): Promise<FullSyncReport> =>
  (driver as unknown as { repair: { fullSync(): Promise<FullSyncReport> } }).repair.fullSync();

describe('QoS rows in the OVN NB (sqlite)', () => {
  const ovn = useOvnCentral();
  const api = useApi('sqlite', { config: () => ({ ovn: { nb_connection: ovn.nb, sb_connection: ovn.sb } }) });
  const project = newProjectId();
  let admin: Client;
  let member: Client;
  let net: Json;
  let policy: Json;
  let port: Json;
  let other: Json;

  const qosOf = (portId: string) =>
    ovn
      .nbRows('QoS')
      .filter((r) => r.external_ids['neutron:port_id'] === portId)
      .sort((a, b) => String(a.direction).localeCompare(String(b.direction)));
  const switchRow = () => ovn.nbRows('Logical_Switch').find((r) => r.name === `neutron-${net.id}`)!;

  before(async () => {
    admin = api.as({ project, roles: ['admin', 'member', 'reader'] });
    member = api.as({ project });
    net = (await member.post('/v2.0/networks', { network: { name: 'qos' } })).body.network;
    await member.post('/v2.0/subnets', { subnet: { network_id: net.id, cidr: '10.80.0.0/24', ip_version: 4 } });
    policy = (await admin.post('/v2.0/qos/policies', { policy: { name: 'gold', shared: true } })).body.policy;
    const rules = `/v2.0/qos/policies/${policy.id}`;
    await admin.post(`${rules}/bandwidth_limit_rules`, {
      bandwidth_limit_rule: { max_kbps: 10000, max_burst_kbps: 8000 },
    });
    await admin.post(`${rules}/bandwidth_limit_rules`, {
      bandwidth_limit_rule: { max_kbps: 5000, direction: 'ingress' },
    });
    await admin.post(`${rules}/dscp_marking_rules`, { dscp_marking_rule: { dscp_mark: 26 } });
    port = (await member.post('/v2.0/ports', { port: { network_id: net.id, device_owner: 'compute:nova' } })).body.port;
    other = (await member.post('/v2.0/ports', { port: { network_id: net.id, device_owner: 'compute:nova' } })).body
      .port;
  });

  it('a port without a policy has no QoS rows', () => {
    assert.deepEqual(qosOf(port.id), []);
  });

  it('a port’s policy becomes an egress and an ingress row on its switch, as ML2/OVN writes them', async () => {
    const r = await member.put(`/v2.0/ports/${port.id}`, { port: { qos_policy_id: policy.id } });
    assert.equal(r.status, 200, r.text);
    const [egress, ingress] = qosOf(port.id);
    assert.ok(egress && ingress, 'two rows');
    assert.deepEqual(
      [egress.direction, egress.priority, egress.match, egress.bandwidth, egress.action, egress.external_ids],
      [
        'from-lport',
        2002,
        `inport == "${port.id}"`,
        { rate: 10000, burst: 8000 },
        { dscp: 26 },
        { 'neutron:port_id': port.id },
      ],
    );
    assert.deepEqual(
      [ingress.direction, ingress.priority, ingress.match, ingress.bandwidth, ingress.action],
      ['to-lport', 2002, `outport == "${port.id}"`, { rate: 5000 }, {}],
    );
    assert.deepEqual(switchRow().qos_rules.sort(), [egress._uuid, ingress._uuid].sort(), 'both on the port’s switch');
  });

  it('a rule change reaches the rows of every port using the policy', async () => {
    const rules = (await admin.get(`/v2.0/qos/policies/${policy.id}/bandwidth_limit_rules?direction=egress`)).body;
    const ruleId = rules.bandwidth_limit_rules[0].id;
    await admin.put(`/v2.0/qos/policies/${policy.id}/bandwidth_limit_rules/${ruleId}`, {
      bandwidth_limit_rule: { max_kbps: 20000 },
    });
    assert.deepEqual(qosOf(port.id)[0].bandwidth, { rate: 20000, burst: 8000 });
  });

  it('ports without a policy of their own follow their network’s; Neutron’s own ports do not', async () => {
    const r = await member.put(`/v2.0/networks/${net.id}`, { network: { qos_policy_id: policy.id } });
    assert.equal(r.status, 200, r.text);
    assert.equal(qosOf(other.id).length, 2, 'the other port inherits the network’s policy');
    const metadata = (await admin.get(`/v2.0/ports?network_id=${net.id}&device_owner=network:distributed`)).body
      .ports[0];
    assert.ok(metadata, 'the network has a metadata port');
    assert.deepEqual(qosOf(metadata.id), [], 'a network: port gets no QoS');
  });

  it('rows changed or deleted by hand are repaired without an API call', async () => {
    const [egress] = qosOf(port.id);
    ovn.nbctl('set', 'QoS', egress._uuid, 'bandwidth:rate=1');
    await eventually(() => assert.deepEqual(qosOf(port.id)[0].bandwidth, { rate: 20000, burst: 8000 }));
    ovn.nbctl('qos-del', `neutron-${net.id}`);
    await eventually(() => {
      assert.equal(qosOf(port.id).length, 2, 'the port’s rows are back');
      assert.equal(qosOf(other.id).length, 2, 'the other port’s rows are back');
    });
  });

  it('a full pass leaves correct rows alone', async () => {
    const before = ovn
      .nbRows('QoS')
      .map((r) => r._uuid)
      .sort();
    const driver = api.server.drivers[0] as OvnMechanismDriver;
    // The repairs of the previous test may still be queued: the pass must meet settled rows.
    await driver.settled();
    const report = await fullPass(driver);
    assert.equal(report.created + report.updated + report.deleted, 0, JSON.stringify(report));
    assert.deepEqual(
      ovn
        .nbRows('QoS')
        .map((r) => r._uuid)
        .sort(),
      before,
    );
  });

  it('detaching the policies and deleting a port remove its rows', async () => {
    await member.put(`/v2.0/networks/${net.id}`, { network: { qos_policy_id: null } });
    assert.deepEqual(qosOf(other.id), [], 'the network’s policy is gone from the port that followed it');
    assert.equal(qosOf(port.id).length, 2, 'a port’s own policy stays');
    await member.delete(`/v2.0/ports/${port.id}`);
    assert.deepEqual(qosOf(port.id), []);
    assert.deepEqual(switchRow().qos_rules, []);
  });
});
