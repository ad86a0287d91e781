/**
 * Where the node agent's commands run: on a real node, directly (`ovs-vsctl`, `ip`, `ping`); in
 * the lab, inside the node's namespace with its OVS environment (`lab.nodeCommand(node, [])` is
 * the prefix). The agent only ever says what to run; this decides where.
 */
import { spawn } from 'node:child_process';

export interface HostResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs argv on the node; never throws for a non-zero exit (the caller decides what a failure means). */
export type NodeHost = (argv: readonly string[], options?: { timeoutMs?: number }) => Promise<HostResult>;

export class HostCommandError extends Error {
  override readonly name = 'HostCommandError';
  constructor(argv: readonly string[], result: HostResult) {
    super(`${argv.join(' ')} exited with ${result.code}: ${(result.stderr || result.stdout).trim()}`);
  }
}

/** A hang guard (a stuck ovsdb, a ping with no answer), not a performance limit. */
const DEFAULT_TIMEOUT_MS = 30_000;

/** A host that runs every command behind `prefix` (empty: on this machine as it is). */
export function hostFromPrefix(prefix: readonly string[] = []): NodeHost {
  return (argv, options = {}) => {
    const [file, ...args] = [...prefix, ...argv];
    return new Promise((resolve) => {
      const child = spawn(file!, args, {
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        killSignal: 'SIGKILL',
      });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
      child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
      child.once('error', (error) => resolve({ code: 127, stdout: '', stderr: `${file}: ${error.message}` }));
      child.once('close', (code, signal) =>
        resolve({
          code: code ?? (signal ? 128 + 9 : 1),
          stdout: Buffer.concat(out).toString(),
          stderr: Buffer.concat(err).toString(),
        }),
      );
    });
  };
}

/** Runs argv and returns stdout; throws (naming the command and what it said) on failure. */
export async function must(host: NodeHost, argv: readonly string[]): Promise<string> {
  const result = await host(argv);
  if (result.code !== 0) throw new HostCommandError(argv, result);
  return result.stdout;
}
