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

/**
 * FRR text with the MD5 secrets censored (`neighbor X password S`): an error message quotes
 * configuration lines, and the secrets must never reach a log.
 */
export function withoutSecrets(text: string): string {
  return text.replace(/(\bpassword\s+)\S+/g, '$1[redacted]');
}

/** An error of a daemon's command (status ≠ 0), with what the daemon said. */
export class VtyCommandError extends Error {
  constructor(
    readonly daemon: string,
    readonly reply: VtyReply,
  ) {
    super(
      withoutSecrets(`${daemon}: ${JSON.stringify(reply.command)} failed (${reply.status}): ${reply.output.trim()}`),
    );
    this.name = 'VtyCommandError';
  }
}

const MARKER_LENGTH = 4;

/** Where the reply's end marker (three NULs and the status) starts in `buffer`, or -1. */
function markerAt(buffer: Buffer): number {
  for (let i = 0; i + MARKER_LENGTH <= buffer.length; i++) {
    if (buffer[i] === 0 && buffer[i + 1] === 0 && buffer[i + 2] === 0) return i;
  }
  return -1;
}

/**
 * Sends every command at once (the daemon runs each NUL-terminated command in turn and answers
 * each), then reads the answers in order: one round trip, not one per command, which counts on a
 * loaded machine. The commands are a plan (`apply.ts`), so a failure part way is still reported,
 * and the caller reloads FRR in full after it.
 */
function exchange(socket: Socket, commands: readonly string[], timeoutMs: number): Promise<VtyReply[]> {
  return new Promise((resolve, reject) => {
    let buffer = Buffer.alloc(0);
    const replies: VtyReply[] = [];
    const timer = setTimeout(
      () => reject(new Error(`no answer to ${JSON.stringify(commands[replies.length])}`)),
      timeoutMs,
    );
    const finish = (error?: Error) => {
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(replies);
    };
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (let at = markerAt(buffer); at >= 0 && replies.length < commands.length; at = markerAt(buffer)) {
        const command = commands[replies.length]!;
        replies.push({ command, output: buffer.subarray(0, at).toString(), status: buffer[at + 3]! });
        buffer = buffer.subarray(at + MARKER_LENGTH);
      }
      if (replies.length === commands.length) finish();
    });
    socket.on('error', finish);
    socket.on('close', () => finish(new Error('the vty socket closed before every answer')));
    socket.write(commands.map((c) => `${c}\0`).join(''));
  });
}

/**
 * Runs `commands` in order on one daemon (after `enable`), over one connection, and returns their
 * answers. Throws VtyCommandError for the first failing command, unless `tolerate` accepts it.
 */
export async function vtyRun(
  vtyDir: string,
  daemon: string,
  commands: readonly string[],
  options: { timeoutMs?: number; tolerate?: (reply: VtyReply) => boolean } = {},
): Promise<VtyReply[]> {
  const socket = createConnection(join(vtyDir, `${daemon}.vty`));
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    const replies = await exchange(socket, ['enable', ...commands], options.timeoutMs ?? 10_000);
    const failed = replies.find((r) => r.status !== 0 && !options.tolerate?.(r));
    if (failed) throw new VtyCommandError(daemon, failed);
    return replies.slice(1);
  } finally {
    socket.destroy();
  }
}
