/**
 * The real `openstack` CLI as an operator runs it: a `clouds.yaml` with password auth against a real
 * Keystone, whose catalog's `network` endpoint is octonet (`auth: keystone`). As admin of project A
 * and as members of A and B: network create/list, quota show/set/list.
 *
 * One octonet (SQLite: the store does not matter here, the HTTP suite covers both) because the
 * catalog names one network endpoint. Every call costs a second or two of Python start-up and a
 * Keystone authentication, so the sequence is short and runs in order.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { useApi } from '../fixtures/api.js';
import { useKeystone, withToken } from '../fixtures/keystone.js';
import { OpenstackCli, type CliResult } from '../fixtures/openstack-cli.js';

/** A hung client is killed after this long (a guard against hangs, not a speed check). */
const GIVE_UP_MS = 120_000;

/**
 * `openstack --os-cloud <cloud>` with `OS_CLIENT_CONFIG_FILE` as its only OS_* variable, instead of
 * the base class's `OS_AUTH_TYPE=none` and fixed endpoint: the client authenticates and finds
 * octonet in the catalog.
 */
class CloudCli extends OpenstackCli {
  constructor(
    private readonly cloudsYaml: string,
    private readonly cloud: string,
  ) {
    super('(from the catalog)');
  }

  override run(args: readonly string[]): Promise<CliResult> {
    const env: NodeJS.ProcessEnv = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !k.startsWith('OS_')),
    );
    env.OS_CLIENT_CONFIG_FILE = this.cloudsYaml;
    return new Promise((resolve, reject) => {
      const child = spawn('openstack', ['--os-cloud', this.cloud, ...args], {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: GIVE_UP_MS,
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.once('error', reject);
      child.once('close', (code) => resolve({ code, stdout, stderr }));
    });
  }
}

/**
 * A stand-in for Nova's and Cinder's quota-sets. openstackclient 6.0's `quota show` builds the
 * compute and volume clients before it checks whether the catalog has them, so without these
 * services in the catalog it fails whatever the network API does (against the real Neutron too).
 * It answers every request with an empty quota set: the network part is octonet's.
 */
