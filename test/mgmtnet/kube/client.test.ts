/**
 * The small Kubernetes client and the list-watch loop, against the FAKE API server
 * (test/fixtures/fake-kube-apiserver.ts; no kube-apiserver runs here): CRUD with optimistic
 * concurrency, the status subresource, finalizers, label selectors, and a watch that resumes after
 * its stream ends and lists again after 410 Gone. Also how the connection is found (kubeconfig with
 * an `exec` credential plugin or an oidc auth-provider, in-cluster service account over TLS).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { KubeApiError, KubeClient, type KubeObject, type WatchEvent } from '../../../src/mgmtnet/kube/client.js';
import { fromKubeconfig, resolveConnection } from '../../../src/mgmtnet/kube/connection.js';
import { runWatchLoop } from '../../../src/mgmtnet/kube/watch-loop.js';
import { NETWORKS, NODES, PORTS } from '../../../src/mgmtnet/kube/resources.js';
import { startFakeKubeApiServer, type FakeKubeApiServer } from '../../fixtures/fake-kube-apiserver.js';
import { waitFor } from './wait.js';
import type { Json } from '../../fixtures/json.js';

describe('kube client against the fake API server', () => {
  let fake: FakeKubeApiServer;
  let kube: KubeClient;
  before(async () => {
    fake = await startFakeKubeApiServer();
    kube = new KubeClient(resolveConnection({ url: fake.url }));
  });
  after(() => fake.stop());

  it('creates, gets, replaces with optimistic concurrency, and deletes', async () => {
    const created = await kube.create(PORTS, 'ns', {
      metadata: { name: 'p1', labels: { a: '1' } },
      spec: { network: 'n', node: 'node1' },
    });
    assert.equal(created.kind, 'OctaviaManagementPort');
    assert.equal(created.metadata.generation, 1);
    await assert.rejects(
      kube.create(PORTS, 'ns', { metadata: { name: 'p1' } }),
      (e: unknown) => e instanceof KubeApiError && e.status === 409 && e.reason === 'AlreadyExists',
    );
    const replaced = await kube.replace(PORTS, 'ns', { ...created, spec: { network: 'n', node: 'node2' } });
    assert.equal(replaced.metadata.generation, 2);
    // The first version is stale now: a second writer from it loses.
    await assert.rejects(
      kube.replace(PORTS, 'ns', { ...created, spec: { network: 'n', node: 'node3' } }),
      (e: unknown) => e instanceof KubeApiError && e.status === 409 && e.reason === 'Conflict',
    );
    assert.equal((await kube.get<Json>(PORTS, 'ns', 'p1'))?.spec.node, 'node2');
    assert.equal(await kube.get(PORTS, 'ns', 'missing'), null);
    assert.equal(await kube.delete(PORTS, 'ns', 'p1'), true);
    assert.equal(await kube.delete(PORTS, 'ns', 'p1'), false);
  });

  it('the status subresource changes status only; the main endpoint never does', async () => {
    await kube.create(NETWORKS, 'ns', { metadata: { name: 'n1' }, spec: { topology: 'per-node-ports' } });
    const patched = await kube.mergePatch<Json>(
      NETWORKS,
      'ns',
      'n1',
      { spec: { topology: 'ignored' }, status: { observedGeneration: 1 } },
      'status',
    );
    assert.equal(patched.spec.topology, 'per-node-ports');
    assert.equal(patched.status.observedGeneration, 1);
    assert.equal(patched.metadata.generation, 1, 'a status write is not a new generation');
    const main = await kube.mergePatch<Json>(NETWORKS, 'ns', 'n1', { status: { observedGeneration: 9 } });
    assert.equal(main.status.observedGeneration, 1);
  });

  it('a finalizer holds a deleted object until it is removed', async () => {
    await kube.create(NETWORKS, 'ns', { metadata: { name: 'n2', finalizers: ['x/y'] }, spec: {} });
    await kube.delete(NETWORKS, 'ns', 'n2');
    const held = await kube.get(NETWORKS, 'ns', 'n2');
    assert.ok(held?.metadata.deletionTimestamp);
    await kube.mergePatch(NETWORKS, 'ns', 'n2', { metadata: { finalizers: null } });
    assert.equal(await kube.get(NETWORKS, 'ns', 'n2'), null);
  });

  it('lists nodes by label selector', async () => {
    fake.put('nodes', { metadata: { name: 'w1', labels: { role: 'octavia' } } });
    fake.put('nodes', { metadata: { name: 'w2', labels: { role: 'other' } } });
    fake.put('nodes', { metadata: { name: 'w3' } });
    const names = async (selector: string) =>
      (await kube.list(NODES, undefined, { labelSelector: selector })).items.map((n) => n.metadata.name).sort();
    assert.deepEqual(await names('role=octavia'), ['w1']);
    assert.deepEqual(await names('role!=octavia'), ['w2', 'w3']);
    assert.deepEqual(await names('role'), ['w1', 'w2']);
    assert.deepEqual(await names('!role'), ['w3']);
  });

  it('the watch loop resumes after the stream ends and lists again after 410 Gone', async () => {
    const seen: string[] = [];
    const syncs: string[][] = [];
    const abort = new AbortController();
    const lists = () =>
      fake.requests.filter(
        (r) => r.method === 'GET' && r.path.endsWith('/octaviamanagementports') && !r.query.includes('watch'),
      ).length;
    const listsBefore = lists();
    const loop = runWatchLoop<KubeObject>({
      client: kube,
      type: PORTS,
      namespace: 'w',
      onSync: (items) => syncs.push(items.map((i) => i.metadata.name)),
      onEvent: (e: WatchEvent) => seen.push(`${e.type} ${e.object.metadata.name}`),
      signal: abort.signal,
      retryDelayMs: 10,
    });
    // A failed assertion must not leave the loop running (the test process would never exit).
    try {
      await waitFor(() => fake.openWatches === 1, 'the watch stream');
      await kube.create(PORTS, 'w', { metadata: { name: 'a' }, spec: {} });
      await waitFor(() => seen.includes('ADDED a'), 'ADDED a');

      // The server ends the stream; an event written while no stream is open must still arrive,
      // from the resumed watch, without a new list.
      fake.endWatches();
      await kube.create(PORTS, 'w', { metadata: { name: 'b' }, spec: {} });
      await waitFor(() => seen.includes('ADDED b'), 'ADDED b after the stream ended');
      assert.equal(lists(), listsBefore + 1, 'resumed from the resourceVersion, no relist');

      // The history is compacted and the stream ends: the resume gets 410, so the loop lists again
      // and sees c (created while no stream was open) in the full state.
      fake.endWatches();
      fake.expireHistory();
      await kube.create(PORTS, 'w', { metadata: { name: 'c' }, spec: {} });
      await waitFor(() => syncs.length === 2, 'a second list after 410');
      assert.deepEqual(syncs[1]!.sort(), ['a', 'b', 'c']);
      assert.equal(seen.includes('ADDED c'), false, 'c came from the list, not from an event');
      await waitFor(() => fake.openWatches === 1, 'the watch after the relist');
      await kube.delete(PORTS, 'w', 'a');
      await waitFor(() => seen.includes('DELETED a'), 'DELETED a');

      // The same, with 410 as the HTTP status of the watch request instead of an ERROR event.
      fake.endWatches();
      fake.expireHistory({ as: 'http' });
      await kube.create(PORTS, 'w', { metadata: { name: 'd' }, spec: {} });
      await waitFor(() => syncs.length === 3, 'a third list after an HTTP 410');
      assert.deepEqual(syncs[2]!.sort(), ['b', 'c', 'd']);
    } finally {
      abort.abort();
      await loop;
    }
  });
});

describe('kube client over TLS with a service-account token', () => {
  // An API server stand-in with its own CA-signed certificate (openssl), answering one list, so the
  // in-cluster path (CA file, bearer token re-read per request) is exercised over real TLS.
  const dir = mkdtempSync(join(tmpdir(), 'octonet-kube-tls-'));
  let server: https.Server;
  let url = '';
  const seenTokens: string[] = [];
  before(async () => {
    const run = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
    run([
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'ca.key',
      '-out',
      'ca.crt',
      '-days',
      '1',
      '-subj',
      '/CN=test-ca',
    ]);
    run([
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'server.key',
      '-out',
      'server.csr',
      '-subj',
      '/CN=127.0.0.1',
    ]);
    writeFileSync(join(dir, 'ext'), 'subjectAltName=IP:127.0.0.1\n');
    run([
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'server.crt',
      '-days',
      '1',
      '-extfile',
      'ext',
    ]);
    server = https.createServer(
      { key: readFileSync(join(dir, 'server.key')), cert: readFileSync(join(dir, 'server.crt')) },
      (req, res) => {
        seenTokens.push(req.headers.authorization ?? '');
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            kind: 'NodeList',
            metadata: { resourceVersion: '7' },
            items: [{ metadata: { name: 'n1' } }],
          }),
        );
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('trusts the given CA, sends the service-account token, and refuses a server it cannot verify', async () => {
    // As kubelet writes it: no trailing newline. client-node re-reads the file every 60 s (client-go's rule).
    writeFileSync(join(dir, 'token'), 'first');
    const port = url.split(':').pop()!;
    const env = { KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: port };
    const kube = new KubeClient(resolveConnection({ env, serviceAccountDir: dir }));
    assert.equal((await kube.list(NODES)).items[0]!.metadata.name, 'n1');
    await kube.list(NODES);
    assert.deepEqual(seenTokens, ['Bearer first', 'Bearer first']);
    // The same account without ca.crt: the system's CAs do not know this server.
    const bare = join(dir, 'no-ca');
    mkdirSync(bare, { recursive: true });
    writeFileSync(join(bare, 'token'), 'first');
    const untrusting = new KubeClient(resolveConnection({ env, serviceAccountDir: bare }));
    await assert.rejects(untrusting.list(NODES), /self[- ]signed|unable to verify|certificate/i);
  });
});

describe('kube connection', () => {
  const dir = mkdtempSync(join(tmpdir(), 'octonet-kube-'));
  let fake: FakeKubeApiServer;
  before(async () => {
    fake = await startFakeKubeApiServer();
  });
  after(async () => {
    await fake.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads the current context of a kubeconfig', () => {
    const path = join(dir, 'config');
    writeFileSync(
      path,
      [
        'apiVersion: v1',
        'current-context: b',
        'contexts:',
        '- {name: a, context: {cluster: ca, user: ua}}',
        '- {name: b, context: {cluster: cb, user: ub, namespace: octavia}}',
        'clusters:',
        '- {name: ca, cluster: {server: "https://a:6443"}}',
        `- {name: cb, cluster: {server: "https://b:6443", certificate-authority-data: ${Buffer.from('CA').toString('base64')}}}`,
        'users:',
        '- {name: ua, user: {token: wrong}}',
        '- {name: ub, user: {token: right}}',
      ].join('\n'),
    );
    const c = fromKubeconfig(path);
    assert.equal(c.server, 'https://b:6443');
    assert.equal(c.config.getCurrentUser()?.token, 'right');
    assert.equal(Buffer.from(c.config.getCurrentCluster()!.caData!, 'base64').toString(), 'CA');
    assert.equal(c.namespace, 'octavia');
  });

  it("calls a kubeconfig's exec credential plugin and sends its token (cached until it expires)", async () => {
    // The plugin protocol (client.authentication.k8s.io/v1): print an ExecCredential on stdout.
    const plugin = join(dir, 'credential-plugin');
    const calls = join(dir, 'plugin-calls');
    const expires = new Date(Date.now() + 3600_000).toISOString();
    writeFileSync(
      plugin,
      [
        '#!/bin/sh',
        `echo called >> '${calls}'`,
        `printf '%s' '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",` +
          `"status":{"token":"from-exec-plugin","expirationTimestamp":"${expires}"}}'`,
      ].join('\n'),
      { mode: 0o755 },
    );
    const path = join(dir, 'exec-config');
    writeFileSync(
      path,
      [
        'apiVersion: v1',
        'current-context: fake',
        'contexts: [{name: fake, context: {cluster: fake, user: plugin, namespace: execns}}]',
        // Plain HTTP to the fake: client-node wants TLS verification off for an http: server.
        `clusters: [{name: fake, cluster: {server: "${fake.url}", insecure-skip-tls-verify: true}}]`,
        'users:',
        '- name: plugin',
        '  user:',
        '    exec: {apiVersion: client.authentication.k8s.io/v1, command: ' + plugin + ', interactiveMode: Never}',
      ].join('\n'),
    );
    const kube = new KubeClient(resolveConnection({ env: { KUBECONFIG: path } }));
    assert.equal(kube.connection.namespace, 'execns');
    await kube.list(NODES);
    await kube.get(NODES, undefined, 'missing');
    const sent = fake.requests.filter((r) => r.path === '/api/v1/nodes' || r.path === '/api/v1/nodes/missing');
    assert.deepEqual(
      sent.map((r) => r.authorization),
      ['Bearer from-exec-plugin', 'Bearer from-exec-plugin'],
    );
    assert.equal(readFileSync(calls, 'utf8'), 'called\n', 'called once: the unexpired credential is reused');
  });

  it("sends a kubeconfig's auth-provider (oidc) id-token while it is valid", async () => {
    // kubectl's oidc auth-provider entry: an unexpired id-token is sent as it is (no IdP is asked;
    // past its `exp` client-node would refresh it at idp-issuer-url with the refresh-token).
    const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const exp = Math.floor(Date.now() / 1000) + 3600;
    const idToken = `${part({ alg: 'RS256' })}.${part({ iss: 'https://idp.invalid', sub: 'octonet', exp })}.c2ln`;
    const path = join(dir, 'oidc-config');
    writeFileSync(
      path,
      [
        'apiVersion: v1',
        'current-context: fake',
        'contexts: [{name: fake, context: {cluster: fake, user: oidc}}]',
        `clusters: [{name: fake, cluster: {server: "${fake.url}", insecure-skip-tls-verify: true}}]`,
        'users:',
        '- name: oidc',
        '  user:',
        '    auth-provider:',
        '      name: oidc',
        '      config:',
        '        idp-issuer-url: https://idp.invalid',
        '        client-id: kubernetes',
        `        id-token: ${idToken}`,
        '        refresh-token: unused',
      ].join('\n'),
    );
    const kube = new KubeClient(resolveConnection({ env: { KUBECONFIG: path } }));
    await kube.get(NODES, undefined, 'oidc-probe');
    const sent = fake.requests.filter((r) => r.path === '/api/v1/nodes/oidc-probe');
    assert.deepEqual(
      sent.map((r) => r.authorization),
      [`Bearer ${idToken}`],
    );
  });

  it('uses the service account in a pod', () => {
    const sa = join(dir, 'sa');
    rmSync(sa, { recursive: true, force: true });
    mkdirSync(sa);
    writeFileSync(join(sa, 'token'), 't1');
    writeFileSync(join(sa, 'namespace'), 'octonet');
    const c = resolveConnection({
      env: { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' },
      serviceAccountDir: sa,
    });
    assert.equal(c.server, 'https://[fd00::1]:443');
    assert.equal(c.namespace, 'octonet');
    assert.equal(c.config.getCurrentUser()?.authProvider?.config.tokenFile, join(sa, 'token'));
    assert.throws(() => resolveConnection({ env: {}, serviceAccountDir: sa }), /no Kubernetes API server/);
  });
});
