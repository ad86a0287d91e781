/**
 * The lab's life cycle, through the API and the `octonet lab` command: a second `up` of a name
 * that is up fails and leaves it alone; `status --json` has the documented shape; the exec
 * commands pass exit statuses through; `down` leaves no namespace, process or file behind and the
 * name can be used again; an `up` that fails cleans up after itself; `down` cleans up after an
 * `up` that was killed half-way.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { LabAlreadyUpError, downLab, openLab, upLab, type LabStatus } from '../../src/lab/index.js';
import { listNamespaces } from '../../src/lab/netns.js';
import { processesMentioning } from '../../src/lab/processes.js';
import { labLayout } from '../../src/lab/topology.js';
import { DEADLINE_MS, check, createSwitch, notRoot, pollUntil, portUp, requireRoot } from './lab-fixture.js';

const NAME = 'test-lifecycle';
const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `octonet lab ...` from the sources, as a separate process. */
function octonetLab(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): { done: Promise<CliResult>; kill: () => void } {
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'src/cli/main.ts'), 'lab', ...args], {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<CliResult>((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
  return { done, kill: () => child.kill('SIGKILL') };
}

const cli = (args: string[]) => octonetLab(args).done;

/** Nothing of the lab is left: no namespace, no process mentioning its run dir, no run dir. */
async function assertNothingLeft(): Promise<void> {
  const layout = labLayout(NAME);
  const namespaces = (await listNamespaces()).filter((ns) => ns.startsWith(`${NAME}-`));
  assert.deepEqual(namespaces, [], 'no namespace of the lab');
  assert.deepEqual(processesMentioning(layout.runDir + '/'), [], 'no process mentions the run dir');
  assert.equal(existsSync(layout.runDir), false, 'no run dir');
}

/** A directory whose `ovn-controller` replaces the real one (put first on PATH). */
function fakeOvnController(script: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'octonet-fake-ovn-'));
  writeFileSync(join(dir, 'ovn-controller'), `#!/bin/sh\n${script}\n`);
  chmodSync(join(dir, 'ovn-controller'), 0o755);
  return dir;
}