async function startQuotaStandIn(): Promise<Server & { url: string }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"quota_set": {}}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(server, { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
}

describe('openstack CLI with Keystone', { concurrency: 1 }, () => {
  const keystone = useKeystone();
  const api = useApi('sqlite', { config: () => keystone.octonetConfig() });
  let admin: CloudCli;
  let memberA: CloudCli;
  let memberB: CloudCli;
  let standIn: Server & { url: string };
  before(async () => {
    standIn = await startQuotaStandIn();
    await keystone.setEndpoint('network', api.url);
    await keystone.setEndpoint('compute', `${standIn.url}/v2.1`);
    await keystone.setEndpoint('volumev3', `${standIn.url}/v3`);
    const clouds = keystone.writeCloudsYaml();
    admin = new CloudCli(clouds, 'adminA');
    memberA = new CloudCli(clouds, 'memberA');
    memberB = new CloudCli(clouds, 'memberB');
  });
  after(() => {
    standIn?.closeAllConnections();
    standIn?.close();
  });

  it("network create puts the network in the caller's project; list shows what each may see", async () => {
    const byAdmin = await admin.json(['network', 'create', 'admin-net']);
    assert.equal(byAdmin.project_id, keystone.projects.a.id);
    const byMemberA = await memberA.json(['network', 'create', 'member-a-net']);
    assert.equal(byMemberA.project_id, keystone.projects.a.id);
    const byMemberB = await memberB.json(['network', 'create', 'member-b-net']);
    assert.equal(byMemberB.project_id, keystone.projects.b.id);

    const names = (rows: { Name: string }[]) => rows.map((r) => r.Name).sort();
    assert.deepEqual(names(await admin.json(['network', 'list'])), ['admin-net', 'member-a-net', 'member-b-net']);
    assert.deepEqual(names(await memberA.json(['network', 'list'])), ['admin-net', 'member-a-net']);
    assert.deepEqual(names(await memberB.json(['network', 'list'])), ['member-b-net']);
  });

  it('quota show, quota set --networks 5 <project> and quota list --network --detail as admin', async () => {
    const before = await admin.json(['quota', 'show', keystone.projects.b.name]);
    assert.equal(before.networks, 100);
    assert.equal(before.project, keystone.projects.b.id);
    await admin.ok(['quota', 'set', '--networks', '5', keystone.projects.b.name]);
    const after = await admin.json(['quota', 'show', keystone.projects.b.name]);
    assert.equal(after.networks, 5);
    const adminToken = await keystone.issueToken(keystone.users.adminA);
    const stored = await withToken(api.admin, adminToken).get(`/v2.0/quotas/${keystone.projects.b.id}`);
    assert.equal(stored.body.quota.network, 5);

    // Without --project: the admin's own project (A), where two networks exist.
    const detail = await admin.json<{ Resource: string; 'In Use': number; Limit: number }[]>([
      'quota',
      'list',
      '--network',
      '--detail',
    ]);
    const networks = detail.find((r) => r.Resource === 'networks');
    assert.deepEqual(networks && { inUse: networks['In Use'], limit: networks.Limit }, { inUse: 2, limit: 100 });
  });

  it('network rbac create shares a network with one project, by its owner (a member) or an admin', async () => {
    const B = keystone.projects.b;
    // A member names the target by ID: Keystone does not let members look projects up by name.
    const byMember = await memberA.json([
      'network',
      'rbac',
      'create',
      '--target-project',
      B.id,
      '--action',
      'access_as_shared',
      '--type',
      'network',
      'member-a-net',
    ]);
    assert.deepEqual(
      [byMember.action, byMember.object_type, byMember.target_project_id, byMember.project_id],
      ['access_as_shared', 'network', B.id, keystone.projects.a.id],
    );
    const seenByB = await memberB.json(['network', 'show', 'member-a-net']);
    assert.equal(seenByB.is_shared ?? seenByB.shared, true);
    assert.deepEqual(
      (await memberA.json<{ ID: string }[]>(['network', 'rbac', 'list'])).map((p) => p.ID),
      [byMember.id],
    );
    // Sharing with everyone is for admins.
    const refused = await memberA.fails([
      'network',
      'rbac',
      'create',
      '--target-all-projects',
      '--action',
      'access_as_shared',
      '--type',
      'network',
      'member-a-net',
    ]);
    assert.match(
      refused.stderr,
      /403: .*rule:create_rbac_policy:target_tenant\) and rule:create_rbac_policy:action\) is disallowed by policy/,
    );
    // B may see the network but not share it on.
    const notOwner = await memberB.fails([
      'network',
      'rbac',
      'create',
      '--target-project',
      keystone.projects.c.id,
      '--action',
      'access_as_shared',
      '--type',
      'network',
      byMember.object_id,
    ]);
    assert.match(notOwner.stderr, /Only admins can manipulate policies on networks they do not own/);

    // An admin names the project by name and may offer A's network to B as external.
    const byAdmin = await admin.json([
      'network',
      'rbac',
      'create',
      '--target-project',
      B.name,
      '--action',
      'access_as_shared',
      '--type',
      'network',
      'admin-net',
    ]);
    assert.equal(byAdmin.target_project_id, B.id);
    const names = (rows: { Name: string }[]) => rows.map((r) => r.Name).sort();
    assert.deepEqual(names(await memberB.json(['network', 'list'])), ['admin-net', 'member-a-net', 'member-b-net']);
    await admin.ok(['network', 'rbac', 'delete', byAdmin.id]);
    assert.deepEqual(names(await memberB.json(['network', 'list'])), ['member-a-net', 'member-b-net']);
  });

  it('a member sees their own quota and may not set one', async () => {
    const own = await memberB.json(['quota', 'show']);
    assert.equal(own.networks, 5);
    assert.equal(own.project, keystone.projects.b.id);
    const detail = await memberB.json<{ Resource: string; 'In Use': number; Limit: number }[]>([
      'quota',
      'list',
      '--network',
      '--detail',
      '--project',
      keystone.projects.b.id,
    ]);
    const networks = detail.find((r) => r.Resource === 'networks');
    assert.deepEqual(networks && { inUse: networks['In Use'], limit: networks.Limit }, { inUse: 1, limit: 5 });
    const refused = await memberB.fails(['quota', 'set', '--networks', '50', keystone.projects.b.id]);
    assert.match(refused.stderr, /403: .*\/v2\.0\/quotas\/.*rule:update_quota is disallowed by policy/);
  });
});
