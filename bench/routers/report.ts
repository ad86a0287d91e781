/**
 * The figures as the lead reads them: one latency table (n, min, median, p99, max) over every
 * figure, the failover runs one by one, the goal, notes, and the one-line summary. Text and
 * Markdown from the same rows (bench/api's table rendering, bench/ovn's summaries).
 */
import { type ColumnGroup } from '../api/tables.js';
import { renderGoalsReport, type Goal } from '../goals-report.js';
import { summarize, type Summary } from '../ovn/stats.js';
import type { BfdSetting, FailoverRun } from './failover.js';
import type { FipResult } from './fip.js';
import type { InterfaceResult } from './interface.js';

export interface RoutersBenchResults {
  fip?: FipResult;
  interface?: InterfaceResult;
  failover: FailoverRun[];
  /** Figures or rounds that could not be taken, and why. */
  failures: string[];
  notes: string[];
}

export type { Goal } from '../goals-report.js';

/** The goal for the gateway failover, and what lab.md measured with plain OVN. */
export const FAILOVER_GOAL_MS = 1500;
const SETTING_LABEL: Record<BfdSetting, string> = {
  'bfd-100ms': 'BFD 100 ms × 3',
  'ovn-default': 'OVN default BFD (1000 ms × 3)',
};
const LAB_MD_MS: Record<BfdSetting, number> = { 'bfd-100ms': 1280, 'ovn-default': 3820 };

const DASH = '—';
const fmt = (n: number | undefined) =>
  n === undefined || !Number.isFinite(n) ? DASH : n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2);
const defined = (values: (number | undefined)[]) => values.filter((v): v is number => v !== undefined);

function row(figure: string, unit: string, s: Summary | undefined): string[] {
  return [figure, unit, s ? String(s.n) : '0', fmt(s?.min), fmt(s?.median), fmt(s?.p99), fmt(s?.max)];
}

export const settingsRun = (r: RoutersBenchResults): BfdSetting[] => [...new Set(r.failover.map((f) => f.setting))];
const runsOf = (r: RoutersBenchResults, setting: BfdSetting) => r.failover.filter((f) => f.setting === setting);

function latencyRows(r: RoutersBenchResults): string[][] {
  const rows: string[][] = [];
  const fip = r.fip?.rounds ?? [];
  if (r.fip) {
    rows.push(
      row('floating IP: POST (create+associate) answered', 'ms', summarize(fip.map((s) => s.apiMs))),
      row('floating IP: status ACTIVE, from the POST', 'ms', summarize(defined(fip.map((s) => s.activeMs)))),
      row('floating IP: first reply through it, from the POST', 'ms', summarize(fip.map((s) => s.firstReplyMs))),
      row('floating IP: DELETE → last reply', 'ms', summarize(defined(fip.map((s) => s.deleteToLastReplyMs)))),
    );
  }
  const itf = r.interface?.rounds ?? [];
  if (r.interface) {
    rows.push(
      row('interface: PUT add_router_interface answered', 'ms', summarize(itf.map((s) => s.apiMs))),
      row('interface: first routed reply, from the PUT', 'ms', summarize(itf.map((s) => s.firstReplyMs))),
      row(
        'interface: remove_router_interface → last reply',
        'ms',
        summarize(defined(itf.map((s) => s.removeToLastReplyMs))),
      ),
    );
  }
  for (const setting of settingsRun(r)) {
    const runs = runsOf(r, setting);
    const label = `failover (${SETTING_LABEL[setting]})`;
    rows.push(
      row(`${label}: outage (longest reply gap)`, 'ms', summarize(runs.map((f) => f.outageMs))),
      row(`${label}: kill → replies again`, 'ms', summarize(runs.map((f) => f.killToResumedMs))),
      row(`${label}: echo requests lost`, 'pkts', summarize(runs.map((f) => f.lost))),
      row(`${label}: kill → l3-agents shows another active`, 'ms', summarize(defined(runs.map((f) => f.agentMovedMs)))),
    );
  }
  return rows;
}

function failoverRows(r: RoutersBenchResults): string[][] {
  return r.failover.map((f) => [
    SETTING_LABEL[f.setting],
    String(f.run),
    f.killed,
    f.newActive ?? DASH,
    f.bfdDetectMs === undefined ? DASH : String(f.bfdDetectMs),
    fmt(f.outageMs),
    fmt(f.killToResumedMs),
    String(f.lost),
    fmt(f.agentMovedMs),
  ]);
}

export function evaluateGoals(r: RoutersBenchResults): Goal[] {
  const outage = summarize(runsOf(r, 'bfd-100ms').map((f) => f.outageMs));
  return [
    {
      goal: `gateway failover outage ≤ ${FAILOVER_GOAL_MS / 1000} s median with BFD 100 ms`,
      value: outage ? `${(outage.median / 1000).toFixed(2)} s median, max ${(outage.max / 1000).toFixed(2)} s` : DASH,
      met: outage ? outage.median <= FAILOVER_GOAL_MS : undefined,
    },
  ];
}

/** `routers: fip→first packet median X ms, interface→routed median Y ms, failover outage median Z s`. */
export function summaryLine(r: RoutersBenchResults): string {
  const median = (values: number[]) => summarize(values)?.median;
  const ms = (n: number | undefined) => (n === undefined ? DASH : `${n.toFixed(0)} ms`);
  const parts = [
    `fip→first packet median ${ms(median((r.fip?.rounds ?? []).map((s) => s.firstReplyMs)))}`,
    `interface→routed median ${ms(median((r.interface?.rounds ?? []).map((s) => s.firstReplyMs)))}`,
  ];
  const settings = settingsRun(r);
  if (settings.length === 0) parts.push(`failover outage median ${DASH}`);
  for (const setting of settings) {
    const m = median(runsOf(r, setting).map((f) => f.outageMs));
    const goal =
      setting === 'bfd-100ms' && m !== undefined ? `, goal ≤ 1.5 s ${m <= FAILOVER_GOAL_MS ? 'met' : 'NOT MET'}` : '';
    parts.push(
      `failover outage median ${m === undefined ? DASH : `${(m / 1000).toFixed(2)} s`} (${SETTING_LABEL[setting]}${goal})`,
    );
  }
  return `routers: ${parts.join(', ')}`;
}

export interface Report {
  text: string;
  markdown: string;
  goals: Goal[];
  summary: string;
}

export function buildReport(r: RoutersBenchResults): Report {
  const sections: { title: string; groups: ColumnGroup[]; rows: string[][] }[] = [
    {
      title: 'Latencies (p99 is the nearest rank: the maximum below 100 samples)',
      groups: [{ label: '', columns: ['figure', 'unit', 'n', 'min', 'median', 'p99', 'max'] }],
      rows: latencyRows(r),
    },
  ];
  if (r.failover.length) {
    sections.push({
      title: 'Gateway failovers, one per fresh lab (ms)',
      groups: [
        { label: '', columns: ['BFD', 'run', 'killed', 'active after', 'BFD detect'] },
        { label: '', columns: ['outage', 'kill → replies', 'lost', 'kill → l3-agents'] },
      ],
      rows: failoverRows(r),
    });
  }
  const goals = evaluateGoals(r);
  const reference = settingsRun(r).map(
    (s) => `lab.md, plain OVN with ${SETTING_LABEL[s]}: outage median ${(LAB_MD_MS[s] / 1000).toFixed(2)} s`,
  );
  const notes = [...r.notes, ...reference, ...r.failures];
  const summary = summaryLine(r);
  const { text, markdown } = renderGoalsReport(sections, goals, notes);
  return { text, markdown, goals, summary };
}