describe('lab: life cycle and command line', { skip: notRoot, concurrency: 1 }, () => {
  const fakes: string[] = [];
  before(async () => {
    requireRoot();
    await downLab({ name: NAME });
    await upLab({ name: NAME, nodes: 1 });
  });
  after(async () => {
    await downLab({ name: NAME });
    for (const dir of fakes) rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a second up of a lab that is up, and leaves that lab running', async () => {
    await assert.rejects(upLab({ name: NAME, nodes: 1 }), LabAlreadyUpError);
    const result = await cli(['up', '--name', NAME, '--nodes', '1']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /lab test-lifecycle is already up/);
    const status = await openLab({ name: NAME }).status();
    assert.equal(status.state, 'up');
    assert.deepEqual(
      status.nodes.map((n) => n.running),
      [true],
    );
  });

  it('status --json gives the NB/SB connection strings, nodes, outside and VMs', async () => {
    const lab = openLab({ name: NAME });
    await createSwitch(lab, 'cli-net', [{ name: 'cli-port', mac: 'fa:16:3e:00:0c:01', ip: '10.3.0.11' }]);
    const created = await cli(['vm', 'create', '--lab', NAME, '--node', 'node1', '--port', 'cli-port', '--no-dhcp']);
    assert.equal(created.code, 0, created.stderr);
    assert.equal(created.stdout, 'vm-cli-port\n');
    const result = await cli(['status', '--json', '--name', NAME]);
    assert.equal(result.code, 0, result.stderr);
    const status = JSON.parse(result.stdout) as LabStatus;
    const runDir = labLayout(NAME).runDir;
    assert.equal(status.nb, `unix:${runDir}/central/ovnnb_db.sock`);
    assert.equal(status.sb, `unix:${runDir}/central/ovnsb_db.sock`);
    assert.equal(await check(lab, ['ovn-nbctl', `--db=${status.nb}`, 'ls-list']).then((s) => /cli-net/.test(s)), true);
    assert.deepEqual(status.nodes, [
      {
        name: 'node1',
        namespace: `${NAME}-node1`,
        chassis: 'node1',
        hostname: 'node1',
        vtepIp: '192.0.2.11',
        gateway: true,
        bridgeMappings: 'physnet1:br-ex',
        runDir: `${runDir}/node1`,
        running: true,
      },
    ]);
    assert.deepEqual(
      { ...status.outside, vlans: undefined },
      {
        namespace: `${NAME}-outside`,
        interface: 'eth0',
        address: '198.51.100.100',
        cidr: '198.51.100.0/24',
        mac: '02:00:c6:33:64:64',
        physnet: 'physnet1',
        vlans: undefined,
      },
    );
    assert.deepEqual(status.vms, [
      {
        name: 'vm-cli-port',
        node: 'node1',
        port: 'cli-port',
        mac: 'fa:16:3e:00:0c:01',
        namespace: `${NAME}-vm-vm-cli-port`,
        interface: 'eth0',
        tap: 'tapcli-port',
        addresses: [],
      },
    ]);
    await pollUntil(async () => (await portUp(lab, 'cli-port')) === 'true', 'cli-port up');
  });

  it('vm exec, node exec and outside exec run there and pass the exit status through', async () => {
    const vmExec = await cli([
      'vm',
      'exec',
      '--lab',
      NAME,
      'vm-cli-port',
      '--',
      'sh',
      '-c',
      'cat /sys/class/net/eth0/address; exit 3',
    ]);
    assert.equal(vmExec.code, 3);
    assert.equal(vmExec.stdout, 'fa:16:3e:00:0c:01\n');
    const nodeExec = await cli(['node', 'exec', '--lab', NAME, 'node1', '--', 'ovs-vsctl', 'list-ports', 'br-int']);
    assert.equal(nodeExec.code, 0, nodeExec.stderr);
    assert.match(nodeExec.stdout, /^tapcli-port$/m);
    const outsideExec = await cli(['outside', 'exec', '--lab', NAME, '--', 'ip', '-br', '-4', 'addr', 'show', 'eth0']);
    assert.match(outsideExec.stdout, /198\.51\.100\.100\/24/);
    const deleted = await cli(['vm', 'delete', '--lab', NAME, 'vm-cli-port']);
    assert.equal(deleted.code, 0, deleted.stderr);
    await pollUntil(async () => (await portUp(openLab({ name: NAME }), 'cli-port')) === 'false', 'cli-port down');
  });

  it('down leaves nothing behind, and the name can be used again', async () => {
    const lab = openLab({ name: NAME });
    await createSwitch(lab, 'net', [{ name: 'p1', mac: 'fa:16:3e:00:0d:01', ip: '10.4.0.11' }]);
    await lab.createVm({ node: 'node1', port: 'p1', name: 'left-running', dhcp: false });
    // A workload still running in a VM, and a capture in a node: down stops them too.
    for (const [file, ...args] of [
      lab.vmCommand('left-running', ['sleep', '3600']),
      lab.nodeCommand('node1', ['sleep', '3600']),
    ]) {
      spawn(file!, args, { stdio: 'ignore', detached: true }).unref();
    }
    const down = await cli(['down', '--name', NAME]);
    assert.equal(down.code, 0, down.stderr);
    assert.match(down.stdout, /lab test-lifecycle removed/);
    await assertNothingLeft();
    const again = await cli(['down', '--name', NAME]);
    assert.match(again.stdout, /was not up/);

    const second = await upLab({ name: NAME, nodes: 1 });
    assert.equal((await second.status()).state, 'up');
    await second.down();
    await assertNothingLeft();
  });

  it('an up that fails half-way removes what it made', async () => {
    const fake = fakeOvnController('echo "ovn-controller: simulated failure" >&2; exit 1');
    fakes.push(fake);
    const path = process.env.PATH;
    process.env.PATH = `${fake}:${path}`;
    try {
      await assert.rejects(upLab({ name: NAME, nodes: 2 }), /did not come up: .*simulated failure/);
    } finally {
      process.env.PATH = path;
    }
    await assertNothingLeft();
  });

  it('down cleans up after an up that was killed half-way', async () => {
    // ovn-controller that never returns: `up` stops there, with the rest of node1 running.
    const fake = fakeOvnController('sleep 3600');
    fakes.push(fake);
    const up = octonetLab(['up', '--name', NAME, '--nodes', '2'], {
      ...process.env,
      PATH: `${fake}:${process.env.PATH}`,
    });
    const layout = labLayout(NAME);
    await pollUntil(
      async () => processesMentioning(`${fake}/ovn-controller`).length > 0,
      'the half-way up to reach ovn-controller',
      DEADLINE_MS,
    );
    up.kill();
    await up.done;
    assert.equal((await openLab({ name: NAME }).status()).state, 'starting');
    await assert.rejects(upLab({ name: NAME, nodes: 1 }), LabAlreadyUpError);
    assert.ok(existsSync(layout.runDir));

    const report = await downLab({ name: NAME });
    assert.equal(report.existed, true);
    assert.deepEqual(report.strays, []);
    await assertNothingLeft();
    assert.deepEqual(processesMentioning(`${fake}/ovn-controller`), [], 'the stuck ovn-controller was stopped');
  });
});
