/**
 * What the spec wants, without Neutron: the link-router subnets' pools and routes (also with the
 * router's address in the middle of the provider range, and for IPv6), the rule sets per topology,
 * and the rule identity used by the diff.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { desiredSecurityGroups, desiredSubnets, ruleKey } from './desired.js';
import { validateSpec } from './spec.js';

function spec(body: Record<string, unknown>) {
  return validateSpec({
    apiVersion: 'octonet.dev/v1',
    kind: 'OctaviaManagementNetwork',
    metadata: { name: 'd' },
    spec: { nodes: [{ name: 'n1' }], ...body },
  });
}

describe('mgmt-net desired objects', () => {
  it('link-router: the router address stays out of both pools, wherever it is', () => {
    const subnets = desiredSubnets(
      spec({
        topology: 'link-router',
        network: { cidr: '172.24.0.0/16' },
        linkRouter: { cidr: '192.168.240.0/24', gatewayIp: '192.168.240.100' },
      }),
    );
    const provider = subnets.find((s) => s.role === 'provider-subnet')!;
    assert.deepEqual(provider.attributes.allocation_pools, [
      { start: '192.168.240.1', end: '192.168.240.99' },
      { start: '192.168.240.101', end: '192.168.240.254' },
    ]);
    const tenant = subnets.find((s) => s.role === 'mgmt-subnet-v4')!;
    assert.deepEqual(tenant.attributes.host_routes, [{ destination: '192.168.240.0/24', nexthop: '172.24.0.1' }]);
    assert.deepEqual(tenant.attributes.allocation_pools, [{ start: '172.24.0.2', end: '172.24.255.254' }]);
  });

  it('link-router over IPv6: pools and route in IPv6', () => {
    const subnets = desiredSubnets(
      spec({ topology: 'link-router', network: { cidr: 'fd00:24::/64' }, linkRouter: { cidr: 'fd00:240::/64' } }),
    );
    const provider = subnets.find((s) => s.role === 'provider-subnet')!;
    assert.deepEqual(provider.attributes.allocation_pools, [
      { start: 'fd00:240::2', end: 'fd00:240::ffff:ffff:ffff:fffe' },
    ]);
    const tenant = subnets.find((s) => s.role === 'mgmt-subnet-v6')!;
    assert.deepEqual(tenant.attributes.host_routes, [{ destination: 'fd00:240::/64', nexthop: 'fd00:24::1' }]);
  });

  it('rules: 9443 from the controllers, 5555 from the amphorae, SSH only when asked, egress defaults kept', () => {
    const [amphora, health] = desiredSecurityGroups(
      spec({
        topology: 'link-router',
        network: { cidr: '172.24.0.0/16' },
        linkRouter: { cidr: '192.168.240.0/24' },
        securityGroups: { ssh: true, icmp: false },
      }),
    );
    const show = (
      rules: readonly {
        direction: string;
        protocol: string | null;
        port_range_min: number | null;
        remote_ip_prefix: string | null;
      }[],
    ) => rules.map((r) => `${r.direction} ${r.protocol} ${r.port_range_min} ${r.remote_ip_prefix}`);
    assert.deepEqual(show(amphora!.rules), [
      'egress null null null',
      'egress null null null',
      'ingress tcp 9443 192.168.240.0/24',
      'ingress tcp 22 192.168.240.0/24',
    ]);
    assert.deepEqual(show(health!.rules), [
      'egress null null null',
      'egress null null null',
      'ingress udp 5555 172.24.0.0/16',
    ]);
  });

  it('rule identity: protocol spellings Neutron may answer with are the same rule', () => {
    const base = {
      direction: 'ingress',
      ethertype: 'IPv6',
      port_range_min: null,
      port_range_max: null,
      remote_ip_prefix: 'fd00::/64',
    };
    assert.equal(ruleKey({ ...base, protocol: 'ipv6-icmp' }), ruleKey({ ...base, protocol: 'icmpv6' }));
    assert.notEqual(
      ruleKey({ ...base, protocol: 'ipv6-icmp' }),
      ruleKey({ ...base, protocol: 'ipv6-icmp', remote_ip_prefix: 'fd01::/64' }),
    );
  });
});
