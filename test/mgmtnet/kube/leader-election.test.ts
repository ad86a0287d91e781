/**
 * Two operator replicas electing a leader on a coordination.k8s.io/v1 Lease, against the FAKE
 * Kubernetes API server (test/fixtures/fake-kube-apiserver.ts: no kube-apiserver runs here) and a
 * REAL octonet API server: one leads and reconciles while the other makes no write but its Lease
 * reads; the leader stopped without releasing (a crash) is replaced once the Lease expires, and the
 * new leader reconciles what changed meanwhile; stopped with release (SIGTERM) the Lease is cleared
 * and the next replica takes it with the transition counted. Short lease timings keep the test
 * quick; the assertions wait for states, never for durations.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { useApi } from '../../fixtures/api.js';
import { startFakeKubeApiServer, type FakeKubeApiServer } from '../../fixtures/fake-kube-apiserver.js';
import { KubeClient } from '../../../src/mgmtnet/kube/client.js';
import { LEASES, runWithLeaderElection } from '../../../src/mgmtnet/kube/leader-election.js';
import { runOperator } from '../../../src/mgmtnet/kube/operator.js';
import { NeutronClient } from '../../../src/mgmtnet/neutron-client.js';
import { assertAllowed } from './manifests.js';
import { waitFor } from './wait.js';
import type { Json } from '../../fixtures/json.js';

const NS = 'octavia';
const LEASE = 'octonet-operator';

describe('operator leader election (two replicas, a Lease on the fake API server)', () => {
  const api = useApi('sqlite');
  let fake: FakeKubeApiServer;
  const replicas = new Map<string, { abort: AbortController; done: Promise<void>; kube: KubeClient }>();

  before(async () => {
    fake = await startFakeKubeApiServer();
  });
  after(async () => {
    for (const r of replicas.values()) r.abort.abort();
    await Promise.all([...replicas.values()].map((r) => r.done));
    await fake.stop();
  });

  /** One replica: the operator runs only while this identity holds the Lease. */
  function startReplica(identity: string, releaseOnStop = true) {
    const kube = new KubeClient({ server: fake.url }, 'octonet-operator');
    const neutron = NeutronClient.noauth(api.url);
    const abort = new AbortController();
    const done = runWithLeaderElection({
      kube,
      namespace: NS,
      name: LEASE,
      identity,
      leaseDurationMs: 1500,
      renewDeadlineMs: 1000,
      retryPeriodMs: 200,
      releaseOnStop,
      signal: abort.signal,
      onLeading: (signal) => runOperator({ kube, namespace: NS, neutron, signal, identity, retryDelayMs: 50 }),
    });
    replicas.set(identity, { abort, done, kube });
    return kube;
  }

  async function stopReplica(identity: string): Promise<void> {
    const replica = replicas.get(identity)!;
    replica.abort.abort();
    await replica.done;
    replicas.delete(identity);
  }

  const lease = (): Json => fake.getObject('leases', NS, LEASE);
  const holder = () => lease()?.spec?.holderIdentity;

  function putNetwork(name: string, cidr: string) {
    fake.put('octaviamanagementnetworks', {
      apiVersion: 'octonet.dev/v1',
      kind: 'OctaviaManagementNetwork',
      metadata: { name, namespace: NS },
      spec: { network: { name: `${name}-net`, cidr }, nodes: [{ name: 'node1' }] },
    });
  }

  const readyBy = (name: string, identity: string) =>
    waitFor(() => {
      const o = fake.getObject('octaviamanagementnetworks', NS, name);
      const ready = o?.status?.conditions?.find((c: Json) => c.type === 'Ready')?.status === 'True';
      // Events name the replica that reconciled (reportingInstance).
      const event = fake
        .listObjects('events', NS)
        .find((e) => e.involvedObject?.name === name && e.reason === 'Applied');
      return ready && event?.reportingInstance === identity && o;
    }, `${name} Ready, applied by ${identity}`);

  it('one replica leads and reconciles; the follower writes nothing', async () => {
    // Started so that stopping it leaves the Lease held, as a crash (kill -9) would.
    startReplica('operator-a', false);
    await waitFor(() => holder() === 'operator-a', 'operator-a holds the Lease');
    const b = startReplica('operator-b');
    putNetwork('mgmt-1', '172.30.0.0/16');
    await readyBy('mgmt-1', 'operator-a');
    // b has been trying: its Lease GETs were answered with a valid Lease held by a.
    await waitFor(() => b.calls.reads >= 3, 'operator-b polling the Lease');
    assert.equal(holder(), 'operator-a');
    assert.equal(b.calls.writes, 0, 'the follower makes no write (no Lease update, no reconcile)');
    assert.equal(b.calls.watches, 0, 'the follower does not even watch');
    assert.equal(lease().spec.leaseTransitions, 0);
    assert.match(lease().spec.renewTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/, 'MicroTime');
  });

  it('the leader stopped without releasing (a crash): the follower takes over after expiry and reconciles', async () => {
    // Stopped as by kill -9: the Lease still names operator-a, with its last renewTime.
    await stopReplica('operator-a');
    assert.equal(holder(), 'operator-a', 'not released');
    // Changed while nobody leads: the next leader must pick it up from its first list.
    putNetwork('mgmt-2', '172.31.0.0/16');
    await waitFor(() => holder() === 'operator-b', 'operator-b takes the expired Lease');
    assert.equal(lease().spec.leaseTransitions, 1);
    await readyBy('mgmt-2', 'operator-b');
  });

  it('the leader stopped cleanly releases the Lease; another replica takes it and reconciles', async () => {
    const c = startReplica('operator-c');
    putNetwork('mgmt-3', '172.29.0.0/16');
    await readyBy('mgmt-3', 'operator-b');
    await stopReplica('operator-b');
    assert.equal(holder() ?? null, null, 'released: no holder');
    assert.equal(lease().spec.leaseDurationSeconds, 1);
    await waitFor(() => holder() === 'operator-c', 'operator-c takes the released Lease');
    assert.equal(lease().spec.leaseTransitions, 2);
    putNetwork('mgmt-4', '172.28.0.0/16');
    await readyBy('mgmt-4', 'operator-c');
    assert.ok(c.calls.watches > 0);
  });

  it('a leader that cannot renew before renewDeadline stops leading, and leads again once it can', async () => {
    const log: string[] = [];
    const kube = new KubeClient({ server: fake.url }, 'octonet-operator');
    const abort = new AbortController();
    const name = 'contested';
    const done = runWithLeaderElection({
      kube,
      namespace: NS,
      name,
      identity: 'operator-x',
      leaseDurationMs: 1500,
      renewDeadlineMs: 1000,
      retryPeriodMs: 200,
      signal: abort.signal,
      onLeading: (signal) =>
        new Promise<void>((resolve) => {
          log.push('started');
          const stop = () => {
            log.push('stopped');
            resolve();
          };
          signal.addEventListener('abort', stop, { once: true });
        }),
    });
    try {
      await waitFor(() => log.includes('started'), 'operator-x leading');
      // Someone else overwrites the Lease and keeps renewing it (a split brain the Lease must end):
      // operator-x's renewals now fail, and after renewDeadline it stops leading.
      const steal = () => {
        const current = fake.getObject('leases', NS, name);
        const renewTime = new Date().toISOString().replace('Z', '000Z');
        fake.put('leases', { ...current, spec: { ...current.spec, holderIdentity: 'intruder', renewTime } });
      };
      await waitFor(() => {
        steal();
        return log.includes('stopped');
      }, 'operator-x stops leading');
      // The intruder stops renewing: its Lease expires and operator-x leads again.
      await waitFor(() => log.filter((l) => l === 'started').length === 2, 'operator-x leading again');
      assert.equal(fake.getObject('leases', NS, name).spec.holderIdentity, 'operator-x');
      assert.deepEqual(log, ['started', 'stopped', 'started']);
    } finally {
      abort.abort();
      await done;
    }
  });

  it('deploy/rbac.yaml allows every Lease and Event request the replicas made', () => {
    const requests = fake.requests.filter((r) => r.userAgent === 'octonet-operator');
    assert.ok(requests.some((r) => r.path.includes(`/${LEASES.plural}/`) && r.method === 'PUT'));
    assert.ok(requests.some((r) => r.path.endsWith('/events') && r.method === 'POST'));
    assertAllowed(requests, 'octonet-operator');
  });
});
