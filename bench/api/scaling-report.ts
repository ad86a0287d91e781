/**
 * One replica against N on PostgreSQL, from the write-scaling workload: per run and phase the
 * throughput, the CPU-milliseconds each write costs (replicas, PostgreSQL, haproxy; the event
 * loops apart), PostgreSQL's lock waits, idle-in-transaction time and rollbacks per write; then
 * the measured throughput ratio on this machine, with its core count, and, labelled as an
 * estimate, what a machine with more cores would give from the same per-write costs. Pure
 * functions over TargetResults; text and Markdown from the same rows.
 */
import type { TargetResult } from './api-bench.js';
import { fmtRatio } from './compare.js';
import { totalLockWaitS } from './pg-activity.js';
import { renderMarkdown, renderText, type ColumnGroup } from './tables.js';
import type { ScalingPhase, WriteScaling } from './write-scaling.js';

/** The issue's goal: N = 3 replicas give at least this much of one replica's write throughput. */
export const SCALING_GOAL = 2.5;
/** Machines the estimate is given for. */
const ESTIMATE_CORES = [6, 8, 16];

const isReplica = (group: string) => group === 'octonet' || group.startsWith('octonet-');
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const fmt = (n: number) => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));

/** A phase's costs per successful write, in milliseconds. */
export interface PerWrite {
  replicas: number;
  opsPerS: number;
  /** All the replicas' CPU (every thread). */
  replicaMs: number;
  /** The replicas' event-loop threads only. */
  mainThreadMs: number;
  postgresMs: number;
  haproxyMs: number;
  /** Replicas + PostgreSQL + haproxy (the load driver left out: clients run elsewhere). */
  serverMs: number;
  driverMs: number;
  lockWaitMs: number;
  /** Advisory locks held per write: the section one project's writes go through one at a time. */
  advisoryHeldMs: number;
  idleInTransactionMs: number;
  rollbacksPerWrite: number;
  /** Cores the server side kept busy on average during the phase. */
  busyCores: number;
}

export function perWrite(scaling: WriteScaling, phase: ScalingPhase): PerWrite {
  const writes = Math.max(1, phase.count - phase.errors);
  const ms = (seconds: number) => (seconds * 1000) / writes;
  const replicaS = sum(Object.entries(phase.cpuS).flatMap(([g, s]) => (isReplica(g) ? [s] : [])));
  const postgresS = phase.cpuS.postgresql ?? 0;
  const haproxyS = phase.cpuS.haproxy ?? 0;
  const serverS = replicaS + postgresS + haproxyS;
  return {
    replicas: scaling.replicas,
    opsPerS: phase.opsPerS,
    replicaMs: ms(replicaS),
    mainThreadMs: ms(sum(Object.values(phase.mainThreadCpuS))),
    postgresMs: ms(postgresS),
    haproxyMs: ms(haproxyS),
    serverMs: ms(serverS),
    driverMs: ms(phase.driverCpuS),
    lockWaitMs: ms(totalLockWaitS(phase.db)),
    advisoryHeldMs: ms(phase.db.advisoryHeldS),
    idleInTransactionMs: ms(phase.db.idleInTransactionS),
    rollbacksPerWrite: phase.db.rollbacks / writes,
    busyCores: serverS / phase.wallS,
  };
}

/**
 * Writes per second on a machine with `cores` cores, from per-write costs measured elsewhere: no
 * faster than the replicas' event loops allow (each one thread, the writes spread evenly), nor
 * than the cores can run every server-side process's CPU, nor than one project's writes pass
 * through the section its quota lock serialises, at the hold time measured (a loaded machine
 * stretches it: pessimistic there). The client and network cost nothing: an estimate, not a
 * measurement.
 */
export function estimatedRate(w: PerWrite, cores: number): number {
  const lockBound = w.advisoryHeldMs > 0 ? 1000 / w.advisoryHeldMs : Infinity;
  return Math.min((w.replicas * 1000) / w.mainThreadMs, (cores * 1000) / w.serverMs, lockBound);
}

interface Run {
  target: TargetResult;
  scaling: WriteScaling;
}

const runsOf = (targets: TargetResult[]): Run[] =>
  targets.flatMap((t) => (t.scaling ? [{ target: t, scaling: t.scaling }] : []));

function phaseRows(runs: Run[], name: ScalingPhase['phase']): string[][] {
  const figures = runs.map((r) => {
    const phase = r.scaling.phases.find((p) => p.phase === name);
    return phase ? { phase, w: perWrite(r.scaling, phase) } : undefined;
  });
  const row = (label: string, cell: (f: NonNullable<(typeof figures)[number]>) => string) => [
    `${name} ${label}`,
    ...figures.map((f) => (f ? cell(f) : '—')),
  ];
  return [
    row('writes (errors)', (f) => `${f.phase.count - f.phase.errors} (${f.phase.errors})`),
    row('ops/s', (f) => fmt(f.w.opsPerS)),
    row('CPU-ms/write replicas', (f) => fmt(f.w.replicaMs)),
    row('  of which event loops', (f) => fmt(f.w.mainThreadMs)),
    row('CPU-ms/write PostgreSQL', (f) => fmt(f.w.postgresMs)),
    row('CPU-ms/write haproxy', (f) => fmt(f.w.haproxyMs)),
    row('CPU-ms/write server total', (f) => fmt(f.w.serverMs)),
    row('CPU-ms/write load driver', (f) => fmt(f.w.driverMs)),
    row('busy cores (server)', (f) => fmt(f.w.busyCores)),
    row('lock wait ms/write', (f) => fmt(f.w.lockWaitMs)),
    row('advisory lock held ms/write', (f) => fmt(f.w.advisoryHeldMs)),
    row('idle in tx ms/write', (f) => fmt(f.w.idleInTransactionMs)),
    row('rollbacks/write', (f) => fmt(f.w.rollbacksPerWrite)),
  ];
}

