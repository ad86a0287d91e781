/**
 * `octonet mgmt-net` as a subprocess against a real octonet: apply (with the heartbeat key file, the
 * state file and the per-node INI fragments), a second apply that writes nothing, status --json,
 * delete, and a bad spec refused with exit status 2 and the field in the message; `apply --watch`
 * puts back a node port deleted behind its back and stops cleanly on SIGTERM.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { useApi } from '../../fixtures/api.js';
import { eventually } from '../../fixtures/ovn-central.js';
import type { Json } from '../../fixtures/json.js';

function octonet(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', ...args],
      { encoding: 'utf8' },
      (error, stdout, stderr) => {
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

describe('octonet mgmt-net (CLI subprocess)', () => {
  const api = useApi('sqlite');
  const dir = mkdtempSync(join(tmpdir(), 'octonet-mgmt-cli-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('applies, applies again without writes, shows status, deletes', async () => {
    const spec = join(dir, 'spec.yaml');
    writeFileSync(
      spec,
      [
        'apiVersion: octonet.dev/v1',
        'kind: OctaviaManagementNetwork',
        'metadata: {name: cli-mgmt}',
        'spec:',
        '  topology: per-node-ports',
        '  network: {cidr: 172.25.0.0/16}',
        '  nodes: [{name: node1}, {name: node2}]',
        '',
      ].join('\n'),
    );
    const confDir = join(dir, 'octavia');
    const first = await octonet([
      'mgmt-net',
      'apply',
      '-f',
      spec,
      '--os-url',
      api.url,
      '--octavia-config-dir',
      confDir,
    ]);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /created\s+network\s+lb-mgmt-net/);
    assert.match(first.stdout, /controller list CHANGED/);
    assert.match(first.stderr, /generated a heartbeat key/);
    const key = readFileSync(`${spec}.heartbeat-key`, 'utf8').trim();
    assert.match(key, /^[0-9a-f]{64}$/);
    assert.equal(statSync(`${spec}.heartbeat-key`).mode & 0o777, 0o600);
    assert.ok(!first.stdout.includes(key) && !first.stderr.includes(key), 'the key is never printed');
    const node1 = readFileSync(join(confDir, 'node1.conf'), 'utf8');
    assert.match(node1, new RegExp(`^heartbeat_key = ${key}$`, 'm'));
    assert.match(node1, /^bind_ip = 172\.25\.\d+\.\d+$/m);
    assert.equal(statSync(join(confDir, 'node1.conf')).mode & 0o777, 0o600);
    assert.ok(existsSync(`${spec}.state.json`));

    const second = await octonet(['mgmt-net', 'apply', '-f', spec, '--os-url', api.url]);
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /controller list unchanged; Neutron calls: \d+ reads, 0 writes/);
    assert.doesNotMatch(second.stdout, /^\s+(created|updated|deleted)/m);

    const status = await octonet(['mgmt-net', 'status', '-f', spec, '--os-url', api.url, '--json']);
    assert.equal(status.code, 0, status.stderr);
    const parsed = JSON.parse(status.stdout);
    assert.equal(parsed.conditions.find((c: Json) => c.type === 'Ready').status, 'True');
    assert.deepEqual(
      parsed.nodes.map((n: Json) => n.name),
      ['node1', 'node2'],
    );
    assert.equal(parsed.octavia.health_manager.controller_ip_port_list.length, 2);

    const removed = await octonet(['mgmt-net', 'delete', '-f', spec, '--os-url', api.url]);
    assert.equal(removed.code, 0, removed.stderr);
    assert.match(removed.stdout, /deleted\s+network\s+lb-mgmt-net/);
    assert.deepEqual((await api.admin.get('/v2.0/networks?tags=octonet-mgmt-net:cli-mgmt')).body.networks, []);

    writeFileSync(
      spec,
      readFileSync(spec, 'utf8').replace('{cidr: 172.25.0.0/16}', '{cidr: 172.25.0.0/16, mtu: 9000}'),
    );
    const bad = await octonet(['mgmt-net', 'apply', '-f', spec, '--os-url', api.url]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /^octonet mgmt-net: invalid spec: spec\.network\.mtu: 9000 is larger than 1442/);
    assert.deepEqual((await api.admin.get('/v2.0/networks?tags=octonet-mgmt-net:cli-mgmt')).body.networks, []);
  });

  it('apply --watch puts back a port deleted behind its back, and stops on SIGTERM', async () => {
    const spec = join(dir, 'watch.yaml');
    writeFileSync(
      spec,
      'apiVersion: octonet.dev/v1\nkind: OctaviaManagementNetwork\nmetadata: {name: cli-watch}\nspec:\n  network: {cidr: 172.26.0.0/16}\n  nodes: [{name: node1}]\n',
    );
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/cli/main.ts',
        'mgmt-net',
        'apply',
        '-f',
        spec,
        '--os-url',
        api.url,
        '--watch',
        '--interval',
        '0.2',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const port = async () =>
      (await api.admin.get('/v2.0/ports?tags=octonet-mgmt-net:cli-watch')).body.ports as { id: string }[];
    try {
      const first = await eventually(async () => {
        const ports = await port();
        assert.equal(ports.length, 1);
        return ports[0]!;
      });
      assert.equal((await api.admin.delete(`/v2.0/ports/${first.id}`)).status, 204);
      const again = await eventually(async () => {
        const ports = await port();
        assert.equal(ports.length, 1);
        return ports[0]!;
      });
      assert.notEqual(again.id, first.id);
    } finally {
      child.kill('SIGTERM');
    }
    assert.equal(await exited, 0);
  });
});
