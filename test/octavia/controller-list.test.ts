/**
 * A controller node joins, and octonet (not the test) gets the new `controller_ip_port_list` to
 * what runs: `octonet mgmt-net apply --octavia-config-dir D --reload-octavia pidfile:...
 * --configure-amphorae`, with Keystone credentials, against octonet and Debian's real Octavia.
 *
 * Octavia's health manager and worker read the fragment octonet rendered for node hm1 (`D/hm1.conf`)
 * as their second config file; a third, the test's, keeps them listening on 127.0.0.1 and picks
 * the no-op amphora driver (no amphora agent exists here) with debug logging. The pidfiles are
 * what Debian's init script writes. octavia-api casts `amphora configure` to the worker over a
 * private RabbitMQ. What must hold after hm2 joins:
 * - the health manager and the worker log the changed option (a SIGHUP: still the same processes);
 * - Octavia's worker hands the amphora of a load balancer an agent config carrying the new list
 *   (the no-op driver's `update agent config` line), and skips a spare amphora;
 * - an apply with nothing new signals and configures nothing.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { useApi } from '../fixtures/api.js';
import { REGION, useKeystone } from '../fixtures/keystone.js';
import { startRabbit, type Service } from '../fixtures/nova-processes.js';
import { insertAmphoraRows, useOctavia } from '../fixtures/octavia.js';
import { eventually } from '../fixtures/ovn-central.js';

describe('a controller joins: octonet reloads the running Octavia and configures the amphorae', () => {
  const dir = mkdtempSync(join(tmpdir(), 'octonet-controller-list-'));
  const spec = join(dir, 'spec.yaml');
  const confDir = join(dir, 'octavia');
  const pidfiles = { hm: join(dir, 'octavia-health-manager.pid'), worker: join(dir, 'octavia-worker.pid') };
  const keystone = useKeystone();
  const api = useApi('sqlite', { config: () => keystone.octonetConfig() });
  const broker: Service[] = [];
  let rabbitPort = 0;

  const writeSpec = (nodes: string[]) =>
    writeFileSync(
      spec,
      [
        'apiVersion: octonet.dev/v1',
        'kind: OctaviaManagementNetwork',
        'metadata: {name: hm-reload}',
        'spec:',
        '  network: {cidr: 172.27.0.0/24}',
        `  nodes: [${nodes.map((n) => `{name: ${n}}`).join(', ')}]`,
        '',
      ].join('\n'),
    );
  /** `octonet mgmt-net apply` as the cloud admin, through Keystone's catalog. */
  const apply = (...flags: string[]): Promise<{ code: number; stdout: string; stderr: string }> => {
    const admin = keystone.users.cloudAdmin;
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OS_')));
    Object.assign(env, {
      OS_AUTH_URL: keystone.url,
      OS_USERNAME: admin.name,
      OS_PASSWORD: admin.password,
      OS_PROJECT_ID: admin.project.id,
      OS_USER_DOMAIN_ID: 'default',
      OS_REGION_NAME: REGION,
      OS_INTERFACE: 'public',
    });
    const args = ['--import', 'tsx', 'src/cli/main.ts', 'mgmt-net', 'apply', '-f', spec];
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        [...args, '--octavia-config-dir', confDir, ...flags],
        { env, encoding: 'utf8' },
        (error, stdout, stderr) =>
          resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
  };

  // Before Octavia starts: a broker, octonet in the catalog, and the first rendering for hm1.
  before(async () => {
    rabbitPort = await startRabbit(dir, broker);
    await keystone.setEndpoint('network', api.url);
    writeSpec(['hm1']);
    const first = await apply();
    assert.equal(first.code, 0, first.stderr);
  });
  after(async () => {
    await Promise.all(broker.map((s) => s.stop()));
    rmSync(dir, { recursive: true, force: true });
  });
  const octavia = useOctavia(() => ({
    keystone,
    transportUrl: `rabbit://guest:guest@127.0.0.1:${rabbitPort}/`,
    configFiles: [join(confDir, 'hm1.conf')],
    extraConfig: (port) =>
      [
        '[DEFAULT]',
        'debug = True',
        '[health_manager]',
        'bind_ip = 127.0.0.1',
        `bind_port = ${port}`,
        '[controller_worker]',
        'amphora_driver = amphora_noop_driver',
        'compute_driver = compute_noop_driver',
        'network_driver = network_noop_driver',
        '',
      ].join('\n'),
  }));

  const listIn = (file: string) => /^controller_ip_port_list = (.*)$/m.exec(readFileSync(file, 'utf8'))![1]!;

  it('hm2 joins: the health manager and the worker reload, the amphora gets the new list', async () => {
    const db = new pg.Client({ connectionString: octavia.databaseUrl });
    await db.connect();
    let amphoraId: string;
    try {
      ({ amphoraId } = await insertAmphoraRows(db, keystone.projects.a.id));
      // A spare: READY, no load balancer; Octavia cannot configure it (it reads the amphora's LB).
      await db.query(
        `INSERT INTO amphora (id, compute_id, status, cert_busy, created_at) VALUES ($1, $2, 'READY', false, now())`,
        [randomUUID(), randomUUID()],
      );
    } finally {
      await db.end();
    }
    const hmPid = octavia.pid('octavia-health-manager');
    const workerPid = octavia.pid('octavia-worker');
    writeFileSync(pidfiles.hm, `${hmPid}\n`);
    writeFileSync(pidfiles.worker, `${workerPid}\n`);
    const before = listIn(join(confDir, 'hm1.conf'));
    // Before its handlers are set, a SIGHUP would end a service: wait until both are up (the health
    // manager sets its handler once its two processes run; cotyledon before logging the options).
    await eventually(() => assert.match(octavia.log('octavia-health-manager'), /Health manager check process starts/));
    await eventually(() => assert.match(octavia.log('octavia-worker'), /controller_ip_port_list/));

    writeSpec(['hm1', 'hm2']);
    const flags = ['--reload-octavia', `pidfile:${pidfiles.hm}`, '--reload-octavia', `pidfile:${pidfiles.worker}`];
    const joined = await apply(...flags, '--configure-amphorae');
    assert.equal(joined.code, 0, joined.stderr);
    assert.match(joined.stdout, /controller list CHANGED;/);
    const after = listIn(join(confDir, 'hm1.conf'));
    assert.equal(after.split(', ').length, 2, after);
    assert.match(joined.stderr, new RegExp(`reloaded target=pidfile:${pidfiles.hm} detail=SIGHUP to pid ${hmPid}`));
    assert.match(joined.stderr, /amphora configure configured=1 skipped=1 failed=0/);

    const changed = `Option health_manager.controller_ip_port_list changed from [${before}] to [${after}]`;
    await eventually(() => assert.ok(octavia.log('octavia-health-manager').includes(changed), 'health manager'));
    await eventually(() => assert.ok(octavia.log('octavia-worker').includes(changed), 'worker'));
    // Octavia's no-op amphora driver logs the agent config the worker rendered for the amphora
    // (a multi-line record: the amphora-agent.conf text follows the message).
    const pushed = await eventually(() => {
      const log = octavia.log('octavia-worker');
      const at = log.indexOf(`no-op, update agent config amphora ${amphoraId}`);
      assert.ok(at >= 0, `the worker configured ${amphoraId}:\n${log.slice(-3000)}`);
      return log.slice(at).split(/\n(?=\d{4}-\d\d-\d\d )/)[0]!;
    }, 60_000);
    assert.match(pushed, /\[health_manager\]/);
    assert.ok(pushed.includes(`controller_ip_port_list = ${after}`), pushed);
    // A reload, not a restart: the main processes never exited.
    assert.ok(octavia.running().includes('octavia-health-manager') && octavia.running().includes('octavia-worker'));
    assert.deepEqual(JSON.parse(readFileSync(`${spec}.state.octavia.json`, 'utf8')), {
      reloaded: after.split(', '),
      configured: after.split(', '),
    });

    // Nothing new: no signal, no configure.
    const again = await apply(...flags, '--configure-amphorae');
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /controller list unchanged/);
    assert.doesNotMatch(again.stderr, /reloaded|amphora configure/);
  });
});
