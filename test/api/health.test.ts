/**
 * The health endpoints over HTTP, on both databases, against a real OVN central: `/healthcheck`
 * answers as oslo.middleware's healthcheck does in Neutron (text, HTML or JSON by `Accept`, 204 to
 * HEAD, no token), and `/readyz` names the database and the OVN connections, turning 503 while the
 * NB server is stopped or (PostgreSQL) the database refuses connections, and 200 again after.
 * Also `octonet --version`.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { BACKENDS, useApi } from '../fixtures/api.js';
import { eventually, useOvnCentral } from '../fixtures/ovn-central.js';

interface Readiness {
  ready: boolean;
  version: string;
  checks: Record<string, { ready: boolean; detail: string }>;
}

/**
 * oslo.middleware's HTML_RESPONSE_TEMPLATE as Jinja2 renders it (not detailed, one reason `OK`),
 * stripped as oslo strips it: the body Neutron's /healthcheck sends to `Accept: text/html`.
 */
const OSLO_HTML_OK = `<HTML>
<HEAD><TITLE>Healthcheck Status</TITLE></HEAD>
<BODY>

<H2>Result of 1 checks:</H2>
<TABLE bgcolor="#ffffff" border="1">
<TBODY>
<TR>

<TH>
Reason
</TH>
</TR>
<TR>

    <TD>OK</TD>

</TR>
</TBODY>
</TABLE>
<HR></HR>

</BODY>
</HTML>`;

const PACKAGE_VERSION = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;

