/**
 * OVN central in its own namespace: the NB and SB ovsdb-servers and ovn-northd. Clients on this
 * machine (octonet serve, ovn-nbctl) use the unix sockets in the run dir, which work across
 * namespaces; the nodes reach the SB over TCP on the underlay, inside the lab, so nothing of the
 * lab listens on a port of the host.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { addVeth, createNamespace } from './netns.js';
import { inNamespace, run, settleAll } from './run.js';
import { UNDERLAY, type LabLayout } from './topology.js';

const SCHEMA_DIRS = ['/usr/share/ovn', '/usr/local/share/ovn'];

function ovnSchema(database: 'nb' | 'sb'): string {
  for (const dir of SCHEMA_DIRS) {
    const path = join(dir, `ovn-${database}.ovsschema`);
    if (existsSync(path)) return path;
  }
  throw new Error(`ovn-${database}.ovsschema not found in ${SCHEMA_DIRS.join(' or ')}: is ovn-central installed?`);
}

export function nbRemote(layout: LabLayout): string {
  return `unix:${layout.nbSocket}`;
}

export function sbRemote(layout: LabLayout): string {
  return `unix:${layout.sbSocket}`;
}

/** Where the nodes' ovn-controllers find the SB. */
export const SB_UNDERLAY_REMOTE = `tcp:${UNDERLAY.centralIp}:${UNDERLAY.sbPort}`;

/** The pidfiles of central's daemons, in stop order. */
export function centralPidfiles(layout: LabLayout): string[][] {
  const dir = layout.centralDir;
  return [[join(dir, 'ovn-northd.pid')], [join(dir, 'ovnsb_db.pid'), join(dir, 'ovnnb_db.pid')]];
}

function daemonFiles(dir: string, base: string): string[] {
  return [
    '--detach',
    '--no-chdir',
    `--pidfile=${join(dir, `${base}.pid`)}`,
    `--unixctl=${join(dir, `${base}.ctl`)}`,
    `--log-file=${join(dir, `${base}.log`)}`,
    '-vconsole:off',
  ];
}

export async function startCentral(layout: LabLayout, underlayMtu: number): Promise<void> {
  const dir = layout.centralDir;
  const namespace = layout.namespaces.central;
  mkdirSync(dir, { recursive: true });
  await createNamespace(layout, namespace);
  await addVeth(
    { namespace: layout.namespaces.underlay, name: layout.underlayPort('central'), master: UNDERLAY.bridge },
    { namespace, name: 'eth0' },
    underlayMtu,
  );
  await run(['ip', '-n', namespace, 'addr', 'add', `${UNDERLAY.centralIp}/${UNDERLAY.prefixLength}`, 'dev', 'eth0']);

  const nbFile = join(dir, 'ovnnb_db.db');
  const sbFile = join(dir, 'ovnsb_db.db');
  await settleAll([
    run(['ovsdb-tool', 'create', nbFile, ovnSchema('nb')]),
    run(['ovsdb-tool', 'create', sbFile, ovnSchema('sb')]),
  ]);
  await settleAll([
    run(
      inNamespace(namespace, [
        'ovsdb-server',
        nbFile,
        ...daemonFiles(dir, 'ovnnb_db'),
        `--remote=punix:${layout.nbSocket}`,
      ]),
    ),
    run(
      inNamespace(namespace, [
        'ovsdb-server',
        sbFile,
        ...daemonFiles(dir, 'ovnsb_db'),
        `--remote=punix:${layout.sbSocket}`,
        `--remote=ptcp:${UNDERLAY.sbPort}:${UNDERLAY.centralIp}`,
      ]),
    ),
  ]);
  await run(
    inNamespace(namespace, [
      'ovn-northd',
      ...daemonFiles(dir, 'ovn-northd'),
      `--ovnnb-db=${nbRemote(layout)}`,
      `--ovnsb-db=${sbRemote(layout)}`,
    ]),
  );
  // Returns once northd has copied NB into SB: the whole chain is alive.
  await run(['ovn-nbctl', `--db=${nbRemote(layout)}`, '--timeout=30', '--wait=sb', 'sync']);
}
