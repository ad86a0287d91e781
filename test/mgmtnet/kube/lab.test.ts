/**
 * The Kubernetes path end to end on a real lab (root; network namespaces, OVS and OVN): the
 * operator (against the FAKE Kubernetes API server, the only stand-in here) provisions a real
 * octonet with OVN, and one kube node agent per lab node, with that node's command prefix as a
 * DaemonSet pod's host would be, plugs its port as o-hm0 and reports Ready in its
 * OctaviaManagementPort; the network's status then counts both ports ACTIVE. When a node leaves
 * the spec, its resource goes and its agent unplugs o-hm0 from that node's OVS.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { useApi } from '../../fixtures/api.js';
import { startFakeKubeApiServer, type FakeKubeApiServer } from '../../fixtures/fake-kube-apiserver.js';
import { check, notRoot, useLab } from '../../lab/lab-fixture.js';
import { KubeClient } from '../../../src/mgmtnet/kube/client.js';
import { runKubeNodeAgent } from '../../../src/mgmtnet/kube/node-agent.js';
import { runOperator } from '../../../src/mgmtnet/kube/operator.js';
import { NeutronClient } from '../../../src/mgmtnet/neutron-client.js';
import { fromNeutronClient } from '../../../src/mgmtnet/node-agent/index.js';
import { waitFor } from './wait.js';
import type { Json } from '../../fixtures/json.js';

const NS = 'octavia';
const DEADLINE_MS = 90_000;

describe('kube operator and node agents on the lab', { skip: notRoot }, () => {
  // Registered before the lab's own hooks so it runs first: nothing of ours may outlive the lab.
  const abort = new AbortController();
  const running: Promise<void>[] = [];
  let fake: FakeKubeApiServer | undefined;
  after(async () => {
    abort.abort();
    await Promise.all(running);
    await fake?.stop();
  });
  const { lab } = useLab({ name: 'oct-mgmt-kube', nodes: 2 });
  const api = useApi('sqlite', { config: () => ({ ovn: { nb_connection: lab().nb, sb_connection: lab().sb } }) });

  const network = (nodes: string[]) => ({
    apiVersion: 'octonet.dev/v1',
    kind: 'OctaviaManagementNetwork',
    metadata: { name: 'lb-mgmt', namespace: NS },
    spec: { network: { cidr: '172.24.0.0/24' }, nodes: nodes.map((name) => ({ name })) },
  });
  const portReady = (node: string) =>
    fake!
      .getObject('octaviamanagementports', NS, `lb-mgmt-${node}`)
      ?.status?.conditions?.find((c: Json) => c.type === 'Ready');
  const hasInterface = async (node: string) =>
    (
      await check(lab(), [
        ...lab().nodeCommand(node, []),
        'ovs-vsctl',
        '--bare',
        '--columns=name',
        'find',
        'Interface',
        'name=o-hm0',
      ])
    ).trim() === 'o-hm0';

  it('the agents plug both ports and report Ready; the network counts them ACTIVE', async () => {
    fake = await startFakeKubeApiServer();
    const kube = () => new KubeClient({ server: fake!.url });
    running.push(
      runOperator({
        kube: kube(),
        namespace: NS,
        neutron: NeutronClient.noauth(api.url),
        signal: abort.signal,
        retryDelayMs: 200,
      }),
    );
    for (const node of ['node1', 'node2']) {
      running.push(
        runKubeNodeAgent({
          kube: kube(),
          namespace: NS,
          node,
          neutron: fromNeutronClient(NeutronClient.noauth(api.url)),
          host: lab().nodeCommand(node, []),
          signal: abort.signal,
          // The timer as the only repair trigger here: an OVS monitor is a process the lab's
          // teardown would find as a stray if a pass were in flight.
          watchOvs: false,
          intervalMs: 2_000,
        }),
      );
    }
    fake.put('octaviamanagementnetworks', network(['node1', 'node2']));
    for (const node of ['node1', 'node2']) {
      const ready = await waitFor(
        () => portReady(node)?.status === 'True' && portReady(node),
        `${node} Ready`,
        DEADLINE_MS,
      ).catch((error: Error) => {
        throw new Error(
          `${error.message}: ${JSON.stringify(fake!.getObject('octaviamanagementports', NS, `lb-mgmt-${node}`)?.status)}`,
        );
      });
      assert.equal(ready.reason, 'AllConditionsTrue');
      const resource = fake.getObject('octaviamanagementports', NS, `lb-mgmt-${node}`);
      assert.equal(resource.status.chassis, node, 'the chassis read from the node’s own OVS');
      assert.ok(await hasInterface(node));
    }
    const status = await waitFor(
      () => {
        const s = fake!.getObject('octaviamanagementnetworks', NS, 'lb-mgmt')?.status;
        return s?.nodesReady === '2/2' && s;
      },
      'both ports ACTIVE in the network status',
      DEADLINE_MS,
    );
    assert.equal(status.conditions.find((c: Json) => c.type === 'PortsBound').status, 'True');
  });

  it('a node that leaves the spec loses its resource, its Neutron port and its o-hm0', async () => {
    fake!.put('octaviamanagementnetworks', network(['node1']));
    await waitFor(
      () => fake!.getObject('octaviamanagementports', NS, 'lb-mgmt-node2') === undefined,
      'node2 resource deleted',
      DEADLINE_MS,
    );
    await waitFor(async () => !(await hasInterface('node2')), 'o-hm0 gone from node2', DEADLINE_MS);
    assert.ok(await hasInterface('node1'), 'node1 keeps its interface');
    const ports = (await api.admin.get('/v2.0/ports?tags=octonet-mgmt-net:lb-mgmt')).body.ports;
    assert.deepEqual(
      ports.map((p: Json) => p.name),
      ['octavia-health-manager-node1-listen-port'],
    );
  });
});
