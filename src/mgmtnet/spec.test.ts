/**
 * The spec: the issue's minimal YAML is enough (every default filled in), and each kind of bad input
 * is refused with a message that starts with the field's path.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSpec, requireNode, SpecError, validateSpec } from './spec.js';

const MINIMAL = `
apiVersion: octonet.dev/v1
kind: OctaviaManagementNetwork
metadata: {name: lb-mgmt}
spec:
  topology: per-node-ports
  network: {cidr: 172.24.0.0/16}
  nodes: [{name: node1}, {name: node2}]
`;

function base(spec: Record<string, unknown>): Record<string, unknown> {
  return {
    apiVersion: 'octonet.dev/v1',
    kind: 'OctaviaManagementNetwork',
    metadata: { name: 'm' },
    spec: { network: { cidr: '10.0.0.0/24' }, nodes: [{ name: 'n1' }], ...spec },
  };
}

function refuses(spec: Record<string, unknown>, field: string, pattern: RegExp): void {
  assert.throws(
    () => validateSpec(base(spec)),
    (error: unknown) => {
      assert.ok(error instanceof SpecError, String(error));
      assert.equal(error.field, field);
      assert.match(error.message, pattern);
      return true;
    },
  );
}

describe('mgmt-net spec', () => {
  it('fills every documented default from the minimal spec of the issue', () => {
    const spec = parseSpec(MINIMAL);
    assert.equal(spec.metadata.name, 'lb-mgmt');
    const s = spec.spec;
    assert.deepEqual(
      [
        s.topology,
        s.adopt,
        s.network.name,
        s.network.subnetName,
        s.network.cidrs,
        s.network.mtu,
        s.network.underlayMtu,
      ],
      ['per-node-ports', false, 'lb-mgmt-net', 'lb-mgmt-subnet', ['172.24.0.0/16'], undefined, 1500],
    );
    assert.equal(s.nodeInterface, 'o-hm0');
    assert.equal(s.addressing.mode, 'static');
    assert.deepEqual(s.securityGroups, {
      amphoraName: 'lb-mgmt-sec-grp',
      healthManagerName: 'lb-health-mgr-sec-grp',
      amphoraAgentPort: 9443,
      healthManagerPort: 5555,
      ssh: false,
      icmp: true,
    });
    assert.deepEqual(s.provider, { physicalNetwork: 'physnet1', networkType: 'flat' });
    assert.equal(s.linkRouter.routerName, 'octavia-link-router');
    assert.deepEqual(
      s.nodes.map((n) => n.name),
      ['node1', 'node2'],
    );
  });

  it('names the field of each bad input', () => {
    refuses({ network: { cidr: '10.0.0.0/33' } }, 'spec.network.cidr', /not a CIDR/);
    refuses(
      { network: { cidr: '10.0.0.1/24' } },
      'spec.network.cidr',
      /host bits set \(did you mean 10\.0\.0\.0\/24\?\)/,
    );
    refuses({ network: { cidr: ['10.0.0.0/24', '10.1.0.0/24'] } }, 'spec.network.cidr', /one IPv4 and one IPv6/);
    refuses({ network: { cidr: 'fd00::/64', mtu: 1200 } }, 'spec.network.mtu', /below 1280/);
    refuses({ network: { cidr: '10.0.0.0/24', mtu: 1443 } }, 'spec.network.mtu', /1443 is larger than 1442/);
    refuses(
      { topology: 'provider', network: { cidr: '10.0.0.0/24', mtu: 1501 } },
      'spec.network.mtu',
      /larger than 1500, the underlay MTU/,
    );
    refuses({ topology: 'mesh' }, 'spec.topology', /per-node-ports/);
    refuses({ topology: 'link-router' }, 'spec.linkRouter.cidr', /required for topology link-router/);
    refuses(
      { topology: 'link-router', linkRouter: { cidr: '10.0.0.128/25' } },
      'spec.linkRouter.cidr',
      /overlaps the tenant CIDR 10\.0\.0\.0\/24/,
    );
    refuses(
      { topology: 'link-router', linkRouter: { cidr: '10.9.0.0/24', gatewayIp: '10.8.0.1' } },
      'spec.linkRouter.gatewayIp',
      /not in 10\.9\.0\.0\/24/,
    );
    refuses({ linkRouter: { cidr: '10.9.0.0/24' } }, 'spec.linkRouter.cidr', /only used with topology link-router/);
    refuses({ topology: 'provider', provider: { networkType: 'vlan' } }, 'spec.provider.segmentationId', /required/);
    refuses({ nodes: [{ name: 'a' }, { name: 'a' }] }, 'spec.nodes.1.name', /listed twice/);
    refuses({ nodes: [{ name: 'a', fixedIps: ['10.1.0.5'] }] }, 'spec.nodes.0.fixedIps.0', /not in 10\.0\.0\.0\/24/);
    refuses({ nodes: undefined }, 'spec.nodes', /list the controller nodes/);
    refuses(
      {
        nodes: [
          { name: 'a', fixedIps: ['10.0.0.5'] },
          { name: 'b', fixedIps: ['10.0.0.5'] },
        ],
      },
      'spec.nodes.1.fixedIps.0',
      /also pinned for node a/,
    );
    refuses(
      { topology: 'link-router', linkRouter: { cidr: '10.9.0.0/24' }, nodes: [{ name: 'a', fixedIps: ['10.9.0.1'] }] },
      'spec.nodes.0.fixedIps.0',
      /the link router's address/,
    );
    refuses({ nodeInterface: 'a-very-long-interface' }, 'spec.nodeInterface', /15 characters/);
    refuses({ network: { cidr: '10.0.0.0/24', colour: 'blue' } }, 'spec.network', /colour/);
    assert.throws(() => validateSpec({ ...base({}), kind: 'Other' }), /^SpecError: kind: /);
    assert.throws(
      () => parseSpec('a: [b'),
      (e: unknown) => e instanceof SpecError && e.field === '(document)',
    );
  });

  it('refuses a node that is not in the list, naming the known ones', () => {
    const spec = parseSpec(MINIMAL);
    assert.equal(requireNode(spec, 'node2').name, 'node2');
    assert.throws(
      () => requireNode(spec, 'node7', '--node'),
      /^SpecError: --node: "node7" is not one of spec.nodes \(node1, node2\)$/,
    );
  });
});
