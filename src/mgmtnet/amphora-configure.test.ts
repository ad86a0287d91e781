/**
 * The amphora push and the propagation order against a fake Octavia API (a plain HTTP server: the
 * real Octavia runs in test/octavia/controller-list.test.ts). What must hold: pages are followed,
 * spares and dead amphorae are skipped, a 409 or a 503 is retried, a 404 is not, Octavia away is
 * reported and never thrown; amphorae wait for a reload that failed, and a delivered list is not
 * delivered again; without a reload the list is recorded as delivered only when the worker check
 * says the worker has it (else pushed again on the next pass).
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { OctaviaClient, pushAmphoraConfig } from './amphora-configure.js';
import { propagateControllerList } from './octavia-propagate.js';
import { parseReloadTarget } from './octavia-reload.js';

interface FakeOctavia {
  amphorae: { id: string; status: string; loadbalancer_id: string | null }[];
  /** Answers to give, per amphora, before the 202 (status codes). */
  refusals: Map<string, number[]>;
  configured: string[];
  tokens: (string | undefined)[];
}

describe('amphora configure for every amphora (fake Octavia API)', () => {
  const fake: FakeOctavia = { amphorae: [], refusals: new Map(), configured: [], tokens: [] };
  let server: Server;
  let url = '';
  const quick = { retryDelayMs: 1 };

  before(async () => {
    server = createServer((req, res) => {
      fake.tokens.push(req.headers['x-auth-token'] as string | undefined);
      const path = new URL(req.url ?? '/', 'http://x');
      const configure = /^\/v2\/octavia\/amphorae\/([^/]+)\/config$/.exec(path.pathname);
      if (req.method === 'GET' && path.pathname === '/v2/octavia/amphorae') {
        // Two per page, with Octavia's `next` link (absolute, as Octavia writes it).
        const start = Number(path.searchParams.get('marker') ?? 0);
        const page = fake.amphorae.slice(start, start + 2);
        const links =
          start + 2 < fake.amphorae.length
            ? [{ rel: 'next', href: `http://octavia.example:9876/v2/octavia/amphorae?limit=2&marker=${start + 2}` }]
            : [];
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ amphorae: page, amphorae_links: links }));
      } else if (req.method === 'PUT' && configure) {
        const id = configure[1]!;
        const refusal = fake.refusals.get(id)?.shift();
        if (refusal !== undefined) {
          res.writeHead(refusal, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ faultcode: 'Client', faultstring: `refused ${refusal}`, debuginfo: null }));
          return;
        }
        fake.configured.push(id);
        res.writeHead(202);
        res.end();
      } else {
        res.writeHead(404);
        res.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    fake.amphorae = [
      { id: 'a1', status: 'ALLOCATED', loadbalancer_id: 'lb1' },
      { id: 'a2', status: 'ALLOCATED', loadbalancer_id: 'lb1' },
      { id: 'spare', status: 'READY', loadbalancer_id: null },
      { id: 'dead', status: 'ERROR', loadbalancer_id: 'lb2' },
      { id: 'a3', status: 'ALLOCATED', loadbalancer_id: 'lb3' },
    ];
    fake.refusals.clear();
    fake.configured = [];
    fake.tokens = [];
  });

  it('configures the amphorae of load balancers across pages, with the token, skipping spares and dead ones', async () => {
    const client = new OctaviaClient({ url: `${url}/`, authHeaders: async () => ({ 'x-auth-token': 'tok' }) });
    const report = await pushAmphoraConfig(client, quick);
    assert.deepEqual(report, {
      configured: ['a1', 'a2', 'a3'],
      skipped: [
        { id: 'spare', status: 'READY' },
        { id: 'dead', status: 'ERROR' },
      ],
      failed: [],
    });
    assert.deepEqual(fake.configured, ['a1', 'a2', 'a3']);
    assert.ok(fake.tokens.every((t) => t === 'tok'));
  });

  it('retries a busy (409) or failing (503) amphora, gives up on a 404 and after the last try', async () => {
    fake.refusals.set('a1', [409, 503]);
    fake.refusals.set('a2', [404]);
    fake.refusals.set('a3', [409, 409, 409]);
    const logged: string[] = [];
    const report = await pushAmphoraConfig(new OctaviaClient({ url }), {
      ...quick,
      log: (message) => logged.push(message),
    });
    assert.deepEqual(report.configured, ['a1']);
    assert.deepEqual(
      report.failed.map((f) => f.id),
      ['a2', 'a3'],
    );
    assert.match(report.failed[0]!.error, /PUT \/v2\/octavia\/amphorae\/a2\/config: 404 refused 404/);
    assert.match(report.failed[1]!.error, /409 refused 409/);
    assert.equal(logged.filter((m) => m === 'amphora configure a1 failed, trying again').length, 2);
  });

  it('reports an Octavia it cannot reach instead of throwing', async () => {
    const report = await pushAmphoraConfig(new OctaviaClient({ url: 'http://127.0.0.1:1' }), { attempts: 2, ...quick });
    assert.deepEqual([report.configured, report.failed], [[], []]);
    assert.match(report.error ?? '', /GET \/v2\/octavia\/amphorae.*cannot reach http:\/\/127\.0\.0\.1:1/);
  });

  it('propagates: reload first, amphorae only after it succeeded, each list delivered once', async () => {
    const octavia = new OctaviaClient({ url });
    const list = ['172.24.0.5:5555', '172.24.0.6:5555'];
    const targets = { octavia, settleMs: 1, amphoraPush: quick };

    // The reload fails: nothing is configured, the state keeps both steps pending.
    const failing = await propagateControllerList(
      list,
      {},
      { ...targets, reload: [parseReloadTarget('command:false')] },
    );
    assert.deepEqual(failing.state, {});
    assert.equal(failing.amphorae, undefined);
    assert.deepEqual(fake.configured, []);

    const done = await propagateControllerList(list, failing.state, {
      ...targets,
      reload: [parseReloadTarget('command:true')],
    });
    assert.deepEqual(done.state, { reloaded: list, configured: list });
    assert.deepEqual(fake.configured, ['a1', 'a2', 'a3']);

    // Nothing new: nothing is signalled or configured again.
    const again = await propagateControllerList(list, done.state, {
      ...targets,
      reload: [parseReloadTarget('command:false')],
    });
    assert.deepEqual([again.reloads, again.amphorae, again.state], [[], undefined, done.state]);
    assert.equal(fake.configured.length, 3);

    // An amphora refuses: the worker is known to have the list, the push stays pending and is tried again.
    const joined = [...list, '172.24.0.7:5555'];
    const workerHas = (has: readonly string[]) => async (wanted: readonly string[]) => ({
      ready: wanted.join() === has.join(),
      detail: `the worker has ${has.join(', ')}`,
    });
    fake.refusals.set('a2', [404]);
    const partial = await propagateControllerList(joined, done.state, {
      ...targets,
      reload: [],
      workerCheck: workerHas(joined),
    });
    assert.deepEqual(partial.state, done.state);
    assert.deepEqual(
      partial.amphorae?.failed.map((f) => f.id),
      ['a2'],
    );
    const retried = await propagateControllerList(joined, partial.state, {
      ...targets,
      reload: [],
      workerCheck: workerHas(joined),
    });
    assert.deepEqual(retried.state.configured, joined);
  });

  it('without a reload, records amphorae as configured only once the worker is known to have the list', async () => {
    const octavia = new OctaviaClient({ url });
    const before = { reloaded: ['172.24.0.5:5555'], configured: ['172.24.0.5:5555'] };
    const list = ['172.24.0.5:5555', '172.24.0.9:5555'];
    const targets = { octavia, settleMs: 1, amphoraPush: quick, reload: [] };
    fake.configured.length = 0;

    // Nothing tells what the worker has (the Kubernetes flow, no check): pushed, not recorded.
    const unknown = await propagateControllerList(list, before, targets);
    assert.equal(unknown.unconfirmed, true);
    assert.deepEqual(unknown.state, before);
    assert.deepEqual(fake.configured, ['a1', 'a2', 'a3']);
    // ... so the next pass pushes again.
    const unknownAgain = await propagateControllerList(list, unknown.state, targets);
    assert.deepEqual(unknownAgain.state, before);
    assert.equal(fake.configured.length, 6);

    // The worker's rollout is not complete: no push, pending, with the reason.
    let rolledOut = false;
    const workerCheck = async () => ({ ready: rolledOut, detail: 'deployment/octavia-worker: 1 of 2 pods updated' });
    const waiting = await propagateControllerList(list, before, { ...targets, workerCheck });
    assert.equal(waiting.waiting, 'deployment/octavia-worker: 1 of 2 pods updated');
    assert.equal(waiting.amphorae, undefined);
    assert.deepEqual(waiting.state, before);
    assert.equal(fake.configured.length, 6);

    // Rolled out: pushed and recorded; the pass after does nothing.
    rolledOut = true;
    const delivered = await propagateControllerList(list, waiting.state, { ...targets, workerCheck });
    assert.deepEqual(delivered.state.configured, list);
    assert.equal(delivered.unconfirmed, undefined);
    assert.equal(fake.configured.length, 9);
    const after = await propagateControllerList(list, delivered.state, { ...targets, workerCheck });
    assert.equal(after.amphorae, undefined);
    assert.equal(fake.configured.length, 9);
  });
});
