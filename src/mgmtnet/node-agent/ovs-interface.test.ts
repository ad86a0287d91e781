import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalAddress, routeKey } from './link.js';
import { interfaceDrift, type ActualInterface, type WantedInterface } from './ovs-interface.js';

const wanted: WantedInterface = { name: 'o-hm0', portId: 'p1', mac: 'fa:16:3e:00:00:01', mtu: 1442, owner: 'lb-mgmt' };
const actual = (changes: Partial<ActualInterface> = {}): ActualInterface => ({
  name: 'o-hm0',
  bridge: 'br-int',
  type: 'internal',
  externalIds: {
    'iface-id': 'p1',
    'attached-mac': 'fa:16:3e:00:00:01',
    'iface-status': 'active',
    'octonet-mgmt-net': 'lb-mgmt',
    'ovn-installed': 'true',
  },
  mtuRequest: 1442,
  mac: 'fa:16:3e:00:00:01',
  ofport: 3,
  error: undefined,
  ...changes,
});

describe('the node interface in OVS', () => {
  it('no drift when everything matches (keys ovn-controller adds are not drift)', () => {
    assert.deepEqual(interfaceDrift(actual(), wanted), { replug: false, drift: [] });
  });

  it('MAC and MTU drift are repaired in place', () => {
    const found = interfaceDrift(actual({ mtuRequest: undefined, mac: '02:00:00:00:00:99' }), wanted);
    assert.deepEqual(found, { replug: false, drift: ['mtu_request', 'mac'] });
  });

  it('another port id, another bridge or a non-internal type means re-plugging', () => {
    const ids = { ...actual().externalIds, 'iface-id': 'p0' };
    assert.equal(interfaceDrift(actual({ externalIds: ids }), wanted).replug, true);
    assert.equal(interfaceDrift(actual({ bridge: 'br-ex' }), wanted).replug, true);
    assert.equal(interfaceDrift(actual({ type: '' }), wanted).replug, true);
  });
});

describe('addresses and routes as iproute2 and Neutron spell them', () => {
  it('one spelling for IPv6, whatever the source wrote', () => {
    assert.equal(canonicalAddress('fd00:0:0:42:0:0:0:1/64'), 'fd00:0:0:42::1/64');
    assert.equal(
      routeKey({ destination: '172.24.0.0/16', nexthop: '192.168.240.1', mtu: 1442 }),
      '172.24.0.0/16 via 192.168.240.1 mtu 1442',
    );
  });
});