/** The median per-write figures of the runs with `replicas` replicas. */
function medianOf(runs: Run[], replicas: number, name: ScalingPhase['phase']): PerWrite | undefined {
  const ws = runs
    .filter((r) => r.scaling.replicas === replicas)
    .flatMap((r) => r.scaling.phases.filter((p) => p.phase === name).map((p) => perWrite(r.scaling, p)));
  if (!ws.length) return undefined;
  const m = (key: keyof PerWrite) => median(ws.map((w) => w[key]));
  return {
    replicas,
    opsPerS: m('opsPerS'),
    replicaMs: m('replicaMs'),
    mainThreadMs: m('mainThreadMs'),
    postgresMs: m('postgresMs'),
    haproxyMs: m('haproxyMs'),
    serverMs: m('serverMs'),
    driverMs: m('driverMs'),
    lockWaitMs: m('lockWaitMs'),
    advisoryHeldMs: m('advisoryHeldMs'),
    idleInTransactionMs: m('idleInTransactionMs'),
    rollbacksPerWrite: m('rollbacksPerWrite'),
    busyCores: m('busyCores'),
  };
}

function summary(runs: Run[]): string[] {
  const cores = runs[0]!.scaling.cores;
  const n = Math.max(...runs.map((r) => r.scaling.replicas));
  const lines = [
    `this machine: ${cores} cores (os.availableParallelism()); one replica vs ${n}, median of ` +
      `${runs.filter((r) => r.scaling.replicas === n).length} run(s) each; ` +
      `${runs[0]!.scaling.concurrency / runs[0]!.scaling.replicas} clients per replica; port quota ` +
      `${runs[0]!.scaling.portQuota} (finite: every create counts and locks it)`,
  ];
  if (n === 1) return lines;
  for (const name of ['port-create', 'port-delete'] as const) {
    const one = medianOf(runs, 1, name);
    const many = medianOf(runs, n, name);
    if (!one || !many) continue;
    const measured = many.opsPerS / one.opsPerS;
    const goal = n === 3 ? (measured >= SCALING_GOAL ? ' (goal ≥ ×2.5: met)' : ' (goal ≥ ×2.5: not met here)') : '';
    lines.push(
      `${name}: measured ×${fmtRatio(measured)} on ${cores} cores${goal}; server CPU per write ` +
        `${fmt(one.serverMs)} → ${fmt(many.serverMs)} ms (×${fmtRatio(many.serverMs / one.serverMs)}), ` +
        `lock waits ${fmt(one.lockWaitMs)} → ${fmt(many.lockWaitMs)} ms per write`,
    );
    const ratios = (lockBound: boolean) =>
      ESTIMATE_CORES.map((c) => {
        const [a, b] = lockBound
          ? [many, one]
          : [
              { ...many, advisoryHeldMs: 0 },
              { ...one, advisoryHeldMs: 0 },
            ];
        return `${c} cores ×${fmtRatio(estimatedRate(a, c) / estimatedRate(b, c))}`;
      }).join(', ');
    lines.push(
      `  ESTIMATE (not measured), from these per-write costs, writes spread over many projects: ${ratios(false)} ` +
        `(one replica tops out near ${fmt(1000 / one.mainThreadMs)} writes/s, its event loop's ` +
        `${fmt(one.mainThreadMs)} ms per write)`,
    );
    if (many.advisoryHeldMs > 0) {
      lines.push(
        `  ESTIMATE for one project's writes, through its quota lock (held ${fmt(many.advisoryHeldMs)} ms per write ` +
          `with ${n} replicas on this loaded machine, so pessimistic): ${ratios(true)}`,
      );
    }
  }
  return lines;
}

/** The waits behind the lock-wait figures: each run's statements that waited longest. */
function waiterNotes(runs: Run[]): string[] {
  return runs.flatMap((r) =>
    r.scaling.phases.flatMap((p) =>
      p.db.topWaiters
        .slice(0, 3)
        .map((w) => `${r.target.label}, ${p.phase}: waited ${w.seconds.toFixed(2)} s in ${w.query}`),
    ),
  );
}

export interface ScalingReport {
  text: string;
  markdown: string;
}

/** Undefined when no target ran the write-scaling workload. */
export function buildScalingReport(targets: TargetResult[]): ScalingReport | undefined {
  const runs = runsOf(targets);
  if (!runs.length) return undefined;
  const columns = runs.map((r, i) => `${r.target.label}${runs.length > 2 ? ` #${i + 1}` : ''}`);
  const rows = [...phaseRows(runs, 'port-create'), ...phaseRows(runs, 'port-delete')];
  rows.unshift(['concurrent clients', ...runs.map((r) => String(r.scaling.concurrency))]);
  rows.push(['duplicate IPs/MACs', ...runs.map((r) => String(r.scaling.duplicates))]);
  const groups: ColumnGroup[] = [{ label: 'write scaling', columns: ['', ...columns] }];
  const lines = summary(runs);
  const notes = waiterNotes(runs);
  const text = [
    renderText(groups, rows),
    '',
    ...lines,
    ...(notes.length ? ['lock waits:', ...notes.map((n) => `  ${n}`)] : []),
  ];
  const markdown = [
    renderMarkdown([{ label: '', columns: ['write scaling', ...columns] }], rows),
    '',
    ...lines.map((l) => `- ${l.trim()}`),
    ...notes.map((n) => `- lock wait: ${n}`),
  ];
  return { text: text.join('\n'), markdown: markdown.join('\n') };
}
