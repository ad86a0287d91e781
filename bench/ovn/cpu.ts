/**
 * Where the CPU goes while a figure is taken: octonet serve and the lab's OVN daemons (NB and SB
 * ovsdb-server, northd, each node's ovn-controller), metered with bench/api's ProcessMeter. The
 * lab's daemons are found through their pidfiles; nothing here signals a process.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Lab } from '../../src/lab/index.js';
import { ProcessMeter, type ProcessGroup } from '../api/process-meter.js';

const readPid = (file: string) => (existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) || 0 : 0);

export async function labProcessGroups(lab: Lab): Promise<ProcessGroup[]> {
  const central = lab.layout.centralDir;
  const groups: ProcessGroup[] = [
    { name: 'ovsdb-nb', root: readPid(join(central, 'ovnnb_db.pid')) },
    { name: 'ovsdb-sb', root: readPid(join(central, 'ovnsb_db.pid')) },
    { name: 'ovn-northd', root: readPid(join(central, 'ovn-northd.pid')) },
  ];
  for (const node of (await lab.status()).nodes) {
    groups.push({ name: `ovn-controller ${node.name}`, root: readPid(join(node.runDir, 'ovn-controller.pid')) });
  }
  return groups.filter((g) => g.root > 0);
}

/** CPU-seconds per group between `start` and `stop`. */
export class CpuMeter {
  private meter: ProcessMeter | undefined;

  constructor(private readonly groups: ProcessGroup[]) {}

  start(): void {
    this.meter = new ProcessMeter(this.groups, 1000);
    this.meter.start();
  }

  stop(): Record<string, number> {
    const cost = this.meter?.stop();
    this.meter = undefined;
    return cost?.cpuSeconds ?? {};
  }
}
