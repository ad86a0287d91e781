/**
 * How `auth: keystone` is configured: the schema's checks, the password file, and the `serve`
 * flags end to end (a real `octonet serve` process authenticating to a fake Keystone that records
 * what it was sent). No real Keystone is needed here.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { createAuthenticator } from '../../src/auth/authenticator.js';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { createBackendDatabase, type TestDatabase } from '../fixtures/databases.js';
import { freePort } from '../fixtures/postgres.js';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PASSWORD = 'pa55-w0rd-from-file';

describe('keystone configuration', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'octonet-keystone-config-'));
    writeFileSync(join(dir, 'password'), `${PASSWORD}\n`, { mode: 0o600 });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('auth: keystone names every missing key; noauth needs none of them', () => {
    assert.throws(
      () => loadConfig({ env: {}, overrides: { auth: 'keystone' } }),
      (e: Error) =>
        e instanceof ConfigError &&
        ['keystone.url', 'keystone.user', 'keystone.password_file', 'keystone.project'].every((k) =>
          e.message.includes(`${k}: required with auth: keystone`),
        ),
    );
    assert.equal(loadConfig({ env: {} }).auth, 'noauth');
    assert.throws(() => loadConfig({ env: {}, overrides: { keystone: { url: 'not a url' } } }), /keystone\.url/);
  });

  it('reads the keystone section from the YAML file, with its defaults', () => {
    const file = join(dir, 'octonet.yaml');
    writeFileSync(
      file,
      `auth: keystone\nkeystone:\n  url: http://keystone.example:5000/v3\n  user: neutron\n  password_file: ${join(dir, 'password')}\n  project: service\n`,
    );
    const config = loadConfig({ env: {}, file });
    assert.deepEqual(config.keystone, {
      url: 'http://keystone.example:5000/v3',
      user: 'neutron',
      password_file: join(dir, 'password'),
      project: 'service',
      user_domain: 'default',
      project_domain: 'default',
      token_cache_time: 300,
      timeout: 10,
    });
  });

  it('an unreadable or empty password file stops the start, without the password in the message', () => {
    const base = { auth: 'keystone', keystone: { url: 'http://k:5000/v3', user: 'u', project: 'p' } };
    const logger = pino({ level: 'silent' });
    const withFile = (password_file: string) =>
      loadConfig({ env: {}, overrides: { ...base, keystone: { ...base.keystone, password_file } } });
    assert.throws(
      () => createAuthenticator(withFile(join(dir, 'missing')), logger),
      /keystone\.password_file: cannot read .*missing: ENOENT/,
    );
    writeFileSync(join(dir, 'empty'), '\n');
    assert.throws(() => createAuthenticator(withFile(join(dir, 'empty')), logger), /is empty/);
    assert.equal(createAuthenticator(withFile(join(dir, 'password')), logger).requiresCredentials, true);
  });

  describe('octonet serve --auth keystone --keystone-*', () => {
    let database: TestDatabase;
    let serve: ChildProcess | undefined;
    let output = '';
    const received: { url: string; body: string; headers: IncomingMessage['headers'] }[] = [];
    const keystone = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push({ url: req.url!, body, headers: req.headers });
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end('{"error": {"code": 401}}');
      });
    });
    before(async () => {
      database = await createBackendDatabase('sqlite');
      await new Promise<void>((resolve) => keystone.listen(0, '127.0.0.1', resolve));
    });
    after(async () => {
      if (serve && serve.exitCode === null) {
        serve.kill('SIGTERM');
        await new Promise((resolve) => serve!.once('exit', resolve));
      }
      keystone.closeAllConnections();
      keystone.close();
      await database.drop();
    });

    it('authenticates its service user as the flags say, and answers 401 and 503 as configured', async () => {
      const keystoneUrl = `http://127.0.0.1:${(keystone.address() as AddressInfo).port}/v3`;
      const port = await freePort();
      serve = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          join(REPO_ROOT, 'src/cli/main.ts'),
          'serve',
          '--listen',
          `127.0.0.1:${port}`,
          '--database',
          database.url,
          '--state-dir',
          dir,
          '--log-level',
          'trace',
          '--auth',
          'keystone',
          '--keystone-url',
          keystoneUrl,
          '--keystone-user',
          'octonet-svc',
          '--keystone-password-file',
          join(dir, 'password'),
          '--keystone-project',
          'svc-project',
          '--keystone-user-domain',
          'user-dom',
          '--keystone-project-domain',
          'project-dom',
        ],
        { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      serve.stdout!.on('data', (c: Buffer) => (output += c.toString()));
      serve.stderr!.on('data', (c: Buffer) => (output += c.toString()));
      const url = `http://127.0.0.1:${port}`;
      // The warm-up authenticates as soon as the API is ready; a hang guard, not a speed check.
      for (
        let i = 0;
        received.length === 0 ||
        !(await fetch(url).then(
          (r) => r.ok,
          () => false,
        ));
        i++
      ) {
        assert.ok(i < 600 && serve.exitCode === null, `serve did not start:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(received[0]!.url, '/v3/auth/tokens?nocatalog');
      assert.deepEqual(JSON.parse(received[0]!.body).auth, {
        identity: {
          methods: ['password'],
          password: { user: { name: 'octonet-svc', domain: { id: 'user-dom' }, password: PASSWORD } },
        },
        scope: { project: { name: 'svc-project', domain: { id: 'project-dom' } } },
      });

      const noToken = await fetch(`${url}/v2.0/networks`);
      assert.equal(noToken.status, 401);
      assert.equal(noToken.headers.get('www-authenticate'), `Keystone uri="${keystoneUrl}"`);
      // Keystone refuses the service user (the fake answers 401 to everything): nothing to validate with.
      const withToken = await fetch(`${url}/v2.0/networks`, { headers: { 'x-auth-token': 'gAAAAAsome-token' } });
      assert.equal(withToken.status, 503);
      assert.match(output, /Keystone refused the password of user octonet-svc/);
      assert.ok(!output.includes(PASSWORD), 'the password reached the log');
      assert.ok(!output.includes('gAAAAAsome-token'), 'the token reached the log');
    });
  });
});
