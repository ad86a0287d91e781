/**
 * An Open vSwitch instance of the lab's own: ovsdb-server and ovs-vswitchd inside one namespace,
 * keeping every file (database, sockets, pidfiles, logs) in one directory of the run dir. Nodes
 * run one each (with ovn-controller on top); the outside namespace runs one when it needs VLAN
 * subinterfaces. Bridges are always `datapath_type=netdev`: this kernel has no openvswitch module.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { inNamespace, run } from './run.js';

/**
 * The environment under which the OVS and OVN tools find the daemons of `dir`: `ovs-vsctl` its
 * database (`$OVS_RUNDIR/db.sock`), `ovs-appctl -t ovs-vswitchd` and `ovs-ofctl` their sockets,
 * ovn-controller br-int's OpenFlow socket.
 */
export function ovsEnvironment(dir: string): Record<string, string> {
  return { OVS_RUNDIR: dir, OVS_DBDIR: dir, OVS_LOGDIR: dir, OVN_RUNDIR: dir, OVN_DBDIR: dir, OVN_LOGDIR: dir };
}

/** `ovs-vsctl` against the database of `dir`, from any namespace (unix sockets cross them). */
export function vsctlIn(dir: string, args: readonly string[], timeoutSeconds = 30): string[] {
  return ['ovs-vsctl', `--db=unix:${join(dir, 'db.sock')}`, `--timeout=${timeoutSeconds}`, ...args];
}

/** `ovs-appctl -t ovs-vswitchd` of `dir` (found through OVS_RUNDIR). */
export async function vswitchdCtlIn(dir: string, args: readonly string[]): Promise<string> {
  const argv = ['ovs-appctl', '--timeout=30', '-t', 'ovs-vswitchd', ...args];
  return (await run(argv, { env: ovsEnvironment(dir) })).stdout;
}

/** Daemons of a lab OVS instance, users before what they use: the order `down` stops them in. */
export const OVS_DAEMONS_STOP_ORDER = ['ovn-controller', 'ovs-vswitchd', 'ovsdb-server'] as const;
export type OvsDaemon = (typeof OVS_DAEMONS_STOP_ORDER)[number];

export function pidfileIn(dir: string, daemon: OvsDaemon): string {
  return join(dir, `${daemon}.pid`);
}

/**
 * `--pidfile` and `--log-file` name the directory explicitly (rather than relying on OVS_RUNDIR)
 * so that every daemon's command line mentions the run dir: that is how `down` tells our
 * processes from others' and finds strays. The control sockets keep their default names
 * (`<daemon>.<pid>.ctl` in OVS_RUNDIR), which is what `ovs-appctl -t <daemon>` looks for.
 */
export function daemonArgs(dir: string, daemon: OvsDaemon): string[] {
  return [
    '--detach',
    '--no-chdir',
    `--pidfile=${pidfileIn(dir, daemon)}`,
    `--log-file=${join(dir, `${daemon}.log`)}`,
    '-vconsole:off',
  ];
}

export interface OvsStartOptions {
  /** Open_vSwitch external-ids, set before vswitchd starts (ovn-controller reads its settings here). */
  externalIds?: Record<string, string>;
}

/** Starts ovsdb-server and ovs-vswitchd for `dir` in `namespace`; returns once vswitchd is running. */
export async function startOvs(namespace: string, dir: string, options: OvsStartOptions = {}): Promise<void> {
  const env = ovsEnvironment(dir);
  mkdirSync(dir, { recursive: true });
  const database = join(dir, 'conf.db');
  await run(['ovsdb-tool', 'create', database]); // the default schema: vswitch.ovsschema
  await run(
    inNamespace(
      namespace,
      [
        'ovsdb-server',
        database,
        ...daemonArgs(dir, 'ovsdb-server'),
        `--remote=punix:${join(dir, 'db.sock')}`,
        '--remote=db:Open_vSwitch,Open_vSwitch,manager_options',
      ],
      env,
    ),
  );
  const externalIds = Object.entries(options.externalIds ?? {}).map(([key, value]) => `external-ids:${key}="${value}"`);
  await run(
    vsctlIn(dir, [
      '--no-wait',
      'init',
      '--',
      'set',
      'Open_vSwitch',
      '.',
      ...externalIds,
      // Two cores shared by every instance: one handler and one revalidator thread each are plenty.
      'other_config:n-handler-threads=1',
      'other_config:n-revalidator-threads=1',
    ]),
  );
  // With --detach, vswitchd returns once it has read its configuration.
  await run(
    inNamespace(namespace, ['ovs-vswitchd', `unix:${join(dir, 'db.sock')}`, ...daemonArgs(dir, 'ovs-vswitchd')], env),
  );
}
