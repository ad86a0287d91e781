/**
 * The operator's answer to a changed controller list on Kubernetes: the list goes into the pod
 * template's annotation of each named workload (a rolling update), against the FAKE Kubernetes API
 * server with the apps/v1 types registered. A second pass with the same list writes nothing, a new
 * list rolls again, and a missing workload is reported without failing the others. Two management
 * networks rolling the same workloads each keep their own key: a second pass of both rolls nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  DEFAULT_FAKE_RESOURCES,
  startFakeKubeApiServer,
  type FakeKubeApiServer,
} from '../../fixtures/fake-kube-apiserver.js';
import { KubeClient } from '../../../src/mgmtnet/kube/client.js';
import { controllerListAnnotation, parseWorkloadRef, rollWorkloads } from '../../../src/mgmtnet/kube/rollout.js';
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

  it('parses kind/name and refuses anything else', () => {
    assert.equal(parseWorkloadRef('StatefulSet/octavia-hm').type.plural, 'statefulsets');
    for (const bad of ['octavia-worker', 'pod/x', 'deployment/', 'deployment/a/b']) {
      assert.throws(() => parseWorkloadRef(bad), /give deployment\/<name>, daemonset\/<name> or statefulset\/<name>/);
    }
  });
});
