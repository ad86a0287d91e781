/**
 * Telling running Octavia services that their config files changed: a SIGHUP, which makes
 * oslo.config re-read the files and apply the mutable options (`[health_manager]
 * controller_ip_port_list` is one) without a restart. The health manager's and the worker's
 * cotyledon parent mutate their config and pass the signal on to their workers, so only the main
 * process is signalled. The worker matters as much as the health managers: it renders the
 * amphora agent config (`amphora configure`, new amphorae) from its own `controller_ip_port_list`.
 *
 * How a deployment reaches the process, one `--reload-octavia` target each:
 * - `systemd:<unit>`: Debian's units (`octavia-health-manager.service`, `octavia-worker.service`)
 *   run the daemon as the main process and define no `ExecReload`, so `systemctl reload` fails;
 *   `systemctl kill --kill-whom=main --signal=SIGHUP <unit>` is the reload.
 * - `pidfile:<path>`: sysvinit (Debian's init script writes `/run/octavia/<name>.pid`) or any
 *   supervisor that keeps a pidfile. A pidfile can outlive its process and the PID be reused by
 *   anything (a SIGHUP ends most programs), so the process's command line must name an Octavia
 *   program (`octavia-…`: `python3 /usr/bin/octavia-worker …`, or cotyledon's retitled
 *   `octavia-worker: master process […]`); anything else is refused, not signalled. (The PID can
 *   still change between that check and the signal; Node has no pidfd to close that gap.)
 * - `command:<shell command>`: anything else (`docker kill -s HUP octavia_health_manager`, ...).
 * A failure is reported, never thrown: the caller keeps the change pending and tries again.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';

export type ReloadTarget =
  | { readonly kind: 'systemd'; readonly unit: string }
  | { readonly kind: 'pidfile'; readonly path: string }
  | { readonly kind: 'command'; readonly command: string };

export interface ReloadOutcome {
  /** The target as the operator wrote it. */
  readonly target: string;
  readonly ok: boolean;
  /** What was done (`SIGHUP to pid 4242`) or why it failed. */
  readonly detail: string;
}

/** A hung `systemctl` or command is abandoned after this long (a hang guard). */
const COMMAND_GIVE_UP_MS = 30_000;

/** `systemd:UNIT`, `pidfile:PATH` or `command:CMD`; throws with the accepted forms otherwise. */
export function parseReloadTarget(text: string): ReloadTarget {
  const colon = text.indexOf(':');
  const kind = colon > 0 ? text.slice(0, colon) : '';
  const value = colon > 0 ? text.slice(colon + 1).trim() : '';
  if (value !== '') {
    if (kind === 'systemd') return { kind, unit: /\.[a-z]+$/.test(value) ? value : `${value}.service` };
    if (kind === 'pidfile') return { kind, path: value };
    if (kind === 'command') return { kind, command: value };
  }
  throw new Error(`"${text}": give systemd:<unit>, pidfile:<path> or command:<shell command>`);
}

export function describeTarget(target: ReloadTarget): string {
  if (target.kind === 'systemd') return `systemd:${target.unit}`;
  if (target.kind === 'pidfile') return `pidfile:${target.path}`;
  return `command:${target.command}`;
}

/** The program and arguments a target runs (none for a pidfile: the signal is sent directly). */
export function reloadCommand(target: ReloadTarget): { file: string; args: string[] } | undefined {
  if (target.kind === 'systemd') {
    return { file: 'systemctl', args: ['kill', '--kill-whom=main', '--signal=SIGHUP', target.unit] };
  }
  if (target.kind === 'command') return { file: '/bin/sh', args: ['-c', target.command] };
  return undefined;
}

/** An Octavia program as a word of a command line: `/usr/bin/octavia-worker`, `octavia-worker:`. */
const OCTAVIA_PROGRAM = /(^|[\s/[])octavia-[a-z][a-z-]*/;

/** The PID's command line (NULs as spaces), or undefined when the process is gone. */
function commandLine(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0+$/, '').replace(/\0/g, ' ');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`cannot read /proc/${pid}/cmdline: ${(error as NodeJS.ErrnoException).code}`);
  }
}

function signalFromPidfile(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch (error) {
    throw new Error(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const pid = Number(text);
  if (!Number.isInteger(pid) || pid <= 1) throw new Error(`${path} holds no process id ("${text.slice(0, 20)}")`);
  const cmdline = commandLine(pid);
  if (cmdline === undefined) throw new Error(`no process ${pid} (stale ${path})`);
  if (!OCTAVIA_PROGRAM.test(cmdline)) {
    throw new Error(
      `not signalled: pid ${pid} from ${path} is not an Octavia process ("${cmdline.slice(0, 80)}"); stale pidfile?`,
    );
  }
  try {
    process.kill(pid, 'SIGHUP');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new Error(code === 'ESRCH' ? `no process ${pid} (stale ${path})` : `cannot signal ${pid}: ${code}`);
  }
  return `SIGHUP to pid ${pid}`;
}

function runCommand(file: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { timeout: COMMAND_GIVE_UP_MS, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${file} ${args.join(' ')}: ${(stderr || error.message).trim().slice(0, 300)}`));
      else resolve(stdout.trim().slice(0, 300));
    });
  });
}

/** Signals one target; the outcome says what happened (never throws). */
export async function reloadOctavia(target: ReloadTarget): Promise<ReloadOutcome> {
  const name = describeTarget(target);
  try {
    if (target.kind === 'pidfile') return { target: name, ok: true, detail: signalFromPidfile(target.path) };
    const command = reloadCommand(target)!;
    await runCommand(command.file, command.args);
    return { target: name, ok: true, detail: `${command.file} ${command.args.join(' ')}` };
  } catch (error) {
    return { target: name, ok: false, detail: (error as Error).message };
  }
}
