/**
 * `octonet serve` as a child process through the `./octonet` launcher (the node flags an operator
 * runs with), on a SQLite file in the run's temporary directory, with or without OVN. Several may
 * run one after the other on the same file (the full-pass figure restarts it). Each process is
 * registered for teardown and stopped by its own process group; its log goes to the logs dir.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../test/fixtures/postgres.js';
import { logTail } from '../api/api-bench.js';
import { deferUndo, killGroup } from '../api/teardown.js';

export interface ServeOptions {
  repoRoot: string;
  /** Holds octonet.db and the state dir. */
  dir: string;
  logFile: string;
  /** `warn` keeps the request path quiet; the full pass logs its summary at `info`. */
  logLevel: 'warn' | 'info';
  ovn?: { nb: string; sb: string };
  /** Called with the pid right after the spawn (before the API answers; the start-up pass may be over by then). */
  onSpawn?: (pid: number) => void;
  /** How long to wait for the first answer (default 120 s; with OVN the API opens after the start-up pass). */
  startupTimeoutMs?: number;
}

export interface Serve {
  baseUrl: string;
  pid: number;
  logFile: string;
  /** Wall-clock time (epoch ms) of the spawn, to compare with the `time` of its log lines. */
  spawnedAt: number;
  /** dist/.build-stamp's mtime when it started (the launcher rebuilds when src/ changed). */
  buildStamp: number | undefined;
  exited(): boolean;
  stop(): Promise<void>;
}

const STARTUP_TIMEOUT_MS = 120_000;

const buildStampOf = (repoRoot: string) => {
  const file = join(repoRoot, 'dist', '.build-stamp');
  return existsSync(file) ? statSync(file).mtimeMs : undefined;
};

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || !child.pid) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  killGroup(child.pid, 'SIGTERM');
  const result = await Promise.race([exited.then(() => 'exited'), sleep(10_000).then(() => 'timeout')]);
  if (result === 'timeout') killGroup(child.pid, 'SIGKILL');
}

export async function startServe(options: ServeOptions): Promise<Serve> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const logFd = openSync(options.logFile, 'a');
  const args = [
    'serve',
    '--listen',
    `127.0.0.1:${port}`,
    '--database',
    `sqlite:${join(options.dir, 'octonet.db')}`,
    '--state-dir',
    options.dir,
    '--log-level',
    options.logLevel,
    ...(options.ovn ? ['--ovn-nb', options.ovn.nb, '--ovn-sb', options.ovn.sb] : []),
  ];
  const spawnedAt = Date.now();
  const child = spawn(join(options.repoRoot, 'octonet'), args, {
    cwd: options.repoRoot,
    stdio: ['ignore', logFd, logFd],
    detached: true,
  });
  closeSync(logFd);
  if (child.pid) options.onSpawn?.(child.pid);
  const undo = deferUndo(() => stopProcess(child));
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  const timeoutMs = options.startupTimeoutMs ?? STARTUP_TIMEOUT_MS;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exited()) {
      await undo();
      throw new Error(`octonet serve exited (${child.exitCode ?? child.signalCode}):\n${logTail(options.logFile)}`);
    }
    try {
      const response = await fetch(baseUrl + '/', { signal: AbortSignal.timeout(1000) });
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await undo();
      throw new Error(`octonet serve did not answer within ${timeoutMs / 1000} s:\n${logTail(options.logFile)}`);
    }
    await sleep(100);
  }
  return {
    baseUrl,
    pid: child.pid!,
    logFile: options.logFile,
    spawnedAt,
    buildStamp: buildStampOf(options.repoRoot),
    exited,
    stop: undo,
  };
}

export interface LogLine {
  msg: string;
  /** pino's timestamp (epoch ms). */
  time: number;
  [field: string]: unknown;
}

/** Follows a serve's pino JSON log as it grows; keeps every record read so far. */
export class LogFollower {
  readonly records: LogLine[] = [];
  private offset = 0;
  private partial = '';

  constructor(private readonly serve: Serve) {}

  /** Reads what was appended since the last call. */
  poll(): void {
    const text = readFileSync(this.serve.logFile).subarray(this.offset).toString('utf8');
    this.offset += Buffer.byteLength(text);
    const lines = (this.partial + text).split('\n');
    this.partial = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.startsWith('{')) continue;
      try {
        const parsed = JSON.parse(line) as { msg?: string; time?: number };
        if (parsed.msg) this.records.push({ ...parsed, msg: parsed.msg, time: parsed.time ?? Date.now() });
      } catch {
        // not a log record
      }
    }
  }

  /** The first record from index `from` on that `match`es, waiting for it up to `timeoutMs`. */
  async waitFor(
    match: (line: LogLine) => boolean,
    timeoutMs: number,
    from = 0,
  ): Promise<{ line: LogLine; index: number }> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      this.poll();
      const index = this.records.findIndex((line, i) => i >= from && match(line));
      if (index >= 0) return { line: this.records[index]!, index };
      if (this.serve.exited()) throw new Error(`octonet serve exited; see ${this.serve.logFile}`);
      if (Date.now() > deadline)
        throw new Error(`no such log line in ${this.serve.logFile} within ${timeoutMs / 1000} s`);
      await sleep(20);
    }
  }

  /** Resolves once no record matching `match` has appeared for `quietMs` (or after `maxMs`). */
  async quiet(match: (line: LogLine) => boolean, quietMs: number, maxMs: number): Promise<void> {
    const deadline = Date.now() + maxMs;
    let count = -1;
    let since = Date.now();
    while (Date.now() < deadline) {
      this.poll();
      const now = this.records.filter(match).length;
      if (now !== count) {
        count = now;
        since = Date.now();
      } else if (Date.now() - since >= quietMs) {
        return;
      }
      await sleep(100);
    }
  }
}
