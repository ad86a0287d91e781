/**
 * Slow clients cannot lock others out: with 10,000 connections open that each sent a POST's
 * headers (`Content-Length: 100`) and one byte of body, a normal client on a new connection is
 * still answered, and the server's request timeout then answers every slow one 408 and closes it.
 *
 * The scenario runs in its own process (`slow-sockets.scenario.ts`) under a raised `ulimit -n`,
 * since node cannot raise its own open-file limit past the hard one; the figures are printed.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import { useApi } from '../fixtures/api.js';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SLOW_SOCKETS = 10_000;

describe('slow clients', () => {
  it(`a normal client is answered while ${SLOW_SOCKETS} slow sockets are open; the slow ones get 408`, async () => {
    // Root may raise the hard limit; anyone may raise the soft one up to it.
    const script = 'ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"; exec "$0" --import tsx "$1"';
    const child = spawn(
      'bash',
      ['-c', script, process.execPath, join(REPO_ROOT, 'test/api/slow-sockets.scenario.ts')],
      {
        cwd: REPO_ROOT,
        env: { ...process.env, OCTONET_SLOW_SOCKETS: String(SLOW_SOCKETS) },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    assert.equal(code, 0, `${out}\n${err}`);
    const result = JSON.parse(out.trim().split('\n').at(-1)!);
    process.stderr.write(`slow sockets: ${JSON.stringify(result)}\n`);

    // Every slow socket was open when the normal client asked, and still open after it was answered.
    assert.equal(result.openBefore, SLOW_SOCKETS);
    assert.equal(result.openAfter, SLOW_SOCKETS);
    assert.equal(result.list.status, 200, JSON.stringify(result.list));
    assert.equal(result.create.status, 201, JSON.stringify(result.create));
    // Then the request timeout answered each of them and closed it.
    assert.equal(result.stillOpen, 0);
    assert.equal(result.answered408, SLOW_SOCKETS);
    assert.equal(result.after.status, 200);
    assert.equal(result.serverAlive, true);
  });
});

describe('the connection cap', () => {
  const api = useApi('sqlite', { config: { http: { max_connections: 5, headers_timeout: 2 } } });

  /** A connection that sends nothing; resolves once connected, `closed` once the server closes it. */
  function idle(): Promise<{ socket: Socket; closed: Promise<string> }> {
    const url = new URL(api.url);
    return new Promise((resolve) => {
      const socket = connect(Number(url.port), url.hostname);
      let answer = '';
      socket.on('data', (c: Buffer) => (answer += c.toString()));
      socket.on('error', () => {});
      const closed = new Promise<string>((done) => socket.on('close', () => done(answer)));
      socket.on('connect', () => resolve({ socket, closed }));
    });
  }

  it('closes connections beyond max_connections at once, counts them, and times out idle ones', async () => {
    const held = await Promise.all(Array.from({ length: 5 }, () => idle()));
    const extra = await idle();
    assert.equal(await extra.closed, '', 'closed without an answer');
    // Idle connections that never send their headers are answered 408 after headers_timeout.
    for (const h of held) assert.match(await h.closed, /^HTTP\/1\.1 408 /);
    const metrics = await api.admin.get('/metrics');
    assert.match(metrics.text, /octonet_api_connections_dropped_total 1\b/);
  });
});