for (const backend of BACKENDS) {
  describe(`health endpoints (${backend})`, () => {
    const ovn = useOvnCentral();
    const api = useApi(backend, {
      config: () => ({ database_connect_timeout: 1, ovn: { nb_connection: ovn.nb, sb_connection: ovn.sb } }),
    });
    const get = (path: string, headers: Record<string, string> = {}) => fetch(api.url + path, { headers });
    const readiness = async () => {
      const response = await get('/readyz');
      return { status: response.status, body: (await response.json()) as Readiness };
    };

    it('GET /healthcheck answers 200 "OK" as text/plain, without a token or an Accept header', async () => {
      const response = await get('/healthcheck');
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^text\/plain/);
      assert.equal(await response.text(), 'OK');
    });

    it('picks JSON or HTML by Accept as oslo.middleware does, and text/plain on a tie', async () => {
      const json = await get('/healthcheck', { accept: 'application/json' });
      assert.equal(json.status, 200);
      assert.match(json.headers.get('content-type') ?? '', /^application\/json/);
      assert.deepEqual(await json.json(), { detailed: false, reasons: ['OK'] });
      const html = await get('/healthcheck', { accept: 'text/html' });
      assert.match(html.headers.get('content-type') ?? '', /^text\/html/);
      assert.equal(await html.text(), OSLO_HTML_OK);
      const tie = await get('/healthcheck', { accept: 'application/json, text/plain' });
      assert.equal(await tie.text(), 'OK');
      const weighted = await get('/healthcheck', { accept: 'text/plain;q=0.5, application/json' });
      assert.match(weighted.headers.get('content-type') ?? '', /^application\/json/);
      // Nothing acceptable: text/plain rather than a 406, as oslo.middleware answers.
      const none = await get('/healthcheck', { accept: 'image/png' });
      assert.equal(none.status, 200);
      assert.equal(await none.text(), 'OK');
    });

    it('HEAD /healthcheck is 204 with no body; other methods are 405', async () => {
      const head = await fetch(api.url + '/healthcheck', { method: 'HEAD' });
      assert.equal(head.status, 204);
      assert.equal(await head.text(), '');
      const post = await fetch(api.url + '/healthcheck', { method: 'POST' });
      assert.equal(post.status, 405);
    });

    it('GET /readyz names the database and both OVN connections, all ready', async () => {
      const { status, body } = await readiness();
      assert.equal(status, 200);
      assert.equal(body.ready, true);
      assert.ok(body.version.startsWith(PACKAGE_VERSION), body.version);
      assert.deepEqual(Object.keys(body.checks).sort(), ['database', 'ovn_nb', 'ovn_nb_owner', 'ovn_sb']);
      for (const [name, check] of Object.entries(body.checks)) assert.equal(check.ready, true, name);
      assert.equal(body.checks.ovn_nb!.detail, 'connected');
      assert.equal(body.checks.database!.detail, backend);
    });

    it('turns 503 while the NB server is stopped, naming it, and 200 once it is back; liveness stays 200', async () => {
      const pid = Number(readFileSync(join(ovn.dir, 'nb.pid'), 'utf8'));
      process.kill(pid, 'SIGTERM');
      const down = await eventually(async () => {
        const r = await readiness();
        assert.equal(r.status, 503);
        return r.body;
      });
      assert.equal(down.ready, false);
      assert.equal(down.checks.ovn_nb!.ready, false);
      assert.match(down.checks.ovn_nb!.detail, /not connected/);
      assert.equal(down.checks.ovn_sb!.ready, true);
      assert.equal(down.checks.database!.ready, true);
      assert.equal((await get('/healthcheck')).status, 200);
      const head = await fetch(api.url + '/readyz', { method: 'HEAD' });
      assert.equal(head.status, 503);

      ovn.restartNb(); // its pidfile is gone: this only starts it again, on the same database
      await eventually(async () => assert.equal((await readiness()).status, 200));
    });

    if (backend === 'postgres') {
      it('turns 503 while the database refuses connections, and 200 once it accepts them again', async () => {
        const name = api.config.database.replace(/^.*\//, '');
        const admin = new pg.Client({ connectionString: api.config.database.replace(/\/[^/]*$/, '/postgres') });
        await admin.connect();
        try {
          await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
          await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name]);
          const down = await eventually(async () => {
            const r = await readiness();
            assert.equal(r.status, 503);
            return r.body;
          });
          assert.equal(down.checks.database!.ready, false);
          assert.match(down.checks.database!.detail, /^postgres: unavailable/);
          assert.ok(!down.checks.database!.detail.includes('127.0.0.1'), 'no address in an unauthenticated answer');
          assert.equal(down.checks.ovn_nb!.ready, true);
          assert.equal((await get('/healthcheck')).status, 200);
        } finally {
          await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
          await admin.end();
        }
        await eventually(async () => assert.equal((await readiness()).status, 200));
      });
    }
  });
}

describe('health endpoints under auth: keystone', () => {
  // A Keystone nobody answers at: token validation could not succeed, and the probes must not need it.
  const dir = mkdtempSync(join(tmpdir(), 'octonet-health-'));
  writeFileSync(join(dir, 'password'), 'secret\n');
  after(() => rmSync(dir, { recursive: true, force: true }));
  const api = useApi('sqlite', {
    config: {
      auth: 'keystone',
      keystone: {
        url: 'http://127.0.0.1:9/v3',
        user: 'octonet',
        project: 'service',
        password_file: join(dir, 'password'),
      },
    },
  });

  it('answer without a token, while the API itself asks for one', async () => {
    assert.equal((await fetch(`${api.url}/healthcheck`)).status, 200);
    const ready = await fetch(`${api.url}/readyz`);
    assert.equal(ready.status, 200);
    assert.deepEqual(Object.keys(((await ready.json()) as Readiness).checks), ['database']);
    assert.equal((await fetch(`${api.url}/v2.0/networks`)).status, 401);
  });
});

describe('octonet --version', () => {
  it('prints package.json version and the checkout commit', () => {
    const out = execFileSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', '--version'], {
      encoding: 'utf8',
    });
    const commit = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { encoding: 'utf8' }).trim();
    assert.equal(out, `octonet ${PACKAGE_VERSION} (commit ${commit})\n`);
  });
});
