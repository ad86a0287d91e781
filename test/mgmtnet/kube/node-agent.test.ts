/**
 * The node agent's Kubernetes adapter (`runKubeNodeAgent`) against the FAKE API server and a real
 * octonet API, next to a real operator: the agent runs the real node-agent pass for the port
 * resources of its own node only and writes the pass's conditions into their status, beside the
 * fields the operator owns; when its resource is deleted it runs one more (unplugging) pass.
 * Plugging itself needs OVS and is tested with real packets in the lab (test/lab/mgmtnet-*); here
 * the node's commands go to a stand-in host that has no OVS, so every pass reports
 * `OvsUnreachable`, a real outcome of the real pass, and the status write path is what is checked.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { useApi } from '../../fixtures/api.js';
import { startFakeKubeApiServer, type FakeKubeApiServer } from '../../fixtures/fake-kube-apiserver.js';
import { KubeClient } from '../../../src/mgmtnet/kube/client.js';
import { runKubeNodeAgent } from '../../../src/mgmtnet/kube/node-agent.js';
import { runOperator } from '../../../src/mgmtnet/kube/operator.js';
import { NeutronClient } from '../../../src/mgmtnet/neutron-client.js';
import { fromNeutronClient, type NodeHost } from '../../../src/mgmtnet/node-agent/index.js';
import { assertAllowed } from './manifests.js';
import { waitFor } from './wait.js';
import type { Json } from '../../fixtures/json.js';

const NETWORKS = 'octaviamanagementnetworks';
const PORTS = 'octaviamanagementports';

/** A node without OVS: every command fails the way ovs-vsctl does when its database is down. */
function hostWithoutOvs(): { host: NodeHost; calls: string[][] } {
  const calls: string[][] = [];
  const host: NodeHost = async (argv) => {
    calls.push([...argv]);
    return { code: 1, stdout: '', stderr: 'ovs-vsctl: unix:/run/openvswitch/db.sock: database connection failed' };
  };
  return { host, calls };
}

describe('kube node agent (fake Kubernetes API server, real octonet API)', () => {
  const api = useApi('sqlite');
  let fake: FakeKubeApiServer;
  const abort = new AbortController();
  const running: Promise<void>[] = [];

  before(async () => {
    fake = await startFakeKubeApiServer();
  });
  after(async () => {
    abort.abort();
    await Promise.all(running);
    await fake.stop();
  });

  it('writes its pass conditions into its own node port resource, and unplugs when it is deleted', async () => {
    const ns = 'octavia';
    const kube = (agent: string) => new KubeClient({ server: fake.url }, agent);
    running.push(
      runOperator({
        kube: kube('octonet-operator'),
        namespace: ns,
        neutron: NeutronClient.noauth(api.url),
        signal: abort.signal,
      }),
    );
    const node1 = hostWithoutOvs();
    running.push(
      runKubeNodeAgent({
        kube: kube('octonet-node-agent'),
        namespace: ns,
        node: 'node1',
        neutron: fromNeutronClient(NeutronClient.noauth(api.url)),
        host: node1.host,
        signal: abort.signal,
        probe: false,
      }),
    );
    const spec = { network: { cidr: '172.24.0.0/16' }, nodes: [{ name: 'node1' }, { name: 'node2' }] };
    fake.put(NETWORKS, {
      apiVersion: 'octonet.dev/v1',
      kind: 'OctaviaManagementNetwork',
      metadata: { name: 'lb-mgmt', namespace: ns },
      spec,
    });

    const port = await waitFor(() => {
      const p = fake.getObject(PORTS, ns, 'lb-mgmt-node1');
      return p?.status?.portId && p.status.conditions && p;
    }, "node1's resource with the operator's fields and the agent's conditions");
    const byType = Object.fromEntries(port.status.conditions.map((c: Json) => [c.type, c]));
    assert.deepEqual(Object.keys(byType).sort(), ['Addressed', 'HeartbeatPathOpen', 'Plugged', 'PortBound', 'Ready']);
    assert.equal(byType.Ready.status, 'False');
    assert.equal(byType.PortBound.reason, 'OvsUnreachable');
    assert.match(byType.PortBound.message, /database connection failed/);
    assert.equal(port.status.observedGeneration, 1);
    assert.equal(port.status.mac.length, 17, "the operator's fields stay beside the agent's");
    assert.ok(node1.calls.length > 0);

    // node2 has no agent in this test: its resource carries only what the operator wrote.
    const other = await waitFor(
      () => fake.getObject(PORTS, ns, 'lb-mgmt-node2')?.status?.portId && fake.getObject(PORTS, ns, 'lb-mgmt-node2'),
      'node2 resource',
    );
    assert.equal(other.status.conditions, undefined);

    // node1 leaves: the operator deletes the Neutron port and the resource; the agent runs a pass
    // for the network it no longer has a resource for (the unplugging pass).
    const callsBefore = node1.calls.length;
    fake.put(NETWORKS, {
      apiVersion: 'octonet.dev/v1',
      kind: 'OctaviaManagementNetwork',
      metadata: { name: 'lb-mgmt', namespace: ns },
      spec: { ...spec, nodes: [{ name: 'node2' }] },
    });
    await waitFor(() => fake.getObject(PORTS, ns, 'lb-mgmt-node1') === undefined, 'node1 resource deleted');
    await waitFor(() => node1.calls.length > callsBefore, 'a pass after the deletion');
    const statusWrites = fake.writes('/octaviamanagementports/lb-mgmt-node1/status').length;
    assert.ok(statusWrites >= 1);
  });

  it('deploy/rbac.yaml allows every request the node agent made, and the operator too', () => {
    assertAllowed(
      fake.requests.filter((r) => r.userAgent === 'octonet-node-agent'),
      'octonet-node-agent',
    );
    assertAllowed(
      fake.requests.filter((r) => r.userAgent === 'octonet-operator'),
      'octonet-operator',
    );
  });
});
