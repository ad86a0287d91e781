/**
 * OVN central: the NB and SB ovsdb-servers and ovn-northd, in namespaces of their own. Standalone
 * (the default) it is one namespace with one server per database and one northd. Clustered
 * (`lab up --cluster`) it is three members, each a namespace with an NB and an SB server in RAFT
 * clusters over the underlay, and two ovn-northd (members 1 and 2) that take turns through the NB
 * lock, active and standby, as a production control plane runs them.
 *
 * Clients on this machine (octonet serve, ovn-nbctl) use the unix sockets in the run dir, which work
 * across namespaces: a list of every member's socket when clustered, from which a leader-only client
 * picks the leader. The nodes reach the SB over TCP on the underlay, inside the lab, so nothing of the
 * lab listens on a port of the host.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { addVeth, createNamespace } from './netns.js';
import { readLabRecord } from './records.js';
import { inNamespace, run, settleAll } from './run.js';
import { CENTRAL_CLUSTER_SIZE, UNDERLAY, centralMemberIp, type LabLayout } from './topology.js';

const SCHEMA_DIRS = ['/usr/share/ovn', '/usr/local/share/ovn'];

export type CentralDatabase = 'nb' | 'sb';

export const DATABASE_NAMES: Record<CentralDatabase, string> = { nb: 'OVN_Northbound', sb: 'OVN_Southbound' };

function ovnSchema(database: CentralDatabase): string {
  for (const dir of SCHEMA_DIRS) {
    const path = join(dir, `ovn-${database}.ovsschema`);
    if (existsSync(path)) return path;
  }
  throw new Error(`ovn-${database}.ovsschema not found in ${SCHEMA_DIRS.join(' or ')}: is ovn-central installed?`);
}

/** One member of central: its namespace, underlay address, and each database's server files. */
export interface CentralMember {
  readonly index: number;
  readonly namespace: string;
  readonly ip: string;
  /** Per database: the unix socket clients use, and the base name of its pidfile, ctl and log. */
  readonly socket: Record<CentralDatabase, string>;
  readonly daemon: Record<CentralDatabase, string>;
}

/** Member K's files; member 1's are the standalone central's, so tools that know only it still work. */
function centralMember(layout: LabLayout, index: number): CentralMember {
  const suffix = index === 1 ? '' : `-${index}`;
  const daemon = { nb: `ovnnb_db${suffix}`, sb: `ovnsb_db${suffix}` };
  return {
    index,
    namespace: layout.centralNamespace(index),
    ip: centralMemberIp(index),
    socket: {
      nb: index === 1 ? layout.nbSocket : join(layout.centralDir, `${daemon.nb}.sock`),
      sb: index === 1 ? layout.sbSocket : join(layout.centralDir, `${daemon.sb}.sock`),
    },
    daemon,
  };
}

export function isClustered(layout: LabLayout): boolean {
  return readLabRecord(layout)?.cluster === true;
}

/** The members central has: one, or three when clustered. */
export function centralMembers(layout: LabLayout): CentralMember[] {
  const count = isClustered(layout) ? CENTRAL_CLUSTER_SIZE : 1;
  return Array.from({ length: count }, (_, i) => centralMember(layout, i + 1));
}

/** The NB as clients on this machine reach it: `unix:...`, or every member's socket when clustered. */
export function nbRemote(layout: LabLayout): string {
  return centralMembers(layout)
    .map((m) => `unix:${m.socket.nb}`)
    .join(',');
}

export function sbRemote(layout: LabLayout): string {
  return centralMembers(layout)
    .map((m) => `unix:${m.socket.sb}`)
    .join(',');
}

/** Where the nodes' ovn-controllers find the SB: every member's address on the underlay. */
export function sbUnderlayRemote(layout: LabLayout): string {
  return centralMembers(layout)
    .map((m) => `tcp:${m.ip}:${UNDERLAY.sbPort}`)
    .join(',');
}

/** ovn-northd's daemon base names: `ovn-northd` in member 1, and its standby `ovn-northd-2` in member 2. */
export function northdDaemons(layout: LabLayout): string[] {
  return isClustered(layout) ? ['ovn-northd', 'ovn-northd-2'] : ['ovn-northd'];
}

