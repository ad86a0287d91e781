/**
 * The figures as the lead reads them: latencies (median, p99, min, max, n), API writes with NB
 * transactions per write for octonet and Neutron, the full passes, where the CPU went, the goals,
 * and notes on what the figures include. Text for the terminal and Markdown for a closing note,
 * from the same rows (bench/api's table rendering).
 */
import { type ColumnGroup } from '../api/tables.js';
import { renderGoalsReport, type Goal } from '../goals-report.js';
import type { ActiveResult } from './active.js';
import type { ChurnPhase } from './churn.js';
import type { FullSyncResult } from './full-sync.js';
import type { NeutronResult } from './neutron.js';
import type { RepairResult } from './repair.js';
import { summarize, type Summary } from './stats.js';

export interface OvnBenchResults {
  active?: ActiveResult;
  churn?: { phases: ChurnPhase[]; cpuSeconds: Record<string, Record<string, number>> };
  repair?: RepairResult;
  fullSync?: FullSyncResult;
  neutron?: NeutronResult;
  /** Figures that could not be taken, and why. */
  failures: string[];
  notes: string[];
}

export type { Goal } from '../goals-report.js';

const DASH = '—';
const fmt = (n: number | undefined) =>
  n === undefined || !Number.isFinite(n) ? DASH : n >= 1000 ? n.toFixed(0) : n >= 100 ? n.toFixed(1) : n.toFixed(2);
const perWrite = (txns: number | undefined, writes: number | undefined) =>
  txns === undefined || !writes ? DASH : (txns / writes).toFixed(2);

function latencyRow(figure: string, unit: string, s: Summary | undefined): string[] {
  return [figure, unit, s ? String(s.n) : '0', fmt(s?.median), fmt(s?.p99), fmt(s?.min), fmt(s?.max)];
}

function latencyRows(r: OvnBenchResults): string[][] {
  const rows: string[][] = [];
  const samples = r.active?.samples ?? [];
  if (r.active) {
    const of = (pick: (s: (typeof samples)[number]) => number) => summarize(samples.map(pick));
    rows.push(
      latencyRow(
        'ACTIVE: claim (SB chassis set) − plugged',
        'ms',
        of((s) => s.claimMs),
      ),
      latencyRow(
        'ACTIVE: claim-done (SB up) − plugged',
        'ms',
        of((s) => s.claimDoneMs),
      ),
      latencyRow(
        'ACTIVE: NB LSP up (northd) − plugged',
        'ms',
        of((s) => s.nbUpMs),
      ),
      latencyRow(
        'ACTIVE: API status ACTIVE − plugged',
        'ms',
        of((s) => s.activeMs),
      ),
      latencyRow(
        'ACTIVE: API ACTIVE − NB up',
        'ms',
        of((s) => s.activeMs - s.nbUpMs),
      ),
      latencyRow(
        'ACTIVE: API ACTIVE − claim-done',
        'ms',
        of((s) => s.activeMs - s.claimDoneMs),
      ),
      latencyRow(
        'ACTIVE: ACTIVE / claim-done',
        '×',
        of((s) => s.ratio),
      ),
    );
  }
  if (r.repair) {
    rows.push(
      latencyRow('repair: LSP delete seen → insert seen', 'ms', summarize(r.repair.samples)),
      latencyRow('repair: LSP delete sent → insert seen', 'ms', summarize(r.repair.fromSentSamples)),
    );
  }
  for (const p of r.churn?.phases ?? []) rows.push(latencyRow(`octonet ${p.phase}`, 'ms', p.latency));
  for (const p of r.neutron?.phases ?? []) rows.push(latencyRow(`Neutron ${p.phase}`, 'ms', p.latency));
  return rows;
}

function churnRows(r: OvnBenchResults): string[][] {
  const rows: string[][] = [];
  const add = (target: string, phases: ChurnPhase[]) => {
    for (const p of phases) {
      const writes = p.latency?.n;
      rows.push([
        target,
        p.phase,
        String(writes ?? 0),
        fmt(p.opsPerSecond),
        p.nbFileTransactions === undefined ? 'compacted' : String(p.nbFileTransactions),
        perWrite(p.nbFileTransactions, writes),
        p.clientTransactions === undefined ? DASH : String(p.clientTransactions),
        perWrite(p.clientTransactions, writes),
        String(p.errors),
      ]);
    }
  };
  add('octonet', r.churn?.phases ?? []);
  add('Neutron', r.neutron?.phases ?? []);
  return rows;
}

