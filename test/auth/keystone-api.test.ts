/**
 * `auth: keystone` over HTTP against a real Keystone (test/fixtures/keystone.ts), on both stores:
 * who a token makes the caller, the 401s keystonemiddleware gives, revocation and the token cache,
 * no secret in the log, and a Keystone that stops (503, nothing written).
 *
 * One Keystone serves the whole file; its shutdown is the last test.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { loadConfig } from '../../src/config/config.js';
import { startServer, type RunningServer } from '../../src/cli/serve.js';
import { BACKENDS, Client, useApi } from '../fixtures/api.js';
import { createBackendDatabase, type TestDatabase } from '../fixtures/databases.js';
import { useKeystone, withToken } from '../fixtures/keystone.js';

const UNAUTHORIZED_BODY =
  '{"error": {"code": 401, "title": "Unauthorized", "message": "The request you have made requires authentication."}}';

function assertUnauthorized(response: { status: number; headers: Headers; text: string }, keystoneUrl: string) {
  assert.equal(response.status, 401);
  assert.equal(response.text, UNAUTHORIZED_BODY);
  assert.equal(response.headers.get('www-authenticate'), `Keystone uri="${keystoneUrl}"`);
  assert.equal(response.headers.get('content-type'), 'application/json');
  assert.match(response.headers.get('x-openstack-request-id') ?? '', /^req-/);
}

describe('keystone auth', () => {
  const keystone = useKeystone();

  for (const backend of BACKENDS) {
    describe(`tokens decide the caller (${backend})`, () => {
      // Cache time 0: every request asks Keystone, so a revocation shows at once.
      const api = useApi(backend, { config: () => keystone.octonetConfig({ token_cache_time: 0 }) });
      const as = async (user: keyof typeof keystone.users) =>
        withToken(api.admin, await keystone.issueToken(keystone.users[user]));

      it("a member's network belongs to their project; another project's member gets 404; admin sees both", async () => {
        const memberA = await as('memberA');
        const memberB = await as('memberB');
        const adminA = await as('adminA');
        const netA = await memberA.post('/v2.0/networks', { network: { name: 'net-a' } });
        assert.equal(netA.status, 201, netA.text);
        assert.equal(netA.body.network.project_id, keystone.projects.a.id);
        const netB = await memberB.post('/v2.0/networks', { network: { name: 'net-b' } });
        assert.equal(netB.body.network.project_id, keystone.projects.b.id);

        assert.equal((await memberB.get(`/v2.0/networks/${netA.body.network.id}`)).status, 404);
        const seenByB = await memberB.get('/v2.0/networks');
        assert.deepEqual(
          seenByB.body.networks.map((n: { name: string }) => n.name),
          ['net-b'],
        );
        const seenByAdmin = await adminA.get('/v2.0/networks');
        assert.deepEqual(seenByAdmin.body.networks.map((n: { name: string }) => n.name).sort(), ['net-a', 'net-b']);
        // A reader of A reads A's network but may not create one.
        const readerA = await as('readerA');
        assert.equal((await readerA.get(`/v2.0/networks/${netA.body.network.id}`)).status, 200);
        assert.equal((await readerA.post('/v2.0/networks', { network: { name: 'no' } })).status, 403);
      });

      it('identity headers from the client are ignored', async () => {
        const memberB = await as('memberB');
        const posed = await memberB.get('/v2.0/quotas/project', {});
        assert.equal(posed.body.project.project_id, keystone.projects.b.id);
        const spoofed = await api.admin.get('/v2.0/quotas/project', {
          'x-auth-token': await keystone.issueToken(keystone.users.memberB),
          'x-project-id': keystone.projects.a.id,
          'x-roles': 'admin',
        });
        assert.equal(spoofed.body.project.project_id, keystone.projects.b.id);
        // Without a token the same headers identify no one.
        const headersOnly = await api.as({ project: keystone.projects.a.id, roles: ['admin'] }).get('/v2.0/networks');
        assertUnauthorized(headersOnly, keystone.url);
      });

      it('a system-scoped admin token has no project and sees every project', async () => {
        const system = withToken(api.admin, await keystone.issueToken(keystone.users.cloudAdmin, 'system'));
        const listed = await system.get('/v2.0/networks');
        assert.equal(listed.status, 200);
        assert.ok(listed.body.networks.length >= 2);
        const created = await system.post('/v2.0/networks', { network: { name: 'no-project' } });
        assert.equal(created.status, 400, 'a project-less admin must name the project, as in Neutron');
        const forA = await system.post('/v2.0/networks', {
          network: { name: 'for-a', project_id: keystone.projects.a.id },
        });
        assert.equal(forA.status, 201);
      });

      it('no token, a garbage token, a revoked token: 401 with keystonemiddleware body and header', async () => {
        assertUnauthorized(await api.admin.get('/v2.0/networks'), keystone.url);
        assertUnauthorized(await api.admin.get('/v2.0/extensions'), keystone.url);
        assertUnauthorized(await api.admin.post('/v2.0/networks', { network: { name: 'x' } }), keystone.url);
        assertUnauthorized(await api.admin.get('/v2.0/networks', { 'x-auth-token': 'gAAAAAgarbage' }), keystone.url);
        assertUnauthorized(await api.admin.get('/v2.0/no-such-thing'), keystone.url);

        const token = await keystone.issueToken(keystone.users.memberA);
        assert.equal((await withToken(api.admin, token).get('/v2.0/networks')).status, 200);
        await keystone.revokeToken(token);
        assertUnauthorized(await withToken(api.admin, token).get('/v2.0/networks'), keystone.url);
      });

      it('version discovery needs no token; paths outside /v2.0 answer 404 without one', async () => {
        const root = await api.admin.get('/');
        assert.equal(root.status, 200);
        assert.equal(root.body.versions[0].id, 'v2.0');
        assert.equal((await api.admin.get('/nothing-here')).status, 404);
      });
    });
  }

  describe('token cache', () => {
    const api = useApi('sqlite', { config: () => keystone.octonetConfig() });

    it('with the default cache time, a revoked token is accepted until its cache entry ends', async () => {
      const token = await keystone.issueToken(keystone.users.memberA);
      const client = withToken(api.admin, token);
      assert.equal((await client.get('/v2.0/networks')).status, 200);
      await keystone.revokeToken(token);
      assert.equal((await client.get('/v2.0/networks')).status, 200, 'documented: up to token_cache_time (300 s)');
    });
  });

  describe('log', () => {
    let server: RunningServer;
    let database: TestDatabase;
    const lines: string[] = [];
    before(async () => {
      database = await createBackendDatabase('sqlite');
      const config = loadConfig({
        env: {},
        overrides: { listen: '127.0.0.1:0', database: database.url, log_level: 'trace', ...keystone.octonetConfig() },
      });
      const logger = pino({ level: 'trace' }, { write: (line: string) => lines.push(line) });
      server = await startServer(config, logger);
    });
    after(async () => {
      await server?.close();
      await database?.drop();
    });

    it('holds no token and no password, at trace level, and one access line per request', async () => {
      const client = new Client(server.url, null);
      const member = await keystone.issueToken(keystone.users.memberA);
      const admin = await keystone.issueToken(keystone.users.adminA);
      assert.equal(
        (await withToken(client, member).post('/v2.0/networks', { network: { name: 'logged' } })).status,
        201,
      );
      assert.equal((await withToken(client, admin).get('/v2.0/networks')).status, 200);
      assert.equal((await client.get('/v2.0/networks', { 'x-auth-token': 'gAAAAAnot-a-real-token' })).status, 401);
      assert.equal((await client.get('/v2.0/networks', { 'x-auth-token': member })).status, 200);
      const log = lines.join('');
      for (const secret of [member, admin, 'gAAAAAnot-a-real-token', keystone.users.service.password]) {
        assert.ok(!log.includes(secret), 'a secret reached the log');
      }
      // The service token is only ever known to octonet; no "gAAAA" (fernet) string may appear at all.
      assert.ok(!log.includes('gAAAA'), 'a fernet token reached the log');
      const access = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request');
      assert.deepEqual(
        access.map((l) => l.status),
        [201, 200, 401, 200],
      );
      assert.equal(access[0].project, keystone.projects.a.id);
      assert.equal(access[0].user, keystone.users.memberA.id);
      assert.ok(lines.some((l) => l.includes('keystone: token rejected')));
    });
  });

  describe('Keystone down', () => {
    const apis = BACKENDS.map((backend) => ({
      backend,
      api: useApi(backend, { config: () => keystone.octonetConfig() }),
    }));

    it('answers 503 to tokens it has not seen, writes nothing, and still serves cached tokens', async () => {
      const admin = await keystone.issueToken(keystone.users.adminA);
      const member = await keystone.issueToken(keystone.users.memberA);
      for (const { api } of apis) assert.equal((await withToken(api.admin, admin).get('/v2.0/networks')).status, 200);
      await keystone.stop();
      for (const { backend, api } of apis) {
        const refused = await withToken(api.admin, member).post('/v2.0/networks', {
          network: { name: 'during-outage' },
        });
        assert.equal(refused.status, 503, backend);
        assert.deepEqual(refused.body, {
          message:
            'The server is currently unavailable. Please try again at a later time.<br /><br />\nThe Keystone service is temporarily unavailable.\n\n',
          code: '503 Service Unavailable',
          title: 'Service Unavailable',
        });
        assert.equal(refused.headers.get('www-authenticate'), null);
        // The admin token was validated before the outage and is still in the cache.
        const listed = await withToken(api.admin, admin).get('/v2.0/networks');
        assert.equal(listed.status, 200, backend);
        assert.deepEqual(listed.body.networks, [], `${backend}: nothing written`);
        assertUnauthorized(await api.admin.get('/v2.0/networks'), keystone.url);
      }
    });
  });
});
