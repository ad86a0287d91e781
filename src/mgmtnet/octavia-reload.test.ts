/**
 * Reload targets: the accepted forms, the systemd command Debian's units need (no ExecReload: a
 * SIGHUP to the main process), a real SIGHUP through a pidfile to a process that records it, and
 * failures (stale pidfile, a PID that is not Octavia's, failing command) reported rather than thrown.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parseReloadTarget, reloadCommand, reloadOctavia } from './octavia-reload.js';

describe('octavia reload targets', () => {
  const dir = mkdtempSync(join(tmpdir(), 'octonet-reload-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('parses systemd:, pidfile: and command:, and refuses anything else', () => {
    assert.deepEqual(parseReloadTarget('systemd:octavia-health-manager'), {
      kind: 'systemd',
      unit: 'octavia-health-manager.service',
    });
    assert.deepEqual(parseReloadTarget('systemd:octavia-worker.service'), {
      kind: 'systemd',
      unit: 'octavia-worker.service',
    });
    assert.deepEqual(parseReloadTarget('pidfile:/run/octavia/octavia-health-manager.pid'), {
      kind: 'pidfile',
      path: '/run/octavia/octavia-health-manager.pid',
    });
    assert.deepEqual(parseReloadTarget('command:docker kill -s HUP hm'), {
      kind: 'command',
      command: 'docker kill -s HUP hm',
    });
    for (const bad of ['octavia-health-manager', 'systemd:', 'signal:1', ':x']) {
      assert.throws(() => parseReloadTarget(bad), /give systemd:<unit>, pidfile:<path> or command:/);
    }
  });

  it('reloads a systemd unit by signalling its main process (the units have no ExecReload)', () => {
    assert.deepEqual(reloadCommand(parseReloadTarget('systemd:octavia-health-manager')), {
      file: 'systemctl',
      args: ['kill', '--kill-whom=main', '--signal=SIGHUP', 'octavia-health-manager.service'],
    });
  });

  it('sends SIGHUP to the process of a pidfile', async () => {
    const marker = join(dir, 'hup');
    const child = spawn(
      '/bin/sh',
      ['-c', `trap 'echo reloaded > ${marker}' HUP; echo ready; while :; do sleep 1; done`],
      // Named as Debian's daemon would be: a pidfile's process must be an Octavia program.
      { stdio: ['ignore', 'pipe', 'ignore'], argv0: 'octavia-health-manager' },
    );
    try {
      // The trap is set once the shell printed "ready".
      await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
      const pidfile = join(dir, 'hm.pid');
      writeFileSync(pidfile, `${child.pid}\n`);
      const outcome = await reloadOctavia(parseReloadTarget(`pidfile:${pidfile}`));
      assert.deepEqual(outcome, { target: `pidfile:${pidfile}`, ok: true, detail: `SIGHUP to pid ${child.pid}` });
      // The shell runs the trap once its `sleep 1` returns.
      for (let i = 0; i < 100 && !existsSync(marker); i++) await new Promise((r) => setTimeout(r, 100));
      assert.equal(readFileSync(marker, 'utf8').trim(), 'reloaded');
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('reports a missing or stale pidfile and a failing command, without throwing', async () => {
    const missing = await reloadOctavia(parseReloadTarget(`pidfile:${join(dir, 'none.pid')}`));
    assert.equal(missing.ok, false);
    assert.match(missing.detail, /cannot read .*none\.pid: ENOENT/);

    const exited = spawn('/bin/true');
    await new Promise((resolve) => exited.once('exit', resolve));
    const stale = join(dir, 'stale.pid');
    writeFileSync(stale, String(exited.pid));
    const staleOutcome = await reloadOctavia(parseReloadTarget(`pidfile:${stale}`));
    assert.equal(staleOutcome.ok, false);
    assert.match(staleOutcome.detail, new RegExp(`no process ${exited.pid} \\(stale`));

    const garbage = join(dir, 'garbage.pid');
    writeFileSync(garbage, 'octavia\n');
    assert.match((await reloadOctavia(parseReloadTarget(`pidfile:${garbage}`))).detail, /holds no process id/);

    // A live process that is not Octavia's (a reused PID): refused, and left alone.
    const other = spawn('/bin/sleep', ['60'], { stdio: 'ignore' });
    const ended = new Promise((resolve) => other.once('exit', (_code, signal) => resolve(signal)));
    const reused = join(dir, 'reused.pid');
    writeFileSync(reused, String(other.pid));
    const refused = await reloadOctavia(parseReloadTarget(`pidfile:${reused}`));
    other.kill('SIGTERM');
    assert.equal(refused.ok, false);
    assert.match(refused.detail, /pid \d+ from .*reused\.pid is not an Octavia process \("\/bin\/sleep 60"\)/);
    // Had it been sent SIGHUP, that would have ended it first.
    assert.equal(await ended, 'SIGTERM', 'sleep was not signalled before our SIGTERM');

    const failed = await reloadOctavia(parseReloadTarget('command:echo no such service >&2; exit 3'));
    assert.equal(failed.ok, false);
    assert.match(failed.detail, /no such service/);
    const ran = await reloadOctavia(parseReloadTarget('command:true'));
    assert.equal(ran.ok, true);
  });
});