function fullSyncRows(f: FullSyncResult): string[][] {
  return f.passes.map((p) => [
    p.label,
    String(f.portsInDatabase),
    String(p.created),
    String(p.updated),
    String(p.deleted),
    String(p.unchanged),
    fmt(p.logSeconds),
    fmt(p.metricSeconds),
    fmt(p.wallSeconds),
    fmt(p.northdCatchUpSeconds),
    p.followUps.length
      ? `${p.followUps.length} (${[...new Set(p.followUps.map((f) => f.trigger))].join(', ')}), ` +
        `${fmt(p.followUps.reduce((sum, f) => sum + f.seconds, 0))} s`
      : '0',
    String(p.lspsOnSwitch),
  ]);
}

function cpuTable(r: OvnBenchResults): { groups: ColumnGroup[]; rows: string[][] } | undefined {
  const columns: [string, Record<string, number>][] = [
    ...Object.entries(r.churn?.cpuSeconds ?? {}),
    ...(r.fullSync?.passes ?? []).flatMap((p): [string, Record<string, number>][] => [
      [`${p.label}: pass`, p.cpuSeconds],
      [`${p.label}: after`, p.cpuAfterSeconds],
    ]),
  ];
  if (columns.length === 0) return undefined;
  const names = [...new Set(columns.flatMap(([, c]) => Object.keys(c)))];
  const rows = names.map((name) => [name, ...columns.map(([, c]) => fmt(c[name]))]);
  rows.push(['total', ...columns.map(([, c]) => fmt(Object.values(c).reduce((a, b) => a + b, 0)))]);
  return { groups: [{ label: '', columns: ['CPU-seconds', ...columns.map(([label]) => label)] }], rows };
}

export function evaluateGoals(r: OvnBenchResults): Goal[] {
  const goals: Goal[] = [];
  const samples = r.active?.samples ?? [];
  const ratio = summarize(samples.map((s) => s.ratio));
  goals.push({
    goal: 'port ACTIVE within 2× of ovn-controller claim-done (median)',
    value: ratio
      ? `×${ratio.median.toFixed(2)} median, ${samples.filter((s) => s.ratio <= 2).length}/${samples.length} samples ≤ 2×`
      : DASH,
    met: ratio ? ratio.median <= 2 : undefined,
  });
  const repair = summarize(r.repair?.fromSentSamples ?? []);
  goals.push({
    goal: 'deleted LSP repaired under 1 s (every sample, from the delete sent)',
    value: repair ? `max ${fmt(repair.max)} ms, median ${fmt(repair.median)} ms` : DASH,
    met: repair ? repair.max < 1000 && (r.repair?.failures.length ?? 0) === 0 : undefined,
  });
  const first = r.fullSync?.passes[0];
  goals.push({
    goal: `full pass of ${r.fullSync?.portsInDatabase ?? '10,000'} ports into an empty NB under 10 s`,
    value: first ? `${fmt(first.logSeconds)} s` : DASH,
    met: first ? first.logSeconds < 10 && first.lspsOnSwitch >= (r.fullSync?.portsInDatabase ?? 0) : undefined,
  });
  return goals;
}

export interface Report {
  text: string;
  markdown: string;
  goals: Goal[];
}

export function buildReport(r: OvnBenchResults): Report {
  const sections: { title: string; groups: ColumnGroup[]; rows: string[][] }[] = [];
  sections.push({
    title: 'Latencies (p99 is the nearest rank: the maximum below 100 samples)',
    groups: [{ label: '', columns: ['figure', 'unit', 'n', 'median', 'p99', 'min', 'max'] }],
    rows: latencyRows(r),
  });
  const churn = churnRows(r);
  if (churn.length) {
    sections.push({
      title: 'API writes with OVN on (sequential, one client)',
      groups: [
        { label: '', columns: ['target', 'phase', 'n', 'ops/s'] },
        { label: 'NB file', columns: ['txns', 'per write'] },
        { label: 'client counter', columns: ['txns', 'per write'] },
        { label: '', columns: ['err'] },
      ],
      rows: churn,
    });
  }
  if (r.fullSync) {
    sections.push({
      title: 'Start-up full pass (octonet serve restarted on the same database)',
      groups: [
        { label: '', columns: ['NB before', 'ports in DB', 'created', 'updated', 'deleted', 'unchanged'] },
        { label: 'seconds', columns: ['pass (log)', 'gauge as read', 'spawn → done', 'northd after'] },
        { label: '', columns: ['passes that followed', 'LSPs on switch'] },
      ],
      rows: fullSyncRows(r.fullSync),
    });
  }
  const cpu = cpuTable(r);
  if (cpu) sections.push({ title: 'Where the CPU went', ...cpu });
  const goals = evaluateGoals(r);
  const notes = [...r.notes, ...r.failures];
  const { text, markdown } = renderGoalsReport(sections, goals, notes);
  return { text, markdown, goals };
}
