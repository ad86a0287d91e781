/**
 * Stopping what the lab started, by pidfile or by namespace, and finding what it may have missed.
 * Never by process name: other OVS/OVN instances (another lab, a real deployment) run the same
 * programs on this machine.
 *
 * The daemons run with `--detach`, so PID 1 becomes their parent; where PID 1 reaps lazily a
 * stopped daemon lingers as a zombie for seconds and `kill -0` still succeeds. Here a process in
 * state Z counts as gone (lab.md: this took teardown from 24 s to 0.5 s).
 */
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { run, sleep } from './run.js';

const GRACE_MS = 3_000;

/** Exists and is not a zombie. */
export function isAlive(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  // The state follows the command name, which is in parentheses and may itself contain spaces.
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state !== 'Z' && state !== 'X';
}

export function commandLine(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0+$/, '').replace(/\0/g, ' ');
  } catch {
    return undefined;
  }
}

export function readPidfile(path: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
  const pid = Number(text);
  return Number.isInteger(pid) && pid > 1 ? pid : undefined;
}

/** SIGTERM to all, wait for them together, SIGKILL whoever is still there after the grace period. */
export async function terminate(pids: readonly number[], graceMs: number = GRACE_MS): Promise<{ killed: number[] }> {
  const signalled = pids.filter((pid) => pid !== process.pid && isAlive(pid) && signal(pid, 'SIGTERM'));
  const deadline = Date.now() + graceMs;
  while (signalled.some(isAlive) && Date.now() < deadline) await sleep(50);
  const killed = signalled.filter(isAlive);
  for (const pid of killed) signal(pid, 'SIGKILL');
  return { killed };
}

function signal(pid: number, name: NodeJS.Signals): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch {
    return false;
  }
}

/**
 * Stops the daemons behind these pidfiles, all at once, and removes the pidfiles. A pid is only
 * signalled when its command line still mentions `owner` (the run dir): after a reboot a stale
 * pidfile may name somebody else's process.
 */
export async function stopByPidfiles(pidfiles: readonly string[], owner: string): Promise<{ killed: number[] }> {
  const pids: number[] = [];
  for (const file of pidfiles) {
    const pid = readPidfile(file);
    if (pid !== undefined && commandLine(pid)?.includes(owner)) pids.push(pid);
    rmSync(file, { force: true });
  }
  return terminate(pids);
}

/** Every process whose network namespace is `namespace` (for a VM: whatever ran in it). */
export async function namespacePids(namespace: string): Promise<number[]> {
  const { stdout } = await run(['ip', 'netns', 'pids', namespace], { allowFailure: true });
  return stdout
    .split(/\s+/)
    .filter(Boolean)
    .map(Number)
    .filter((pid) => Number.isInteger(pid) && pid > 1);
}

export interface StrayProcess {
  pid: number;
  commandLine: string;
}

/** Processes (not zombies, not this one) whose command line mentions `text`: reported, never killed. */
export function processesMentioning(text: string): StrayProcess[] {
  const strays: StrayProcess[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    const line = commandLine(pid);
    if (line?.includes(text) && isAlive(pid)) strays.push({ pid, commandLine: line });
  }
  return strays;
}
