/**
 * `runOperator` against the FAKE Kubernetes API server (test/fixtures/fake-kube-apiserver.ts: no
 * kube-apiserver runs here) and a REAL octonet API server (useApi): the custom resource provisions
 * the Neutron objects through the reconciler's applySpec, the status carries Ready, the reconciler's
 * conditions and observedGeneration; the ConfigMap holds the sorted controller list; node labels
 * (nodeSelector) add and remove per-node port resources and Neutron ports; deletion is held by the
 * finalizer until Neutron is clean; a watch that ends or gets 410 Gone is resumed; a bad spec gets
 * a condition naming the field and no Neutron write. Each test runs its own operator in its own
 * namespace, with its own Neutron client so that its call counts are its own.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { useApi } from '../../fixtures/api.js';
import { startFakeKubeApiServer, type FakeKubeApiServer } from '../../fixtures/fake-kube-apiserver.js';
import { KubeClient } from '../../../src/mgmtnet/kube/client.js';
import { reconcileNetwork, runOperator } from '../../../src/mgmtnet/kube/operator.js';
import { FINALIZER } from '../../../src/mgmtnet/kube/resources.js';
import { NeutronClient } from '../../../src/mgmtnet/neutron-client.js';
import { assertAllowed } from './manifests.js';
import { waitFor } from './wait.js';
import type { Json } from '../../fixtures/json.js';

const NETWORKS = 'octaviamanagementnetworks';
const PORTS = 'octaviamanagementports';

function resource(namespace: string, name: string, spec: Record<string, unknown>) {
  return { apiVersion: 'octonet.dev/v1', kind: 'OctaviaManagementNetwork', metadata: { name, namespace }, spec };
}

const condition = (object: Json, type: string) => object?.status?.conditions?.find((c: Json) => c.type === type);

describe('octonet operator (fake Kubernetes API server, real octonet API)', () => {
  // Six networks with two security groups each (plus the project's default group) pass Neutron's
  // default quota of 10 groups; the tests are about the operator, not the quota.
  const api = useApi('sqlite', { config: { quotas: { security_group: 50, security_group_rule: 500 } } });
  let fake: FakeKubeApiServer;
  /** The core/v1 Events about one network with one reason (what `kubectl describe` lists). */
  const eventsFor = (namespace: string, name: string, reason: string): Json[] =>
    fake.listObjects('events', namespace).filter((e) => e.involvedObject?.name === name && e.reason === reason);
  const running: { abort: AbortController; done: Promise<void> }[] = [];

  before(async () => {
    fake = await startFakeKubeApiServer();
  });
  after(async () => {
    for (const r of running) r.abort.abort();
    await Promise.all(running.map((r) => r.done));
    await fake.stop();
  });

  function startOperator(namespace: string) {
    const neutron = NeutronClient.noauth(api.url);
    const kube = new KubeClient({ server: fake.url }, 'octonet-operator');
    const abort = new AbortController();
    const done = runOperator({ kube, namespace, neutron, signal: abort.signal, retryDelayMs: 50 });
    running.push({ abort, done });
    return { neutron, kube };
  }

  const owned = async (collection: string, owner: string) =>
    (await api.admin.get(`/v2.0/${collection}?tags=octonet-mgmt-net:${owner}`)).body[collection.replace(/-/g, '_')];

  const readyFor = (namespace: string, name: string, generation = 1) =>
    waitFor(() => {
      const object = fake.getObject(NETWORKS, namespace, name);
      const ready = condition(object, 'Ready');
      return ready?.status === 'True' && object.status.observedGeneration === generation && object;
    }, `${namespace}/${name} Ready at generation ${generation}`).catch((error: Error) => {
      // The status says why (e.g. which Neutron call failed); without it a timeout says nothing.
      throw new Error(
        `${error.message}; status: ${JSON.stringify(fake.getObject(NETWORKS, namespace, name)?.status?.conditions)}`,
      );
    });

  it('creating the resource provisions Neutron and writes status, ConfigMap, Secret and port resources', async () => {
    const ns = 'create';
    const { neutron, kube } = startOperator(ns);
    fake.put(
      NETWORKS,
      resource(ns, 'mgmt-a', {
        topology: 'per-node-ports',
        network: { name: 'mgmt-a-net', cidr: '172.24.0.0/16' },
        // Pinned addresses whose numeric order differs from both the node names' and the strings'.
        nodes: [
          { name: 'node2', fixedIps: ['172.24.0.100'] },
          { name: 'node1', fixedIps: ['172.24.0.30'] },
          { name: 'node3', fixedIps: ['172.24.0.4'] },
        ],
      }),
    );
    const object = await readyFor(ns, 'mgmt-a');
    assert.deepEqual(object.metadata.finalizers, [FINALIZER]);
    for (const type of ['NetworkReady', 'SecurityGroupsReady', 'PortsReady']) {
      const c = condition(object, type);
      assert.equal(c?.status, 'True', `${type}: ${c?.message}`);
      assert.equal(c.observedGeneration, 1);
      assert.match(c.lastTransitionTime, /^\d{4}-\d\d-\d\dT/);
    }
    assert.equal(object.status.topology, 'per-node-ports');
    assert.equal(object.status.nodesReady, '0/3', 'no OVN here: ports exist but none is ACTIVE');

    // Neutron: the network, both groups and one tagged port per node, as the status says.
    const [network] = await owned('networks', 'mgmt-a');
    assert.equal(network.name, 'mgmt-a-net');
    assert.equal(object.status.ids.network, network.id);
    const groups = await owned('security-groups', 'mgmt-a');
    assert.deepEqual(groups.map((g: Json) => g.name).sort(), ['lb-health-mgr-sec-grp', 'lb-mgmt-sec-grp']);
    const ports = await owned('ports', 'mgmt-a');
    assert.deepEqual(ports.map((p: Json) => p.name).sort(), [
      'octavia-health-manager-node1-listen-port',
      'octavia-health-manager-node2-listen-port',
      'octavia-health-manager-node3-listen-port',
    ]);

    // The ConfigMap: the sorted list (by address, not by node), one fragment per node, no key.
    const cm = await waitFor(() => fake.getObject('configmaps', ns, 'mgmt-a-octavia-config'), 'the ConfigMap');
    assert.equal(cm.data.controller_ip_port_list, '172.24.0.4:5555, 172.24.0.30:5555, 172.24.0.100:5555');
    assert.match(cm.data['node1.conf'], /bind_ip = 172\.24\.0\.30\n/);
    assert.deepEqual(Object.keys(cm.data).sort(), [
      'controller_ip_port_list',
      'node1.conf',
      'node2.conf',
      'node3.conf',
    ]);
    assert.match(cm.data['node1.conf'], new RegExp(`amp_boot_network_list = ${network.id}`));
    assert.doesNotMatch(cm.data['node1.conf'], /heartbeat_key/);
    assert.equal(cm.metadata.ownerReferences[0].uid, object.metadata.uid);

    // Events on the network: what the first pass did, and the new controller list.
    const applied = await waitFor(() => eventsFor(ns, 'mgmt-a', 'Applied')[0], 'the Applied event');
    assert.equal(applied.type, 'Normal');
    assert.match(applied.message, /^created \d+ \(network, .*port, ConfigMap\)$/);
    assert.deepEqual(applied.involvedObject, {
      apiVersion: 'octonet.dev/v1',
      kind: 'OctaviaManagementNetwork',
      name: 'mgmt-a',
      namespace: ns,
      uid: object.metadata.uid,
      resourceVersion: applied.involvedObject.resourceVersion,
    });
    assert.equal(applied.source.component, 'octonet-operator');
    const listChanged = await waitFor(() => eventsFor(ns, 'mgmt-a', 'ControllerListChanged')[0], 'the list event');
    assert.match(listChanged.message, /172\.24\.0\.4:5555, 172\.24\.0\.30:5555, 172\.24\.0\.100:5555/);

    // The heartbeat key: generated, 64 hex characters, in a Secret.
    const secret = fake.getObject('secrets', ns, 'mgmt-a-heartbeat-key');
    assert.match(Buffer.from(secret.data.heartbeat_key, 'base64').toString(), /^[0-9a-f]{64}$/);

    // One port resource per node, with the Neutron port's ID, MAC and addresses in its status.
    const portResources = await waitFor(() => {
      const list = fake.listObjects(PORTS, ns);
      return list.length === 3 && list.every((p) => p.status?.portId) && list;
    }, 'three port resources with status');
    for (const p of portResources) {
      const port = ports.find((x: Json) => x.name === `octavia-health-manager-${p.spec.node}-listen-port`);
      assert.equal(p.metadata.name, `mgmt-a-${p.spec.node}`);
      assert.equal(p.metadata.labels['octonet.dev/node'], p.spec.node);
      assert.equal(p.status.portId, port.id);
      assert.equal(p.status.mac, port.mac_address);
      assert.deepEqual(p.status.fixedIps, [port.fixed_ips[0].ip_address]);
    }

    // Rotation: a deleted Secret comes back with a new key on the next pass.
    fake.remove('secrets', ns, 'mgmt-a-heartbeat-key');
    await reconcileNetwork({ kube, namespace: ns, neutron: NeutronClient.noauth(api.url) }, 'mgmt-a');
    const rotated = fake.getObject('secrets', ns, 'mgmt-a-heartbeat-key');
    assert.match(Buffer.from(rotated.data.heartbeat_key, 'base64').toString(), /^[0-9a-f]{64}$/);
    assert.notEqual(rotated.data.heartbeat_key, secret.data.heartbeat_key);

    // Another pass over the same state writes nothing, in Neutron or in Kubernetes.
    const kubeWrites = fake.writes().length;
    const probe = NeutronClient.noauth(api.url);
    await reconcileNetwork({ kube, namespace: ns, neutron: probe }, 'mgmt-a');
    assert.equal(probe.calls.writes, 0, 'no Neutron write on a second pass');
    assert.equal(fake.writes().length, kubeWrites, 'no Kubernetes write on a second pass');
    assert.ok(neutron.calls.writes > 0);
  });

  it('a new generation is reconciled and observed; a node added to the list gets its port', async () => {
    const ns = 'generation';
    startOperator(ns);
    const spec = { network: { name: 'mgmt-g-net', cidr: '172.25.0.0/16' }, nodes: [{ name: 'node1' }] };
    fake.put(NETWORKS, resource(ns, 'mgmt-g', spec));
    await readyFor(ns, 'mgmt-g');
    fake.put(NETWORKS, resource(ns, 'mgmt-g', { ...spec, nodes: [{ name: 'node1' }, { name: 'node2' }] }));
    const object = await readyFor(ns, 'mgmt-g', 2);
    assert.equal(object.status.nodes.length, 2);
    assert.equal((await owned('ports', 'mgmt-g')).length, 2);
    await waitFor(() => fake.getObject(PORTS, ns, 'mgmt-g-node2'), 'the port resource of node2');
  });

  it('nodeSelector: a node that gains the label gets a port resource and a Neutron port; losing it removes both', async () => {
    const ns = 'selector';
    startOperator(ns);
    fake.put('nodes', { metadata: { name: 'sel-w1', labels: { 'octavia.example/hm': 'yes' } } });
    fake.put('nodes', { metadata: { name: 'sel-w2', labels: {} } });
    fake.put(
      NETWORKS,
      resource(ns, 'mgmt-s', {
        network: { name: 'mgmt-s-net', cidr: '172.26.0.0/16' },
        nodeSelector: { 'octavia.example/hm': 'yes' },
      }),
    );
    await readyFor(ns, 'mgmt-s');
    await waitFor(() => fake.getObject(PORTS, ns, 'mgmt-s-sel-w1')?.status?.portId, 'the port resource of sel-w1');
    assert.equal(fake.getObject(PORTS, ns, 'mgmt-s-sel-w2'), undefined);
    const portNames = async () => (await owned('ports', 'mgmt-s')).map((p: Json) => p.name).sort();
    assert.deepEqual(await portNames(), ['octavia-health-manager-sel-w1-listen-port']);

    fake.put('nodes', { metadata: { name: 'sel-w2', labels: { 'octavia.example/hm': 'yes' } } });
    await waitFor(() => fake.getObject(PORTS, ns, 'mgmt-s-sel-w2')?.status?.portId, 'the port resource of sel-w2');
    assert.deepEqual(await portNames(), [
      'octavia-health-manager-sel-w1-listen-port',
      'octavia-health-manager-sel-w2-listen-port',
    ]);
    await waitFor(
      () => fake.getObject('configmaps', ns, 'mgmt-s-octavia-config')?.data['sel-w2.conf'],
      'sel-w2 in the ConfigMap',
    );

    fake.put('nodes', { metadata: { name: 'sel-w1', labels: { other: 'x' } } });
    await waitFor(() => fake.getObject(PORTS, ns, 'mgmt-s-sel-w1') === undefined, 'sel-w1 port resource deleted');
    await waitFor(async () => (await portNames()).length === 1, 'the Neutron port of sel-w1 deleted');
    assert.deepEqual(await portNames(), ['octavia-health-manager-sel-w2-listen-port']);
    const cm = await waitFor(() => {
      const c = fake.getObject('configmaps', ns, 'mgmt-s-octavia-config');
      return c && !c.data['sel-w1.conf'] && c;
    }, 'sel-w1 gone from the ConfigMap');
    assert.equal(cm.data.controller_ip_port_list.split(', ').length, 1);
  });

  it('a bad spec gets a condition naming the field and makes no Neutron call; fixing it applies', async () => {
    const ns = 'bad';
    const { neutron } = startOperator(ns);
    const spec = { network: { name: 'mgmt-b-net', cidr: '172.27.0.0/16', mtu: 9000 }, nodes: [{ name: 'node1' }] };
    fake.put(NETWORKS, resource(ns, 'mgmt-b', spec));
    const object = await waitFor(() => {
      const o = fake.getObject(NETWORKS, ns, 'mgmt-b');
      return condition(o, 'Ready')?.reason === 'InvalidSpec' && o;
    }, 'the InvalidSpec condition');
    const ready = condition(object, 'Ready');
    assert.equal(ready.status, 'False');
    assert.match(ready.message, /^spec\.network\.mtu: 9000 is larger than 1442/);
    assert.equal(object.status.observedGeneration, 1);
    assert.equal(neutron.calls.writes + neutron.calls.reads, 0, 'Neutron is not called for a bad spec');
    assert.deepEqual(await owned('networks', 'mgmt-b'), []);
    const warning = await waitFor(() => eventsFor(ns, 'mgmt-b', 'InvalidSpec')[0], 'the InvalidSpec event');
    assert.equal(warning.type, 'Warning');
    assert.match(warning.message, /^spec\.network\.mtu: 9000/);

    fake.put(NETWORKS, resource(ns, 'mgmt-b', { ...spec, network: { ...spec.network, mtu: 1400 } }));
    const fixed = await readyFor(ns, 'mgmt-b', 2);
    assert.equal(condition(fixed, 'SpecValid'), undefined, 'the InvalidSpec condition is gone');
    assert.equal((await owned('networks', 'mgmt-b'))[0].mtu, 1400);
  });

  it('a watch that ends, or that gets 410 Gone, is resumed: later changes are still reconciled', async () => {
    const ns = 'rewatch';
    startOperator(ns);
    const spec = { network: { name: 'mgmt-w-net', cidr: '172.28.0.0/16' }, nodes: [{ name: 'node1' }] };
    fake.put(NETWORKS, resource(ns, 'mgmt-w', spec));
    await readyFor(ns, 'mgmt-w');

    fake.endWatches();
    fake.put(NETWORKS, resource(ns, 'mgmt-w', { ...spec, nodes: [{ name: 'node1' }, { name: 'node2' }] }));
    await readyFor(ns, 'mgmt-w', 2);
    assert.equal((await owned('ports', 'mgmt-w')).length, 2);

    // Compacted history: every resumed watch gets 410 and must list again to see generation 3.
    fake.endWatches();
    fake.expireHistory();
    fake.put(NETWORKS, resource(ns, 'mgmt-w', { ...spec, nodes: [{ name: 'node2' }] }));
    await readyFor(ns, 'mgmt-w', 3);
    assert.deepEqual(
      (await owned('ports', 'mgmt-w')).map((p: Json) => p.name),
      ['octavia-health-manager-node2-listen-port'],
    );
  });

  it('deleting the resource removes its Neutron objects first, then the finalizer lets it go', async () => {
    const ns = 'delete';
    startOperator(ns);
    fake.put(
      NETWORKS,
      resource(ns, 'mgmt-d', {
        network: { name: 'mgmt-d-net', cidr: '172.29.0.0/16' },
        nodes: [{ name: 'node1' }, { name: 'node2' }],
      }),
    );
    await readyFor(ns, 'mgmt-d');
    await waitFor(() => fake.listObjects(PORTS, ns).length === 2, 'two port resources');
    assert.equal((await owned('ports', 'mgmt-d')).length, 2);

    fake.remove(NETWORKS, ns, 'mgmt-d');
    await waitFor(() => fake.getObject(NETWORKS, ns, 'mgmt-d') === undefined, 'the resource gone');
    for (const collection of ['networks', 'subnets', 'ports', 'security-groups']) {
      assert.deepEqual(await owned(collection, 'mgmt-d'), [], `no ${collection} left`);
    }
    assert.deepEqual(fake.listObjects(PORTS, ns), []);
    assert.equal(fake.getObject('configmaps', ns, 'mgmt-d-octavia-config'), undefined);
  });

  it('a network whose spec was edited into an invalid one is still cleaned up when deleted', async () => {
    const ns = 'delete-invalid';
    startOperator(ns);
    const spec = { network: { name: 'mgmt-x-net', cidr: '172.30.0.0/16' }, nodes: [{ name: 'node1' }] };
    fake.put(NETWORKS, resource(ns, 'mgmt-x', spec));
    await readyFor(ns, 'mgmt-x');
    fake.put(NETWORKS, resource(ns, 'mgmt-x', { ...spec, topology: 'no-such-topology' }));
    await waitFor(
      () => condition(fake.getObject(NETWORKS, ns, 'mgmt-x'), 'Ready')?.reason === 'InvalidSpec',
      'InvalidSpec after the edit',
    );
    assert.equal((await owned('ports', 'mgmt-x')).length, 1, 'an invalid spec changes nothing in Neutron');

    fake.remove(NETWORKS, ns, 'mgmt-x');
    await waitFor(() => fake.getObject(NETWORKS, ns, 'mgmt-x') === undefined, 'the resource gone');
    for (const collection of ['networks', 'subnets', 'ports', 'security-groups']) {
      assert.deepEqual(await owned(collection, 'mgmt-x'), [], `no ${collection} left`);
    }
  });

  it('Neutron unavailable (503 before the pass starts): Ready=False NeutronUnavailable, retried until it is back', async () => {
    const ns = 'unreachable';
    const kube = new KubeClient({ server: fake.url }, 'octonet-operator');
    const abort = new AbortController();
    let target = 'http://127.0.0.1:9';
    // Neutron behind a relay the test can point at nothing (503 for every call) or at octonet.
    const forward = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
      try {
        const chunks: Buffer[] = [];
        for await (const c of req) chunks.push(c as Buffer);
        const r = await fetch(target + req.url, {
          method: req.method,
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: chunks.length ? Buffer.concat(chunks) : undefined,
        });
        res.writeHead(r.status, { 'content-type': 'application/json' });
        res.end(await r.text());
      } catch {
        res.writeHead(503, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ NeutronError: { type: 'ServiceUnavailable', message: 'Neutron is down', detail: '' } }),
        );
      }
    };
    // `forward` never rejects: every failure, reading the request included, is answered with a 503.
    const relay = createServer((req, res) => void forward(req, res));
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    const relayUrl = `http://127.0.0.1:${(relay.address() as AddressInfo).port}`;
    const done = runOperator({
      kube,
      namespace: ns,
      neutron: NeutronClient.noauth(relayUrl),
      signal: abort.signal,
      retryDelayMs: 20,
    });
    try {
      fake.put(
        NETWORKS,
        resource(ns, 'mgmt-u', { network: { name: 'mgmt-u-net', cidr: '172.31.0.0/16' }, nodes: [{ name: 'node1' }] }),
      );
      const down = await waitFor(() => {
        const o = fake.getObject(NETWORKS, ns, 'mgmt-u');
        return condition(o, 'Ready')?.reason === 'NeutronUnavailable' && o;
      }, 'the NeutronUnavailable condition');
      assert.match(condition(down, 'Ready').message, /503|ServiceUnavailable|Neutron is down/);
      // Every retry fails the same way: one Warning Event, counted again (client-go's aggregation),
      // not one Event per attempt.
      const repeated = await waitFor(() => {
        const events = eventsFor(ns, 'mgmt-u', 'NeutronUnavailable');
        return events.length === 1 && events[0].count >= 3 && events[0];
      }, 'the NeutronUnavailable event counted three times');
      assert.equal(repeated.type, 'Warning');
      assert.ok(repeated.lastTimestamp >= repeated.firstTimestamp);
      assert.equal(eventsFor(ns, 'mgmt-u', 'NeutronUnavailable').length, 1);
      target = api.url;
      await readyFor(ns, 'mgmt-u');
    } finally {
      abort.abort();
      await done;
      relay.close();
    }
  });

  it('a pass that stops half-way (port quota) keeps the last good ConfigMap and says why', async () => {
    const ns = 'halfway';
    startOperator(ns);
    const spec = {
      network: { name: 'mgmt-h-net', cidr: '172.23.0.0/16' },
      nodes: [{ name: 'node1' }, { name: 'node2' }],
    };
    fake.put(NETWORKS, resource(ns, 'mgmt-h', spec));
    await readyFor(ns, 'mgmt-h');
    const before = await waitFor(() => fake.getObject('configmaps', ns, 'mgmt-h-octavia-config'), 'the ConfigMap');
    assert.equal(before.data.controller_ip_port_list.split(', ').length, 2);

    // No room for one more port in the project: adding node3 fails in the ports step.
    const [network] = await owned('networks', 'mgmt-h');
    const project = network.project_id;
    const used = (await api.admin.get(`/v2.0/ports?project_id=${project}`)).body.ports.length;
    assert.equal((await api.admin.put(`/v2.0/quotas/${project}`, { quota: { port: used } })).status, 200);
    try {
      fake.put(NETWORKS, resource(ns, 'mgmt-h', { ...spec, nodes: [...spec.nodes, { name: 'node3' }] }));
      const failed = await waitFor(() => {
        const o = fake.getObject(NETWORKS, ns, 'mgmt-h');
        return o.status.observedGeneration === 2 && condition(o, 'PortsReady')?.status === 'False' && o;
      }, 'PortsReady False at generation 2');
      assert.equal(condition(failed, 'Ready').status, 'False');
      assert.match(condition(failed, 'PortsReady').reason, /OverQuota/);
      const during = fake.getObject('configmaps', ns, 'mgmt-h-octavia-config');
      assert.deepEqual(during.data, before.data, 'the ConfigMap still lists both controllers');
      assert.equal(fake.getObject(PORTS, ns, 'mgmt-h-node3'), undefined);
    } finally {
      await api.admin.put(`/v2.0/quotas/${project}`, { quota: { port: -1 } });
    }
    // The quota lifted, the queue's retry gets through.
    await readyFor(ns, 'mgmt-h', 2);
    const after = await waitFor(() => {
      const c = fake.getObject('configmaps', ns, 'mgmt-h-octavia-config');
      return c.data.controller_ip_port_list.split(', ').length === 3 && c;
    }, 'three controllers in the ConfigMap');
    assert.ok(after.data['node3.conf']);
  });

  it('deploy/rbac.yaml allows every request the operator made in these tests', () => {
    assertAllowed(
      fake.requests.filter((r) => r.userAgent === 'octonet-operator'),
      'octonet-operator',
    );
  });
});
