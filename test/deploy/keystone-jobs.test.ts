/**
 * The Keystone jobs of deploy/kustomize (OpenStack-Helm's ks-user, ks-service, ks-endpoints) run for
 * real: each container's script from the rendered ConfigMap, with the environment the rendered Job
 * gives it (its env, and the Secrets it names, pointed at a REAL Keystone: test/fixtures/keystone.ts),
 * through Debian's `openstack` client as OSH's heat image has it. Then octonet's service user logs in
 * with the user Secret's password and its token carries the roles and the catalog the jobs made; a
 * second run of the service and endpoint jobs (Helm re-runs them on every upgrade) changes nothing.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SYSTEM_PATH, useKeystone } from '../fixtures/keystone.js';
import type { Json } from '../fixtures/json.js';
import { findObject, kustomize } from './render.js';

const ROOT = new URL('../../', import.meta.url).pathname;
/** In the order OpenStack-Helm's dependencies run them. */
const JOBS = ['octonet-ks-user', 'octonet-ks-service', 'octonet-ks-endpoints'];

function runScript(file: string, env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [file], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`${file} exited ${code}:\n${stderr}`))));
  });
}

describe("deploy/kustomize's Keystone jobs against a real Keystone", () => {
  const keystone = useKeystone();
  const dir = mkdtempSync(join(tmpdir(), 'octonet-ks-jobs-'));
  let objects: Json[];
  /** The Secrets' data, as the cluster would hold it, with Keystone's real address and admin. */
  const secrets = new Map<string, Record<string, string>>();
  after(() => rmSync(dir, { recursive: true, force: true }));

  before(() => {
    objects = kustomize(join(ROOT, 'deploy', 'kustomize'));
    for (const o of objects.filter((x) => x.kind === 'Secret')) {
      secrets.set(o.metadata.name, { ...(o.stringData as Record<string, string>) });
    }
    const admin = secrets.get('octonet-keystone-admin')!;
    const { cloudAdmin } = keystone.users;
    Object.assign(admin, {
      OS_AUTH_URL: keystone.url,
      OS_USERNAME: cloudAdmin.name,
      OS_PASSWORD: cloudAdmin.password,
      OS_PROJECT_NAME: cloudAdmin.project.name,
    });
    secrets.get('octonet-keystone-user')!.OS_AUTH_URL = keystone.url;
    // The domain is named `default` as OpenStack-Helm names it: its Keystone keeps names in MariaDB,
    // which compares them case-insensitively, so `default` finds Keystone's `Default`. This
    // Keystone keeps them in SQLite, which does not: the name is given as it is stored. (octonet's
    // own config names the domain by ID, `default`, either way.)
    for (const data of [admin, secrets.get('octonet-keystone-user')!]) {
      assert.equal(data.OS_USER_DOMAIN_NAME, 'default');
      assert.equal(data.OS_PROJECT_DOMAIN_NAME, 'default');
      data.OS_USER_DOMAIN_NAME = data.OS_PROJECT_DOMAIN_NAME = 'Default';
    }
  });

  /** A container's environment: envFrom Secrets (with their prefix), then env values and references. */
  function containerEnv(container: Json): Record<string, string> {
    const env: Record<string, string> = {};
    for (const from of container.envFrom ?? []) {
      const data = secrets.get(from.secretRef.name);
      assert.ok(data, `Secret ${from.secretRef.name} is rendered`);
      for (const [k, v] of Object.entries(data)) env[`${from.prefix ?? ''}${k}`] = v;
    }
    for (const e of container.env ?? []) {
      const ref = e.valueFrom?.secretKeyRef;
      env[e.name] = ref ? secrets.get(ref.name)![ref.key]! : e.value;
    }
    return env;
  }

  async function runJobs(jobs: readonly string[]): Promise<void> {
    const bin = findObject(objects, 'ConfigMap', 'octonet-bin');
    for (const name of jobs) {
      for (const container of findObject(objects, 'Job', name).spec.template.spec.containers) {
        const script = join(dir, container.volumeMounts[0].subPath);
        writeFileSync(script, bin.data[container.volumeMounts[0].subPath]);
        await runScript(script, { PATH: SYSTEM_PATH, HOME: dir, ...containerEnv(container) });
      }
    }
  }

  /**
   * octonet's service user logs in with the user Secret's name and password in project `service`
   * (domain by ID, as octonet's config names it); its token as Keystone validates it (roles, catalog).
   */
  async function serviceUserToken(): Promise<Json> {
    const user = secrets.get('octonet-keystone-user')!;
    const project = keystone.projects.service;
    assert.equal(user.OS_PROJECT_NAME, project.name);
    const token = await keystone.issueToken({
      id: '',
      name: user.OS_USERNAME!,
      password: user.OS_PASSWORD!,
      project,
      roles: [],
    });
    const response = await fetch(`${keystone.url}/auth/tokens`, {
      headers: { 'x-auth-token': token, 'x-subject-token': token },
    });
    assert.equal(response.status, 200);
    return ((await response.json()) as { token: Json }).token;
  }

  /** What the jobs were asked to register: interface → URL, from ks-endpoints' containers. */
  const wantedEndpoints = () =>
    Object.fromEntries(
      findObject(objects, 'Job', 'octonet-ks-endpoints').spec.template.spec.containers.map((c: Json) => {
        const env = containerEnv(c);
        return [env.OS_SVC_ENDPOINT, env.OS_SERVICE_ENDPOINT];
      }),
    );

  function assertCatalog(token: Json): void {
    const network = (token.catalog as Json[]).filter((s) => s.type === 'network');
    assert.equal(network.length, 1, 'one network service');
    assert.equal(network[0].name, 'neutron');
    const endpoints = network[0].endpoints as Json[];
    assert.equal(endpoints.length, 3, 'admin, internal and public, once each');
    assert.deepEqual(Object.fromEntries(endpoints.map((e) => [e.interface, e.url])), wantedEndpoints());
    for (const e of endpoints) assert.equal(e.region_id ?? e.region, 'RegionOne');
  }

  it('make the service user with its roles, the network service and its three endpoints', async () => {
    await runJobs(JOBS);
    const token = await serviceUserToken();
    assert.equal(token.user.name, 'octonet');
    assert.equal(token.project.name, 'service');
    const roles = (token.roles as Json[]).map((r) => r.name);
    for (const role of ['admin', 'service']) assert.ok(roles.includes(role), `role ${role}: ${roles.join(', ')}`);
    assertCatalog(token);
  });

  it('run again (an upgrade), the service and endpoint jobs find what they made and change nothing', async () => {
    // ks-user is `--or-show` and PUTs throughout; these two decide by what they find.
    await runJobs(JOBS.slice(1));
    assertCatalog(await serviceUserToken());
  });
});
