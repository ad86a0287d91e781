/** Where each advertised route is announced: the gateway's chassis, or the port's when distributed. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiSnapshot } from './agent-api.js';
import { agentIdFor } from './agent-sb.js';
import { placeRoutes, type OvnLocation } from './placement.js';

const GW = 'gw000000-0000-0000-0000-000000000001';
const VM_PORT = 'vm000000-0000-0000-0000-000000000001';

const snapshot: ApiSnapshot = {
  speakers: [
    {
      speaker: { id: 's1', name: 's1', local_as: 64999, ip_version: 4, peers: ['p1'] },
      peers: [{ id: 'p1', peer_ip: '198.51.100.251', remote_as: 64901 }],
      routes: [
        { destination: '198.51.100.50/32', next_hop: '198.51.100.5' },
        { destination: '10.0.0.0/24', next_hop: '198.51.100.5' },
        { destination: '10.9.0.0/24', next_hop: '198.51.100.99' },
      ],
    },
    {
      speaker: { id: 's2', name: 'other AS', local_as: 65001, ip_version: 4, peers: [] },
      peers: [],
      routes: [{ destination: '10.7.0.0/24', next_hop: '198.51.100.5' }],
    },
  ],
  floatingIps: [{ floating_ip_address: '198.51.100.50', port_id: VM_PORT, router_id: 'r1' }],
  gatewayPorts: [{ id: GW, addresses: ['198.51.100.5'] }],
};

const where = (bindings: Record<string, string>): OvnLocation => ({ chassisOf: (port) => bindings[port] });
const options = { chassis: 'node1', distributedFloatingIps: false, peerPasswords: new Map([['198.51.100.251', 'pw']]) };

describe('placeRoutes', () => {
  it('centralized: everything behind a gateway is announced from its active chassis only', () => {
    const here = placeRoutes(snapshot, where({ [`cr-lrp-${GW}`]: 'node1', [VM_PORT]: 'node2' }), options);
    assert.deepEqual(here.announced, [
      { prefix: '198.51.100.50/32', nextHop: '198.51.100.5' },
      { prefix: '10.0.0.0/24', nextHop: '198.51.100.5' },
    ]);
    assert.deepEqual(here.allowed, ['198.51.100.50/32', '10.0.0.0/24', '10.9.0.0/24']);
    assert.deepEqual(here.peers, [{ address: '198.51.100.251', remoteAs: 64901, password: 'pw' }]);
    assert.equal(here.localAs, 64999);
    assert.deepEqual(here.skippedSpeakers, ['s2']);
    const elsewhere = placeRoutes(snapshot, where({ [`cr-lrp-${GW}`]: 'node2' }), options);
    assert.deepEqual(elsewhere.announced, [], 'the gateway moved: nothing from here, the filter unchanged');
    assert.deepEqual(elsewhere.allowed, here.allowed);
  });

  it('distributed: a floating IP follows its port, with this node as next hop', () => {
    const distributed = { ...options, distributedFloatingIps: true };
    const onVmChassis = placeRoutes(snapshot, where({ [`cr-lrp-${GW}`]: 'node2', [VM_PORT]: 'node1' }), distributed);
    assert.deepEqual(onVmChassis.announced, [{ prefix: '198.51.100.50/32' }]);
    const onGateway = placeRoutes(snapshot, where({ [`cr-lrp-${GW}`]: 'node1', [VM_PORT]: 'node2' }), distributed);
    assert.deepEqual(onGateway.announced, [{ prefix: '10.0.0.0/24', nextHop: '198.51.100.5' }]);
  });

  it('no speaker: no AS, nothing announced', () => {
    const none = placeRoutes({ speakers: [], floatingIps: [], gatewayPorts: [] }, where({}), options);
    assert.equal(none.localAs, undefined);
    assert.deepEqual(none.announced, []);
  });

  it('the agent id is a stable UUID per chassis', () => {
    assert.equal(agentIdFor('node1'), agentIdFor('node1'));
    assert.notEqual(agentIdFor('node1'), agentIdFor('node2'));
    assert.match(agentIdFor('node1'), /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
