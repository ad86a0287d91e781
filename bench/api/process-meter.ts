/**
 * Server-side cost of a benchmark run, read from /proc: CPU-seconds (utime+stime) and peak RSS of
 * named process groups (a root process and its direct children, e.g. a PostgreSQL postmaster and
 * its backends), and peak PSS (shared pages divided among their users: summing RSS over forked
 * workers or PostgreSQL backends counts shared memory many times). CPU is counted as bench-anchor.sh does: the root's own and reaped children's
 * time plus the live children's own time, so children that come and go during the run are neither
 * lost nor counted twice. Reads only; never signals a process.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessGroup {
  name: string;
  /** The root process id, resolved when the meter starts (e.g. from a pidfile). */
  root: number;
  /** Children to leave out (e.g. the benchmark's own monitoring connection to PostgreSQL). */
  exclude?: readonly number[];
}

export interface GroupCost {
  /** CPU-seconds per group during the run. */
  cpuSeconds: Record<string, number>;
  /** Peak RSS per group in MiB (sum over the group's processes at each sample). */
  rssPeakMiB: Record<string, number>;
  /** Peak of the sum over all groups, sampled at the same instants. */
  rssPeakTotalMiB: number;
  /** Peak PSS per group and of the sum, in MiB (sampled once a second: it costs more to read). */
  pssPeakMiB: Record<string, number>;
  pssPeakTotalMiB: number;
}

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** Fields of /proc/PID/stat after the command name: [0] is state, [1] ppid, [11] utime ... */
function statFields(pid: number): string[] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

function cpuTicks(pid: number, withReaped: boolean): number {
  const f = statFields(pid);
  if (!f) return 0;
  const own = Number(f[11]) + Number(f[12]);
  return withReaped ? own + Number(f[13]) + Number(f[14]) : own;
}

/**
 * CPU-seconds so far of a process's main thread alone (its task whose id is the pid): for Node,
 * the event loop, which bounds what one process can serve however many cores the machine has.
 */
export function mainThreadCpuSeconds(pid: number): number {
  try {
    const text = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8');
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/** A status line such as VmRSS or VmHWM, in KiB (0 when the process is gone). */
export function statusKiB(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/** Proportional set size in KiB, from /proc/PID/smaps_rollup (0 when unreadable). */
function pssKiB(pid: number): number {
  try {
    const match = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

function childrenByParent(): Map<number, number[]> {
  const byParent = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const ppid = Number(statFields(Number(entry))?.[1]);
    if (!ppid) continue;
    const list = byParent.get(ppid) ?? [];
    list.push(Number(entry));
    byParent.set(ppid, list);
  }
  return byParent;
}

function childrenOf(g: ProcessGroup, kids: Map<number, number[]>): number[] {
  const all = kids.get(g.root) ?? [];
  return g.exclude ? all.filter((pid) => !g.exclude!.includes(pid)) : all;
}

function groupTicks(groups: ProcessGroup[]): Map<string, number> {
  const kids = childrenByParent();
  return new Map(
    groups.map((g) => [
      g.name,
      cpuTicks(g.root, true) + childrenOf(g, kids).reduce((sum, pid) => sum + cpuTicks(pid, false), 0),
    ]),
  );
}

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;

/**
 * Measures groups between start() and stop(): CPU by difference, RSS by sampling every
 * `intervalMs`; the member list and PSS are refreshed every second (the costly reads).
 */
export class ProcessMeter {
  private ticks0 = new Map<string, number>();
  private members = new Map<string, number[]>();
  private peak = new Map<string, number>();
  private peakTotal = 0;
  private pssPeak = new Map<string, number>();
  private pssPeakTotal = 0;
  private sampleTimer: NodeJS.Timeout | undefined;
  private refreshTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly groups: ProcessGroup[],
    private readonly intervalMs = 100,
  ) {}

  start(): void {
    this.ticks0 = groupTicks(this.groups);
    this.refreshMembers();
    this.sample();
    this.sampleTimer = setInterval(() => this.sample(), this.intervalMs);
    this.refreshTimer = setInterval(() => this.refreshMembers(), 1000);
    this.samplePss();
  }

  stop(): GroupCost {
    clearInterval(this.sampleTimer);
    clearInterval(this.refreshTimer);
    this.sample();
    this.samplePss();
    const ticks1 = groupTicks(this.groups);
    const cpuSeconds: Record<string, number> = {};
    const rssPeakMiB: Record<string, number> = {};
    const pssPeakMiB: Record<string, number> = {};
    for (const g of this.groups) {
      cpuSeconds[g.name] = round(((ticks1.get(g.name) ?? 0) - (this.ticks0.get(g.name) ?? 0)) / CLOCK_TICKS, 2);
      rssPeakMiB[g.name] = round((this.peak.get(g.name) ?? 0) / 1024, 1);
      pssPeakMiB[g.name] = round((this.pssPeak.get(g.name) ?? 0) / 1024, 1);
    }
    return {
      cpuSeconds,
      rssPeakMiB,
      rssPeakTotalMiB: round(this.peakTotal / 1024, 1),
      pssPeakMiB,
      pssPeakTotalMiB: round(this.pssPeakTotal / 1024, 1),
    };
  }

  private refreshMembers(): void {
    const kids = childrenByParent();
    for (const g of this.groups) this.members.set(g.name, [g.root, ...childrenOf(g, kids)]);
    this.samplePss();
  }

  private samplePss(): void {
    let total = 0;
    for (const g of this.groups) {
      const pss = (this.members.get(g.name) ?? [g.root]).reduce((sum, pid) => sum + pssKiB(pid), 0);
      this.pssPeak.set(g.name, Math.max(this.pssPeak.get(g.name) ?? 0, pss));
      total += pss;
    }
    this.pssPeakTotal = Math.max(this.pssPeakTotal, total);
  }

  private sample(): void {
    let total = 0;
    for (const g of this.groups) {
      const rss = (this.members.get(g.name) ?? [g.root]).reduce((sum, pid) => sum + statusKiB(pid, 'VmRSS'), 0);
      this.peak.set(g.name, Math.max(this.peak.get(g.name) ?? 0, rss));
      total += rss;
    }
    this.peakTotal = Math.max(this.peakTotal, total);
  }
}
