/**
 * The slow-client scenario behind `slow-sockets.test.ts`, run in its own process so that it can be
 * given an open-file limit high enough for its sockets (the test starts it under `ulimit -n`).
 *
 * Starts `octonet serve` (inheriting that limit), opens SLOW_SOCKETS connections that each send a
 * POST's headers with `Content-Length: 100` and one byte of body, then, with all of them open, asks
 * as a normal client (a fresh connection, a client-side timeout as the failure condition). Then it
 * waits for the server's request timeout to close the slow ones. Prints one JSON line of results.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../fixtures/postgres.js';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SLOW_SOCKETS = Number(process.env.OCTONET_SLOW_SOCKETS ?? 10_000);
/** The server's request timeout here (seconds): well past the time to open every socket on a busy machine. */
const REQUEST_TIMEOUT = 40;
/** What the normal client waits for an answer before counting the request as locked out. */
const CLIENT_TIMEOUT_MS = 5000;
/** Hang guards only. */
const START_GIVE_UP_MS = 60_000;
const CLOSE_GIVE_UP_MS = (REQUEST_TIMEOUT + 30) * 1000;

interface Slow {
  socket: Socket;
  closed: boolean;
  /** The status line the server sent before closing, if any. */
  answer: string;
  error?: string;
}

function ask(port: number, method: string, path: string, body?: string) {
  const started = performance.now();
  return new Promise<{ status: number; ms: number; error?: string }>((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent: false,
        timeout: CLIENT_TIMEOUT_MS,
        headers: body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {},
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${CLIENT_TIMEOUT_MS} ms`)));
    req.on('error', (e) => resolve({ status: 0, ms: performance.now() - started, error: e.message }));
    req.end(body);
  });
}

function openSlow(port: number): Promise<Slow> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const slow: Slow = { socket, closed: false, answer: '' };
    socket.on('data', (chunk: Buffer) => (slow.answer += chunk.toString()));
    socket.on('error', (e) => (slow.error = e.message));
    socket.on('close', () => {
      slow.closed = true;
      resolve(slow);
    });
    socket.on('connect', () => {
      socket.write(
        'POST /v2.0/networks HTTP/1.1\r\nHost: octonet\r\nContent-Type: application/json\r\n' +
          'Content-Length: 100\r\n\r\n{',
      );
      resolve(slow);
    });
  });
}

/** The server's resident memory in MiB (Linux), for the printed figures. */
function rssMiB(pid: number | undefined): number | null {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Math.round(Number(kb) / 1024) : null;
  } catch {
    return null;
  }
}

const dir = mkdtempSync(join(tmpdir(), 'octonet-slow-'));
const port = await freePort();
writeFileSync(join(dir, 'octonet.yaml'), `http:\n  headers_timeout: 10\n  request_timeout: ${REQUEST_TIMEOUT}\n`);
const server = spawn(
  process.execPath,
  [
    '--import',
    'tsx',
    join(REPO_ROOT, 'src/cli/main.ts'),
    'serve',
    '--config',
    join(dir, 'octonet.yaml'),
    '--listen',
    `127.0.0.1:${port}`,
    '--database',
    `sqlite:${join(dir, 'octonet.db')}`,
    '--state-dir',
    dir,
    '--log-level',
    'error',
  ],
  { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
);
let serverOutput = '';
server.stderr.on('data', (c: Buffer) => (serverOutput += c.toString()));
let serverExit: number | null | undefined;
server.once('exit', (code) => (serverExit = code));

try {
  const giveUpAt = Date.now() + START_GIVE_UP_MS;
  while ((await ask(port, 'GET', '/')).status !== 200) {
    if (serverExit !== undefined || Date.now() > giveUpAt) throw new Error(`serve did not start: ${serverOutput}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  const rssBefore = rssMiB(server.pid);
  const openStarted = performance.now();
  const slow: Slow[] = [];
  for (let i = 0; i < SLOW_SOCKETS; i += 500) {
    const batch = Math.min(500, SLOW_SOCKETS - i);
    slow.push(...(await Promise.all(Array.from({ length: batch }, () => openSlow(port)))));
  }
  const openMs = performance.now() - openStarted;
  const openBefore = slow.filter((s) => !s.closed).length;

  const list = await ask(port, 'GET', '/v2.0/networks');
  const create = await ask(port, 'POST', '/v2.0/networks', JSON.stringify({ network: { name: 'normal' } }));
  const openAfter = slow.filter((s) => !s.closed).length;
  const rssOpen = rssMiB(server.pid);

  // The server's request timeout (checked once a second) answers each slow socket.
  const waitStarted = performance.now();
  const closeGiveUpAt = Date.now() + CLOSE_GIVE_UP_MS;
  while (slow.some((s) => !s.closed) && Date.now() < closeGiveUpAt) {
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const closedMs = performance.now() - waitStarted;
  const answered408 = slow.filter((s) => s.answer.startsWith('HTTP/1.1 408 ')).length;
  const stillOpen = slow.filter((s) => !s.closed).length;
  for (const s of slow) s.socket.destroy();
  const after = await ask(port, 'GET', '/v2.0/networks');

  process.stdout.write(
    JSON.stringify({
      slowSockets: SLOW_SOCKETS,
      openMs: Math.round(openMs),
      openBefore,
      openAfter,
      serverRssMiB: { before: rssBefore, withSlowSockets: rssOpen },
      list,
      create,
      closedMs: Math.round(closedMs),
      answered408,
      stillOpen,
      after,
      serverAlive: serverExit === undefined,
    }) + '\n',
  );
} finally {
  server.kill('SIGTERM');
  await new Promise((resolve) => (serverExit === undefined ? server.once('exit', resolve) : resolve(null)));
  rmSync(dir, { recursive: true, force: true });
}
