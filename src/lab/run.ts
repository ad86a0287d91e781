/**
 * Running the lab's commands (ip, ovs-vsctl, ovsdb-tool, ...): one spawn, output captured, a
 * failure turned into an error that names the command and carries what it printed. Also how a
 * command is placed inside a namespace. Nothing here knows what the commands are for.
 */
import { spawn } from 'node:child_process';

export interface RunOptions {
  /** Added to the inherited environment. */
  env?: Record<string, string>;
  /** Written to the command's stdin, which is then closed. */
  input?: string | Buffer;
  /** A hang guard, not a performance limit: the command is killed after this long. */
  timeoutMs?: number;
  /** Resolve with the exit code instead of throwing when the command fails. */
  allowFailure?: boolean;
}

export interface RunResult {
  /** Exit code; 128 + signal number when a signal ended it (as shells report it). */
  code: number;
  stdout: string;
  stderr: string;
}

export class CommandFailedError extends Error {
  override readonly name = 'CommandFailedError';
  constructor(
    readonly argv: readonly string[],
    readonly result: RunResult,
  ) {
    const said = (result.stderr || result.stdout).trim();
    super(`${argv.join(' ')} exited with ${result.code}${said ? `: ${said}` : ''}`);
  }
}

const DEFAULT_TIMEOUT_MS = 60_000;

const SIGNAL_NUMBERS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15, SIGPIPE: 13 };

export function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  return 128 + (signal ? (SIGNAL_NUMBERS[signal] ?? 1) : 1);
}

export function run(argv: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  const [file, ...args] = argv;
  if (!file) throw new Error('run: empty command');
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      env: options.env ? { ...process.env, ...options.env } : process.env,
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      killSignal: 'SIGKILL',
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
    if (options.input !== undefined) child.stdin?.end(options.input);
    child.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') reject(new Error(`${file} is not installed (see scripts/setup)`));
      else reject(error);
    });
    child.once('close', (code, signal) => {
      const result = {
        code: exitCodeOf(code, signal),
        stdout: Buffer.concat(stdout).toString(),
        stderr: Buffer.concat(stderr).toString(),
      };
      if (result.code !== 0 && !options.allowFailure) reject(new CommandFailedError(argv, result));
      else resolve(result);
    });
  });
}

/**
 * A command line written as one string, split on spaces: only for arguments the lab generates
 * itself (names, addresses, MACs), which never contain spaces.
 */
export function words(line: string): string[] {
  return line.split(' ').filter(Boolean);
}

/** The argv that runs `argv` inside network namespace `namespace`, with `env` set there. */
export function inNamespace(namespace: string, argv: readonly string[], env: Record<string, string> = {}): string[] {
  const assignments = Object.entries(env).map(([key, value]) => `${key}=${value}`);
  return ['ip', 'netns', 'exec', namespace, ...(assignments.length ? ['env', ...assignments] : []), ...argv];
}

/** `ip -batch` in a namespace: many link/address changes for one spawn. */
export async function ipBatch(namespace: string, lines: readonly string[]): Promise<void> {
  if (lines.length === 0) return;
  await run(['ip', '-n', namespace, '-batch', '-'], { input: lines.join('\n') + '\n' });
}

/**
 * Like Promise.all, but waits for every promise to settle before throwing the first failure: a
 * cleanup that starts while a sibling step is still creating things would leave those behind.
 */
export async function settleAll<T>(promises: readonly Promise<T>[]): Promise<T[]> {
  const results = await Promise.allSettled(promises);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  return results.map((r) => (r as PromiseFulfilledResult<T>).value);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Polls `probe` until it returns a value other than undefined, or throws `describe()` after
 * `timeoutMs`. Waiting is by condition, never by a fixed delay.
 */
export async function waitFor<T>(
  probe: () => Promise<T | undefined> | T | undefined,
  options: { timeoutMs: number; intervalMs?: number; describe: () => string | Promise<string> },
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() >= deadline) throw new Error(await options.describe());
    await sleep(options.intervalMs ?? 100);
  }
}