/** The pidfiles of central's daemons, in stop order: every member a clustered lab may have had. */
export function centralPidfiles(layout: LabLayout): string[][] {
  const dir = layout.centralDir;
  const members = Array.from({ length: CENTRAL_CLUSTER_SIZE }, (_, i) => centralMember(layout, i + 1));
  return [
    ['ovn-northd', 'ovn-northd-2'].map((d) => join(dir, `${d}.pid`)),
    members.flatMap((m) => [join(dir, `${m.daemon.sb}.pid`), join(dir, `${m.daemon.nb}.pid`)]),
  ];
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

function databaseFile(layout: LabLayout, member: CentralMember, database: CentralDatabase): string {
  return join(layout.centralDir, `${member.daemon[database]}.db`);
}

/** The RAFT address of a member's server for `database`. */
function raftAddress(member: CentralMember, database: CentralDatabase): string {
  return `tcp:${member.ip}:${database === 'nb' ? UNDERLAY.nbRaftPort : UNDERLAY.sbRaftPort}`;
}

/**
 * Starts (or, after a kill, restarts) one member's server for `database` on its existing file: a
 * clustered member rejoins its cluster by itself. The SB also listens on the underlay for the nodes.
 */
export async function startCentralServer(
  layout: LabLayout,
  member: CentralMember,
  database: CentralDatabase,
): Promise<void> {
  const remotes = [`--remote=punix:${member.socket[database]}`];
  if (database === 'sb') remotes.push(`--remote=ptcp:${UNDERLAY.sbPort}:${member.ip}`);
  await run(
    inNamespace(member.namespace, [
      'ovsdb-server',
      databaseFile(layout, member, database),
      ...daemonFiles(layout.centralDir, member.daemon[database]),
      ...remotes,
    ]),
  );
}

/** Starts ovn-northd `daemon` (one of `northdDaemons`) in its member's namespace. */
export async function startNorthd(layout: LabLayout, daemon: string): Promise<void> {
  const index = daemon === 'ovn-northd' ? 1 : Number(daemon.slice('ovn-northd-'.length));
  await run(
    inNamespace(centralMember(layout, index).namespace, [
      'ovn-northd',
      ...daemonFiles(layout.centralDir, daemon),
      `--ovnnb-db=${nbRemote(layout)}`,
      `--ovnsb-db=${sbRemote(layout)}`,
    ]),
  );
}

/** Creates the database files: standalone, or member 1 creating each cluster and the others joining it. */
async function createDatabases(layout: LabLayout, members: readonly CentralMember[]): Promise<void> {
  const clustered = members.length > 1;
  const first = members[0]!;
  await settleAll(
    (['nb', 'sb'] as const).flatMap((db) =>
      members.map((member) => {
        const file = databaseFile(layout, member, db);
        if (!clustered) return run(['ovsdb-tool', 'create', file, ovnSchema(db)]);
        if (member === first)
          return run(['ovsdb-tool', 'create-cluster', file, ovnSchema(db), raftAddress(member, db)]);
        return run([
          'ovsdb-tool',
          'join-cluster',
          file,
          DATABASE_NAMES[db],
          raftAddress(member, db),
          raftAddress(first, db),
        ]);
      }),
    ),
  );
}

/** Builds central as the lab record says (`cluster`); returns once northd has copied NB into SB. */
export async function startCentral(layout: LabLayout, underlayMtu: number): Promise<void> {
  mkdirSync(layout.centralDir, { recursive: true });
  const members = centralMembers(layout);
  await settleAll(
    members.map(async (member) => {
      await createNamespace(layout, member.namespace);
      const port = layout.underlayPort(member.index === 1 ? 'central' : `central${member.index}`);
      await addVeth(
        { namespace: layout.namespaces.underlay, name: port, master: UNDERLAY.bridge },
        { namespace: member.namespace, name: 'eth0' },
        underlayMtu,
      );
      await run(['ip', '-n', member.namespace, 'addr', 'add', `${member.ip}/${UNDERLAY.prefixLength}`, 'dev', 'eth0']);
    }),
  );
  await createDatabases(layout, members);
  // Joining members wait for member 1 by themselves: all may start at once.
  await settleAll(
    members.flatMap((member) => [startCentralServer(layout, member, 'nb'), startCentralServer(layout, member, 'sb')]),
  );
  for (const daemon of northdDaemons(layout)) await startNorthd(layout, daemon);
  // Returns once northd has copied NB into SB: the whole chain is alive (and, clustered, has a leader).
  await run(['ovn-nbctl', `--db=${nbRemote(layout)}`, '--timeout=60', '--wait=sb', 'sync']);
}
