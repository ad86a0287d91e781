import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  advertisedRoutes,
  speakerAddressScopes,
  wireRoutes,
  type RouteTopology,
  type RouterFacts,
  type SpeakerFacts,
  type SubnetFacts,
} from './routes.js';

const speaker4: SpeakerFacts = {
  id: 'sp4',
  ipVersion: 4,
  advertiseFloatingIpHostRoutes: true,
  advertiseTenantNetworks: true,
  networkIds: ['ext'],
};
const speaker6: SpeakerFacts = { ...speaker4, id: 'sp6', ipVersion: 6 };

const subnets: SubnetFacts[] = [
  { id: 'ext-v4', networkId: 'ext', ipVersion: 4, cidr: '203.0.113.0/24', addressScopeId: 'scope4' },
  { id: 'ext-v6', networkId: 'ext', ipVersion: 6, cidr: '2001:db8::/64', addressScopeId: 'scope6' },
  { id: 'in-scope', networkId: 'tenant-a', ipVersion: 4, cidr: '10.1.0.0/24', addressScopeId: 'scope4' },
  { id: 'other-scope', networkId: 'tenant-b', ipVersion: 4, cidr: '10.2.0.0/24', addressScopeId: 'elsewhere' },
  { id: 'no-scope', networkId: 'tenant-c', ipVersion: 4, cidr: '10.3.0.0/24', addressScopeId: null },
  { id: 'in-scope-v6', networkId: 'tenant-a', ipVersion: 6, cidr: '2001:db8:1::/64', addressScopeId: 'scope6' },
];

const router: RouterFacts = {
  id: 'r1',
  adminStateUp: true,
  gatewayPortId: 'gw1',
  gatewayIps: [
    { subnetId: 'ext-v4', ipAddress: '203.0.113.10' },
    { subnetId: 'ext-v6', ipAddress: '2001:db8::10' },
  ],
  interfaceIps: [
    { subnetId: 'in-scope', ipAddress: '10.1.0.1' },
    { subnetId: 'other-scope', ipAddress: '10.2.0.1' },
    { subnetId: 'no-scope', ipAddress: '10.3.0.1' },
    { subnetId: 'in-scope-v6', ipAddress: '2001:db8:1::1' },
  ],
};

const topology: RouteTopology = {
  subnets,
  routers: [router],
  floatingIps: [
    { id: 'f1', address: '203.0.113.50', floatingNetworkId: 'ext', routerId: 'r1', fixedPortId: 'p1' },
    { id: 'f-unassociated', address: '203.0.113.51', floatingNetworkId: 'ext', routerId: null, fixedPortId: null },
    { id: 'f-elsewhere', address: '198.51.100.5', floatingNetworkId: 'other-ext', routerId: 'r1', fixedPortId: 'p2' },
  ],
};

describe('advertised routes (n-d-r rules)', () => {
  it('advertises associated floating IPs as /32 host routes and in-scope tenant subnets, via the gateway', () => {
    assert.deepEqual(wireRoutes(advertisedRoutes(speaker4, topology)), [
      { destination: '203.0.113.50/32', next_hop: '203.0.113.10' },
      { destination: '10.1.0.0/24', next_hop: '203.0.113.10' },
    ]);
  });

  it('says which router and gateway port a route belongs to', () => {
    const [fip, tenant] = advertisedRoutes(speaker4, topology);
    assert.equal(fip!.kind, 'floatingip');
    assert.equal(fip!.gateway_port_id, 'gw1');
    assert.equal(fip!.floatingip_id, 'f1');
    assert.equal(fip!.fixed_port_id, 'p1');
    assert.equal(tenant!.kind, 'tenant_network');
    assert.equal(tenant!.router_id, 'r1');
  });

  it('gives an IPv6 speaker the IPv6 tenant prefixes with the IPv6 gateway as next hop', () => {
    assert.deepEqual(wireRoutes(advertisedRoutes(speaker6, topology)), [
      { destination: '2001:db8:1::/64', next_hop: '2001:db8::10' },
    ]);
  });

  it('advertises IPv6 floating IPs as /128 host routes', () => {
    const v6 = {
      ...topology,
      floatingIps: [{ id: 'f6', address: '2001:db8::99', floatingNetworkId: 'ext', routerId: 'r1', fixedPortId: 'p' }],
    };
    assert.deepEqual(wireRoutes(advertisedRoutes(speaker6, v6)).slice(0, 1), [
      { destination: '2001:db8::99/128', next_hop: '2001:db8::10' },
    ]);
  });

  it('follows the speaker flags', () => {
    const noFips = advertisedRoutes({ ...speaker4, advertiseFloatingIpHostRoutes: false }, topology);
    assert.deepEqual(
      noFips.map((r) => r.kind),
      ['tenant_network'],
    );
    const noTenants = advertisedRoutes({ ...speaker4, advertiseTenantNetworks: false }, topology);
    assert.deepEqual(
      noTenants.map((r) => r.kind),
      ['floatingip'],
    );
  });

  it('advertises nothing behind a router that is down or without a gateway', () => {
    assert.deepEqual(advertisedRoutes(speaker4, { ...topology, routers: [{ ...router, adminStateUp: false }] }), []);
    assert.deepEqual(
      advertisedRoutes(speaker4, { ...topology, routers: [{ ...router, gatewayPortId: null, gatewayIps: [] }] }),
      [],
    );
  });

  it('advertises nothing for a speaker without gateway networks', () => {
    assert.deepEqual(advertisedRoutes({ ...speaker4, networkIds: [] }, topology), []);
  });

  it('takes the speaker scopes from the bound networks of its family only', () => {
    assert.deepEqual([...speakerAddressScopes(speaker4, subnets)], ['scope4']);
    assert.deepEqual([...speakerAddressScopes(speaker6, subnets)], ['scope6']);
  });

  it('never advertises the gateway network itself as a tenant network', () => {
    const onGateway: RouterFacts = { ...router, interfaceIps: [{ subnetId: 'ext-v4', ipAddress: '203.0.113.1' }] };
    assert.deepEqual(
      advertisedRoutes({ ...speaker4, advertiseFloatingIpHostRoutes: false }, { ...topology, routers: [onGateway] }),
      [],
    );
  });
});
