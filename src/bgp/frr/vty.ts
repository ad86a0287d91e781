/**
 * One FRR daemon's vty socket (`<vtyDir>/<daemon>.vty`), spoken to as vtysh speaks to it, without
 * starting vtysh. vtysh is a separate process that loads libyang and its modules before it says a
 * word: 120–200 ms a call on the lab machine, most of a floating IP's announce time. Over the socket
 * a handful of configuration lines take a few milliseconds.
 *
 * The protocol (FRR's `lib/vty.c`, `vtysh_read`/`vtysh_flush`): each command is sent NUL-terminated;
 * the daemon answers with the command's output followed by three NUL bytes and the command's
 * status (0: CMD_SUCCESS). A new connection starts in the view node, so `enable` comes first.
 */
import { createConnection, type Socket } from 'node:net';
import { join } from 'node:path';

export interface VtyReply {
  readonly command: string;
  readonly status: number;
  readonly output: string;
}

/** An error of a daemon's command (status ≠ 0), with what the daemon said. */
export class VtyCommandError extends Error {
  constructor(
    readonly daemon: string,
    readonly reply: VtyReply,
  ) {
    super(`${daemon}: ${JSON.stringify(reply.command)} failed (${reply.status}): ${reply.output.trim()}`);
    this.name = 'VtyCommandError';
  }
}

const MARKER_LENGTH = 4;

/** Where the reply's end marker (three NULs and the status) starts in `buffer`, or -1. */
export function markerAt(buffer: Buffer): number {
  for (let i = 0; i + MARKER_LENGTH <= buffer.length; i++) {
    if (buffer[i] === 0 && buffer[i + 1] === 0 && buffer[i + 2] === 0) return i;
  }
  return -1;
}

class VtySession {
  private buffer = Buffer.alloc(0);
  private waiting: ((reply: { status: number; output: string }) => void) | undefined;
  private failed: Error | undefined;
  private onFailure: ((error: Error) => void) | undefined;

  constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      const at = markerAt(this.buffer);
      if (at < 0 || !this.waiting) return;
      const reply = { output: this.buffer.subarray(0, at).toString(), status: this.buffer[at + 3]! };
      this.buffer = this.buffer.subarray(at + MARKER_LENGTH);
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve(reply);
    });
    const fail = (error: Error) => {
      this.failed ??= error;
      this.onFailure?.(this.failed);
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('the vty socket closed')));
  }

  run(command: string, timeoutMs: number): Promise<{ status: number; output: string }> {
    if (this.failed) return Promise.reject(this.failed);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to ${JSON.stringify(command)}`)), timeoutMs);
      this.onFailure = (error) => {
        clearTimeout(timer);
        reject(error);
      };
      this.waiting = (reply) => {
        clearTimeout(timer);
        this.onFailure = undefined;
        resolve(reply);
      };
      this.socket.write(`${command}\0`);
    });
  }
}

/**
 * Runs `commands` in order on one daemon (after `enable`), over one connection. Stops at the first
 * failing command and throws VtyCommandError, unless `tolerate` accepts its reply (then it goes on).
 */
export async function vtyRun(
  vtyDir: string,
  daemon: string,
  commands: readonly string[],
  options: { timeoutMs?: number; tolerate?: (reply: VtyReply) => boolean } = {},
): Promise<VtyReply[]> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const socket = createConnection(join(vtyDir, `${daemon}.vty`));
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    const session = new VtySession(socket);
    const replies: VtyReply[] = [];
    for (const command of ['enable', ...commands]) {
      const reply = { command, ...(await session.run(command, timeoutMs)) };
      if (reply.status !== 0 && !options.tolerate?.(reply)) throw new VtyCommandError(daemon, reply);
      if (command !== 'enable') replies.push(reply);
    }
    return replies;
  } finally {
    socket.destroy();
  }
}
