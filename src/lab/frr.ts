/**
 * Debian's FRR (zebra, bgpd, bfdd from /usr/lib/frr) run inside one lab namespace, every instance
 * with a directory of its own in the run dir: its vty sockets, zebra's API socket, pidfiles and
 * logs. Nothing touches /etc/frr or /var/run/frr, so any number of instances (the cloudgws, the
 * core, one per node) run beside each other and beside a real FRR. vtysh reaches an instance over
 * its vty sockets (`--vty_socket DIR`), which work from any namespace.
 *
 * The daemons run as FRR's own user `frr` (as the package runs them); the directory belongs to it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isAlive, readPidfile } from './processes.js';
import { inNamespace, run, waitFor } from './run.js';

export const FRR_DAEMONS = ['zebra', 'bfdd', 'bgpd'] as const;
export type FrrDaemon = (typeof FRR_DAEMONS)[number];
const FRR_BIN = '/usr/lib/frr';

export function frrPidfile(dir: string, daemon: FrrDaemon): string {
  return join(dir, `${daemon}.pid`);
}

/** Starts zebra, bfdd and bgpd in `namespace` with their files in `dir`, then applies `config`. */
export async function startFrr(namespace: string, dir: string, config?: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  await run(['chown', 'frr:frr', dir]);
  writeFileSync(join(dir, 'vtysh.conf'), '');
  for (const daemon of FRR_DAEMONS) {
    const argv = [join(FRR_BIN, daemon), '-d', '-i', frrPidfile(dir, daemon), '--vty_socket', dir];
    argv.push('-z', join(dir, 'zserv.api'), '-f', '/dev/null', '--log', `file:${join(dir, `${daemon}.log`)}`);
    // No vty TCP port: vtysh uses the sockets, and a port would be one more thing listening.
    argv.push('-P', '0');
    await run(inNamespace(namespace, argv));
  }
  await waitFor(() => (FRR_DAEMONS.every((d) => frrRunning(dir, d)) ? true : undefined), {
    timeoutMs: 30_000,
    intervalMs: 50,
    describe: () => `FRR in ${namespace} did not start (see ${dir}/*.log)`,
  });
  if (config) await applyFrrConfig(dir, config);
}

export function frrRunning(dir: string, daemon: FrrDaemon): boolean {
  const pid = readPidfile(frrPidfile(dir, daemon));
  return pid !== undefined && isAlive(pid);
}

/** `vtysh --vty_socket DIR -c ...`; returns its output. */
export async function frrVtysh(dir: string, commands: readonly string[]): Promise<string> {
  return (await run(['vtysh', '--vty_socket', dir, ...commands.flatMap((c) => ['-c', c])])).stdout;
}

/** Loads a whole configuration into a freshly started instance (`vtysh -f`). */
export async function applyFrrConfig(dir: string, config: string): Promise<void> {
  const file = join(dir, 'frr.conf');
  writeFileSync(file, config);
  await run(['vtysh', '--vty_socket', dir, '-f', file]);
}
