/**
 * Faults on a clustered central (`lab up --cluster`), for the fault suite and for operators trying
 * things by hand: which member leads a database, which ovn-northd is active, killing and restarting
 * either as a crash would, and cutting one member off from the others' RAFT traffic with iptables
 * inside its namespace (clients on the unix sockets still reach it; what they get is a server that
 * knows it is disconnected).
 */
import { join } from 'node:path';
import {
  DATABASE_NAMES,
  centralMembers,
  isClustered,
  northdDaemons,
  startCentralServer,
  startNorthd,
  type CentralDatabase,
  type CentralMember,
} from './central.js';
import { isAlive, readPidfile } from './processes.js';
import { inNamespace, run } from './run.js';
import { LabUsageError, UNDERLAY, type LabLayout } from './topology.js';

const RAFT_PORTS = [UNDERLAY.nbRaftPort, UNDERLAY.sbRaftPort];

async function killPidfile(pidfile: string): Promise<void> {
  const pid = readPidfile(pidfile);
  if (pid === undefined || !isAlive(pid)) return;
  process.kill(pid, 'SIGKILL');
  while (isAlive(pid)) await new Promise((resolve) => setTimeout(resolve, 20));
}

export class CentralControl {
  constructor(private readonly layout: LabLayout) {
    if (!isClustered(layout)) throw new LabUsageError(`lab ${layout.name} has no clustered central (--cluster)`);
  }

  members(): CentralMember[] {
    return centralMembers(this.layout);
  }

  private ctl(base: string): string {
    return join(this.layout.centralDir, `${base}.ctl`);
  }

  /** `cluster/status` of the member's server; undefined when it does not answer (killed). */
  async clusterStatus(member: CentralMember, db: CentralDatabase): Promise<string | undefined> {
    const ctl = this.ctl(member.daemon[db]);
    const result = await run(['ovs-appctl', '-t', ctl, '--timeout=5', 'cluster/status', DATABASE_NAMES[db]], {
      allowFailure: true,
    });
    return result.code === 0 ? result.stdout : undefined;
  }

  /** The member whose server leads `db` now, if one does. */
  async leader(db: CentralDatabase): Promise<CentralMember | undefined> {
    for (const member of this.members()) {
      if (/^Role: leader$/m.test((await this.clusterStatus(member, db)) ?? '')) return member;
    }
    return undefined;
  }

  /** SIGKILL to the member's server for `db`, as a crash. */
  kill(member: CentralMember, db: CentralDatabase): Promise<void> {
    return killPidfile(join(this.layout.centralDir, `${member.daemon[db]}.pid`));
  }

  /** Starts the member's server again on its file: it rejoins the cluster by itself. */
  restart(member: CentralMember, db: CentralDatabase): Promise<void> {
    return startCentralServer(this.layout, member, db);
  }

  /** The ovn-northd that holds the NB lock (`status` says active), if one does. */
  async activeNorthd(): Promise<string | undefined> {
    for (const daemon of northdDaemons(this.layout)) {
      const result = await run(['ovn-appctl', '-t', this.ctl(daemon), '--timeout=5', 'status'], {
        allowFailure: true,
      });
      if (result.code === 0 && /Status: active/.test(result.stdout)) return daemon;
    }
    return undefined;
  }

  killNorthd(daemon: string): Promise<void> {
    return killPidfile(join(this.layout.centralDir, `${daemon}.pid`));
  }

  restartNorthd(daemon: string): Promise<void> {
    return startNorthd(this.layout, daemon);
  }

  /** Drops the member's RAFT traffic in and out (both databases); `heal` undoes it. */
  async partition(member: CentralMember): Promise<void> {
    for (const port of RAFT_PORTS) {
      for (const rule of [
        ['INPUT', '-p', 'tcp', '--dport', String(port)],
        ['INPUT', '-p', 'tcp', '--sport', String(port)],
      ]) {
        await run(inNamespace(member.namespace, ['iptables', '-A', ...rule, '-j', 'DROP']));
      }
    }
  }

  async heal(member: CentralMember): Promise<void> {
    await run(inNamespace(member.namespace, ['iptables', '-F', 'INPUT']));
  }
}
