/**
 * The operator's answer to a changed controller list on Kubernetes: the list goes into the pod
 * template's annotation of each named workload (a rolling update), against the FAKE Kubernetes API
 * server with the apps/v1 types registered. A second pass with the same list writes nothing, a new
 * list rolls again, and a missing workload is reported without failing the others. Two management
 * networks rolling the same workloads each keep their own key: a second pass of both rolls nothing.
 * The worker check (`mgmt-net apply --worker-rollout`) is ready only once the workload's template
 * carries the list and its rollout is complete; the fake runs no controllers, so the test writes the
 * status a Deployment or DaemonSet controller would.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  DEFAULT_FAKE_RESOURCES,
  startFakeKubeApiServer,
  type FakeKubeApiServer,
} from '../../fixtures/fake-kube-apiserver.js';
import { KubeClient } from '../../../src/mgmtnet/kube/client.js';
import {
  controllerListAnnotation,
  parseWorkloadRef,
  rollWorkloads,
  workloadsRolledOut,
} from '../../../src/mgmtnet/kube/rollout.js';
import type { Json } from '../../fixtures/json.js';

describe('rolling the health managers and workers when the controller list changes (fake kube API)', () => {
  let fake: FakeKubeApiServer;
  before(async () => {
    const apps = (plural: string, kind: string) => ({
      group: 'apps',
      version: 'v1',
      plural,
      kind,
      namespaced: true,
      status: true,
    });
    fake = await startFakeKubeApiServer([
      ...DEFAULT_FAKE_RESOURCES,
      apps('deployments', 'Deployment'),
      apps('daemonsets', 'DaemonSet'),
    ]);
  });
  after(() => fake.stop());

  it('annotates the pod templates once per list, and reports a missing workload', async () => {
    const template = { metadata: { labels: { app: 'x' }, annotations: { keep: 'me' } }, spec: { containers: [] } };
    fake.put('daemonsets', {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'octavia-health-manager', namespace: 'openstack' },
      spec: { template },
    });
    fake.put('deployments', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'octavia-worker', namespace: 'openstack' },
      spec: { template },
    });
    const kube = new KubeClient({ server: fake.url }, 'octonet-operator');
    const workloads = ['daemonset/octavia-health-manager', 'deployment/octavia-worker', 'deployment/gone'].map(
      parseWorkloadRef,
    );
    const list = ['172.24.0.5:5555', '172.24.0.6:5555'];
    const KEY = controllerListAnnotation('lb-mgmt');
    const annotations = (plural: string, name: string) =>
      (fake.getObject(plural, 'openstack', name) as Json).spec.template.metadata.annotations as Record<string, string>;

    assert.deepEqual(await rollWorkloads(kube, 'openstack', workloads, 'lb-mgmt', list), [
      { workload: 'daemonset/octavia-health-manager', action: 'rolled' },
      { workload: 'deployment/octavia-worker', action: 'rolled' },
      { workload: 'deployment/gone', action: 'missing' },
    ]);
    assert.deepEqual(annotations('daemonsets', 'octavia-health-manager'), {
      keep: 'me',
      [KEY]: '172.24.0.5:5555, 172.24.0.6:5555',
    });
    assert.equal(annotations('deployments', 'octavia-worker')[KEY], list.join(', '));

    const writes = fake.writes().length;
    const again = await rollWorkloads(kube, 'openstack', workloads.slice(0, 2), 'lb-mgmt', list);
    assert.deepEqual(
      again.map((r) => r.action),
      ['unchanged', 'unchanged'],
    );
    assert.equal(fake.writes().length, writes, 'the same list writes nothing');

    const left = await rollWorkloads(kube, 'openstack', workloads.slice(0, 1), 'lb-mgmt', list.slice(0, 1));
    assert.deepEqual(left, [{ workload: 'daemonset/octavia-health-manager', action: 'rolled' }]);
    assert.equal(annotations('daemonsets', 'octavia-health-manager')[KEY], '172.24.0.5:5555');
  });

  it('two management networks on the same workloads keep one key each: a second pass rolls nothing', async () => {
    // A workload an older operator annotated with the one shared key.
    const template = { metadata: { annotations: { 'octonet.dev/controller-ip-port-list': '172.24.0.5:5555' } } };
    fake.put('daemonsets', {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'hm', namespace: 'two' },
      spec: { template },
    });
    const kube = new KubeClient({ server: fake.url }, 'octonet-operator');
    const workloads = [parseWorkloadRef('daemonset/hm')];
    const lists = { 'mgmt-a': ['172.24.0.5:5555'], 'mgmt-b': ['172.25.0.7:5555', '172.25.0.8:5555'] };
    const pass = async () => {
      const actions: string[] = [];
      for (const [network, list] of Object.entries(lists)) {
        for (const r of await rollWorkloads(kube, 'two', workloads, network, list)) actions.push(r.action);
      }
      return actions;
    };
    assert.deepEqual(await pass(), ['rolled', 'rolled']);
    const generation = (fake.getObject('daemonsets', 'two', 'hm') as Json).metadata.generation as number;
    const writes = fake.writes().length;
    assert.deepEqual(await pass(), ['unchanged', 'unchanged']);
    assert.deepEqual(await pass(), ['unchanged', 'unchanged']);
    assert.equal(fake.writes().length, writes, 'later passes write nothing');
    const stored = fake.getObject('daemonsets', 'two', 'hm') as Json;
    assert.equal(stored.metadata.generation, generation, 'the pod template did not change again');
    assert.deepEqual(stored.spec.template.metadata.annotations, {
      'controller-list.octonet.dev/mgmt-a': '172.24.0.5:5555',
      'controller-list.octonet.dev/mgmt-b': '172.25.0.7:5555, 172.25.0.8:5555',
    });
  });

  it('knows the worker has the list only once its template carries it and the rollout is complete', async () => {
    const kube = new KubeClient({ server: fake.url }, 'octonet-mgmt-net');
    const list = ['172.24.0.5:5555', '172.24.0.9:5555'];
    const workloads = ['deployment/worker', 'daemonset/hm'].map(parseWorkloadRef);
    const check = () => workloadsRolledOut(kube, 'check', workloads, 'lb-mgmt', list);
    const template = { metadata: { annotations: {} }, spec: { containers: [] } };
    fake.put('deployments', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'worker', namespace: 'check' },
      spec: { replicas: 2, template },
      status: { observedGeneration: 1, replicas: 2, updatedReplicas: 2, availableReplicas: 2 },
    });
    fake.put('daemonsets', {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'hm', namespace: 'check' },
      spec: { template },
      status: { observedGeneration: 1, desiredNumberScheduled: 3, updatedNumberScheduled: 3, numberAvailable: 3 },
    });
    assert.deepEqual(await check(), {
      ready: false,
      detail: 'deployment/worker: its pod template does not carry this list yet (controller-list.octonet.dev/lb-mgmt)',
    });

    await rollWorkloads(kube, 'check', workloads, 'lb-mgmt', list);
    // Generation 2 not yet observed by the (absent) controllers.
    assert.match((await check()).detail, /deployment\/worker: rollout in progress, its controller has not seen/);
    // What the Deployment and DaemonSet controllers would write, through the status subresource.
    const setStatus = (plural: string, name: string, status: Json) =>
      kube.mergePatch(parseWorkloadRef(`${plural.slice(0, -1)}/${name}`).type, 'check', name, { status }, 'status');
    await setStatus('deployments', 'worker', {
      observedGeneration: 2,
      replicas: 3,
      updatedReplicas: 2,
      availableReplicas: 2,
    });
    assert.match((await check()).detail, /deployment\/worker: rollout in progress, 1 old pods remain/);
    await setStatus('deployments', 'worker', {
      observedGeneration: 2,
      replicas: 2,
      updatedReplicas: 2,
      availableReplicas: 1,
    });
    assert.match((await check()).detail, /1 of 2 updated pods available/);
    await setStatus('deployments', 'worker', {
      observedGeneration: 2,
      replicas: 2,
      updatedReplicas: 2,
      availableReplicas: 2,
    });
    await setStatus('daemonsets', 'hm', {
      observedGeneration: 2,
      desiredNumberScheduled: 3,
      updatedNumberScheduled: 2,
    });
    assert.match((await check()).detail, /daemonset\/hm: rollout in progress, 2 of 3 pods updated/);
    await setStatus('daemonsets', 'hm', {
      observedGeneration: 2,
      desiredNumberScheduled: 3,
      updatedNumberScheduled: 3,
      numberAvailable: 3,
    });
    assert.equal((await check()).ready, true);
    // Another list: not ready again until it is rolled out.
    assert.equal((await workloadsRolledOut(kube, 'check', workloads, 'lb-mgmt', list.slice(0, 1))).ready, false);
    assert.match(
      (await workloadsRolledOut(kube, 'check', [parseWorkloadRef('deployment/gone')], 'lb-mgmt', list)).detail,
      /deployment\/gone not found in check/,
    );
  });

  it('parses kind/name and refuses anything else', () => {
    assert.equal(parseWorkloadRef('StatefulSet/octavia-hm').type.plural, 'statefulsets');
    for (const bad of ['octavia-worker', 'pod/x', 'deployment/', 'deployment/a/b']) {
      assert.throws(() => parseWorkloadRef(bad), /give deployment\/<name>, daemonset\/<name> or statefulset\/<name>/);
    }
  });
});
