/**
 * `octonet operator` as a subprocess (the command the Deployment runs), against the FAKE
 * Kubernetes API server and a real octonet: it serves the namespace it is given, provisions a
 * network from a custom resource and writes its status as the Lease's holder, and stops cleanly on
 * SIGTERM, releasing the Lease. Also
 * `octonet operator crds` prints what deploy/crds holds, and a missing API server is a usage error.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { useApi } from '../../fixtures/api.js';
import { startFakeKubeApiServer, type FakeKubeApiServer } from '../../fixtures/fake-kube-apiserver.js';
import { DEPLOY_DIR } from './manifests.js';
import { waitFor } from './wait.js';
import type { Json } from '../../fixtures/json.js';

function octonet(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', ...args],
      { encoding: 'utf8', env: { ...process.env, ...env } },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('octonet operator (CLI subprocess)', () => {
  const api = useApi('sqlite');
  let fake: FakeKubeApiServer;
  before(async () => {
    fake = await startFakeKubeApiServer();
  });
  after(() => fake.stop());

  it('reconciles a network in its namespace and exits 0 on SIGTERM', async () => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/cli/main.ts',
        'operator',
        '--kube-url',
        fake.url,
        '--namespace',
        'cli',
        '--os-url',
        api.url,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      fake.put('octaviamanagementnetworks', {
        apiVersion: 'octonet.dev/v1',
        kind: 'OctaviaManagementNetwork',
        metadata: { name: 'cli-mgmt', namespace: 'cli' },
        spec: { network: { cidr: '172.24.0.0/16' }, nodes: [{ name: 'node1' }] },
      });
      // Another namespace is not this operator's business.
      fake.put('octaviamanagementnetworks', {
        apiVersion: 'octonet.dev/v1',
        kind: 'OctaviaManagementNetwork',
        metadata: { name: 'elsewhere', namespace: 'other' },
        spec: { network: { cidr: '172.25.0.0/16' }, nodes: [{ name: 'node1' }] },
      });
      const object = await waitFor(
        () => {
          const o = fake.getObject('octaviamanagementnetworks', 'cli', 'cli-mgmt');
          return o?.status?.conditions?.find((c: Json) => c.type === 'Ready')?.status === 'True' && o;
          // The subprocess compiles through tsx and loads @kubernetes/client-node: on a loaded
          // machine its start alone has taken 20 s.
        },
        'Ready',
        90_000,
      );
      assert.equal(object.status.observedGeneration, 1);
      // It reconciled as the leader: the Lease in its namespace names it.
      assert.ok(fake.getObject('leases', 'cli', 'octonet-operator')?.spec?.holderIdentity, 'the Lease is held');
      assert.ok(fake.getObject('configmaps', 'cli', 'cli-mgmt-octavia-config'));
      assert.equal(fake.getObject('octaviamanagementnetworks', 'other', 'elsewhere').status, undefined);
      // Structured logs on stdout, and never the heartbeat key.
      const key = Buffer.from(fake.getObject('secrets', 'cli', 'cli-mgmt-heartbeat-key').data.heartbeat_key, 'base64');
      assert.match(output, /"msg":"operator starting"/);
      assert.ok(!output.includes(key.toString()), 'the heartbeat key is not logged');
    } finally {
      child.kill('SIGTERM');
    }
    assert.equal(await exited, 0, output);
    // SIGTERM steps down: the Lease is released for the next replica.
    assert.equal(fake.getObject('leases', 'cli', 'octonet-operator').spec.holderIdentity ?? null, null, output);
  });

  it('operator crds prints the files under deploy/crds', async () => {
    const r = await octonet(['operator', 'crds']);
    assert.equal(r.code, 0, r.stderr);
    for (const file of ['octaviamanagementnetworks.yaml', 'octaviamanagementports.yaml']) {
      assert.ok(r.stdout.includes(readFileSync(join(DEPLOY_DIR, 'crds', file), 'utf8')), file);
    }
  });

  it('without an API server to talk to, it says how to give one and exits 2', async () => {
    const r = await octonet(['operator', '--os-url', api.url], { KUBERNETES_SERVICE_HOST: '', KUBECONFIG: '' });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /give --kube-url or --kubeconfig/);
  });
});
