/**
 * The vty client against a fake daemon (a unix socket speaking FRR's vtysh protocol: NUL-terminated
 * commands in, output and `\0\0\0<status>` out). The real bgpd is exercised by the BGP lab tests
 * and bench:bgp, where every fast-path apply goes through this client.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { VtyCommandError, vtyRun } from './vty.js';

describe('vtyRun (fake daemon)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'octonet-vty-'));
  const received: string[][] = [];
  let server: Server;

  before(async () => {
    server = createServer((socket) => {
      const commands: string[] = [];
      received.push(commands);
      let pending = '';
      socket.on('data', (chunk: Buffer) => {
        pending += chunk.toString();
        const parts = pending.split('\0');
        pending = parts.pop()!;
        for (const command of parts) {
          commands.push(command);
          const status = command.startsWith('bogus') ? 2 : 0;
          const output = command.startsWith('show') ? `output of ${command}\n` : status ? '% Unknown command\n' : '';
          socket.write(Buffer.concat([Buffer.from(output), Buffer.from([0, 0, 0, status])]));
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(join(dir, 'bgpd.vty'), resolve));
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('enables, runs the commands in order over one connection, and returns each answer', async () => {
    const replies = await vtyRun(dir, 'bgpd', [
      'configure terminal',
      'ip prefix-list X seq 5 permit 10.0.0.0/8',
      'end',
      'show x',
    ]);
    assert.deepEqual(received.at(-1), [
      'enable',
      'configure terminal',
      'ip prefix-list X seq 5 permit 10.0.0.0/8',
      'end',
      'show x',
    ]);
    assert.deepEqual(
      replies.map((r) => [r.command, r.status, r.output]),
      [
        ['configure terminal', 0, ''],
        ['ip prefix-list X seq 5 permit 10.0.0.0/8', 0, ''],
        ['end', 0, ''],
        ['show x', 0, 'output of show x\n'],
      ],
    );
  });

  it('reports the first failing command, unless tolerated', async () => {
    await assert.rejects(
      vtyRun(dir, 'bgpd', ['configure terminal', 'bogus line', 'end']),
      (error: unknown) =>
        error instanceof VtyCommandError && error.reply.command === 'bogus line' && error.reply.status === 2,
    );
    const tolerated = await vtyRun(dir, 'bgpd', ['bogus line', 'show y'], { tolerate: () => true });
    assert.deepEqual(
      tolerated.map((r) => r.status),
      [2, 0],
    );
  });

  it('never quotes an MD5 secret in an error', async () => {
    await assert.rejects(vtyRun(dir, 'bgpd', ['bogus neighbor 192.0.2.1 password s3cret']), (error: Error) => {
      assert.doesNotMatch(error.message, /s3cret/);
      assert.match(error.message, /password \[redacted\]/);
      return true;
    });
  });

  it('fails when the daemon is not there', async () => {
    await assert.rejects(vtyRun(dir, 'zebra', ['show version']), /ENOENT/);
  });
});
