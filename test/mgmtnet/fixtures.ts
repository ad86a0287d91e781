/**
 * Shared pieces of the management-network tests: specs built from the minimal one, a
 * Neutron client counting its calls against a test server, and normalised views of what exists.
 */
import { NeutronClient } from '../../src/mgmtnet/neutron-client.js';
import { validateSpec, type MgmtNetSpec } from '../../src/mgmtnet/spec.js';

/** The minimal spec of the issue, with `spec` fields merged over it. */
export function makeSpec(spec: Record<string, unknown> = {}, name = 'lb-mgmt'): MgmtNetSpec {
  return validateSpec(rawSpec(spec, name));
}

export function rawSpec(spec: Record<string, unknown> = {}, name = 'lb-mgmt'): Record<string, unknown> {
  return {
    apiVersion: 'octonet.dev/v1',
    kind: 'OctaviaManagementNetwork',
    metadata: { name },
    spec: {
      topology: 'per-node-ports',
      network: { cidr: '172.24.0.0/16' },
      nodes: [{ name: 'node1' }, { name: 'node2' }],
      ...spec,
    },
  };
}

export function clientFor(url: string): NeutronClient {
  return NeutronClient.noauth(url);
}
