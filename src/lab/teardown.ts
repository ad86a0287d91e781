/**
 * `lab down`: removes everything a lab made, whatever state it is in (up, half-way through an
 * `up` that failed or was killed, already gone). It works from the run dir's records and the
 * names the topology derives from the lab name, never from process names.
 *
 * Order matters: workloads first, then each daemon before the ones it talks to (ovn-controller,
 * ovs-vswitchd, ovsdb-server, then northd, then the NB/SB databases), then the namespaces. A
 * process still alive in a deleted namespace keeps that namespace alive, so nothing is deleted
 * before what runs in it has stopped.
 */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { centralPidfiles } from './central.js';
import { deleteNamespace, listNamespaces, recordedNamespaces } from './netns.js';
import { OVS_DAEMONS_STOP_ORDER, pidfileIn } from './ovs.js';
import { namespacePids, processesMentioning, stopByPidfiles, terminate, type StrayProcess } from './processes.js';
import type { LabLayout } from './topology.js';

/** What `Lab.startBesideNode` may start. */
const BESIDE_NODE_DAEMONS = ['bgp-agent'] as const;

export interface LabDownReport {
  name: string;
  /** False when there was nothing of this lab to remove. */
  existed: boolean;
  namespacesDeleted: string[];
  /** Processes that ignored SIGTERM for the grace period and got SIGKILL. */
  killed: number[];
  /** Processes still mentioning the run dir afterwards: reported, never killed by name. */
  strays: StrayProcess[];
}

/** The run dir's OVS instances (the nodes', the outside's), whether or not lab.json got written. */
function ovsDirs(layout: LabLayout): string[] {
  try {
    return readdirSync(layout.runDir)
      .filter((entry) => /^node[1-9][0-9]*$/.test(entry) || entry === 'outside')
      .map((entry) => join(layout.runDir, entry));
  } catch {
    return [];
  }
}

export async function tearDown(layout: LabLayout): Promise<LabDownReport> {
  const recorded = new Set(recordedNamespaces(layout));
  const present = (await listNamespaces()).filter((ns) => recorded.has(ns) || layout.isFixedNamespace(ns));
  const switches = ovsDirs(layout);
  const report: LabDownReport = {
    name: layout.name,
    existed: existsSync(layout.runDir) || present.length > 0,
    namespacesDeleted: [],
    killed: [],
    strays: [],
  };
  const owner = layout.runDir + '/';
  const isVm = (ns: string) => !layout.isFixedNamespace(ns);

  // Workloads: whatever runs in a VM namespace.
  const workloads = await Promise.all(present.filter(isVm).map(namespacePids));
  report.killed.push(...(await terminate(workloads.flat())).killed);

  // Daemons started beside a node (`octonet bgp-agent`), before the FRR and OVS they talk to.
  const besideNodes = switches.flatMap((dir) => BESIDE_NODE_DAEMONS.map((daemon) => join(dir, `${daemon}.pid`)));
  report.killed.push(...(await stopByPidfiles(besideNodes, owner)).killed);

  for (const daemon of OVS_DAEMONS_STOP_ORDER) {
    const pidfiles = switches.map((dir) => pidfileIn(dir, daemon));
    report.killed.push(...(await stopByPidfiles(pidfiles, owner)).killed);
  }
  for (const phase of centralPidfiles(layout)) report.killed.push(...(await stopByPidfiles(phase, owner)).killed);

  // Anything else still inside (a listener in the outside namespace, a capture started with
  // `lab node exec`).
  const leftovers = await Promise.all(present.map(namespacePids));
  report.killed.push(...(await terminate(leftovers.flat())).killed);

  // VMs first, the underlay last: the order things were built, reversed.
  const rank = (ns: string) => (ns === layout.namespaces.underlay ? 2 : isVm(ns) ? 0 : 1);
  for (const ns of [...present].sort((a, b) => rank(a) - rank(b))) {
    await deleteNamespace(layout, ns);
    report.namespacesDeleted.push(ns);
  }

  report.strays = processesMentioning(owner);
  rmSync(layout.runDir, { recursive: true, force: true });
  return report;
}
