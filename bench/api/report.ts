/**
 * The comparison as the lead reads it: per-phase latencies and throughput side by side with the
 * octonet/Neutron ratios, server cost (CPU-seconds, peak RSS), api-bench's correctness checks,
 * the goals, and notes on anything that makes figures incomparable. Text for the terminal and
 * Markdown for a closing note, from the same rows.
 */
import type { PhaseSummary, TargetResult } from './api-bench.js';
import {
  cpuTotal,
  evaluateGoals,
  fmtRatio,
  phaseOf,
  phaseOrder,
  ratio,
  requestCount,
  sameWorkload,
  ROUTER_PHASES,
  type GoalCheck,
} from './compare.js';
import { buildScalingReport } from './scaling-report.js';
import { renderMarkdown, renderText, type ColumnGroup } from './tables.js';

const DASH = '—';
const fmtNum = (n: number | undefined) =>
  n === undefined ? DASH : n >= 1000 ? n.toFixed(0) : n >= 100 ? n.toFixed(1) : n.toFixed(2);
const fmtMiB = (n: number | undefined) => (n === undefined ? DASH : n.toFixed(0));
const fmtX = (r: number | undefined) => (r === undefined ? DASH : `×${fmtRatio(r)}`);
const shortLabel = (t: TargetResult) => (t.name === 'neutron' ? 'Neutron' : t.label.replace(/^octonet /, ''));

/** Which of the server-side groups a process group belongs to. */
/** Replicas (`octonet-2`, …) and the haproxy in front of them count as the API server. */
function category(t: TargetResult, group: string): 'server' | 'database' | 'ovn' {
  const server = t.cpu?.server ?? t.rss?.server;
  if (group === server || group.startsWith(`${server}-`) || group === 'haproxy') return 'server';
  return group === 'postgresql' ? 'database' : 'ovn';
}

function sumCategory(t: TargetResult, values: Record<string, number> | undefined, cat: string): number | undefined {
  if (!values) return undefined;
  const hits = Object.entries(values).filter(([g]) => category(t, g) === cat);
  return hits.length ? hits.reduce((s, [, v]) => s + v, 0) : undefined;
}

const workloadOf = (t: TargetResult) =>
  t.bench ? `ports=${t.bench.ports} conc=${t.bench.concurrency} fips=${t.bench.fips}` : DASH;

function phaseTables(neutron: TargetResult | undefined, octonets: TargetResult[]) {
  const all = [...(neutron ? [neutron] : []), ...octonets];
  // Router and floating-IP rows only where some octonet run was asked for them (--fips > 0).
  const routerRows = octonets.some((o) => (o.bench?.fips ?? 0) > 0);
  const phases = phaseOrder(all).filter((p) => routerRows || !ROUTER_PHASES.has(p));
  const base = (p: PhaseSummary | undefined) => [fmtNum(p?.median_ms), fmtNum(p?.p99_ms), fmtNum(p?.ops_per_s)];
  const textGroups: ColumnGroup[] = [{ label: '', columns: ['phase'] }];
  const mdGroups: ColumnGroup[] = [{ label: '', columns: ['phase'] }];
  if (neutron) {
    textGroups.push({ label: neutron.label, columns: ['n', 'med ms', 'p99 ms', 'ops/s', 'err'] });
    mdGroups.push({ label: 'Neutron', columns: ['med ms', 'p99 ms', 'ops/s'] });
  }
  for (const o of octonets) {
    textGroups.push({ label: o.label, columns: ['n', 'med ms', 'p99 ms', 'ops/s', 'ops ×', 'p99 ×', 'err'] });
    mdGroups.push({
      label: shortLabel(o),
      columns: ['med ms', neutron ? 'p99 ms (×)' : 'p99 ms', neutron ? 'ops/s (×)' : 'ops/s'],
    });
  }
  const textRows: string[][] = [];
  const mdRows: string[][] = [];
  for (const phase of phases) {
    const n = phaseOf(neutron, phase);
    const text = [phase];
    const md = [phase];
    if (neutron) {
      text.push(n ? String(n.count) : DASH, ...base(n), n ? String(n.errors) : DASH);
      md.push(...base(n).map((c, i) => (i === 2 && n?.errors ? `${c} ⚠ ${n.errors} err` : c)));
    }
    for (const t of octonets) {
      const o = phaseOf(t, phase);
      const opsX = ratio(o?.ops_per_s, n?.ops_per_s);
      const p99X = ratio(o?.p99_ms, n?.p99_ms);
      text.push(o ? String(o.count) : DASH, ...base(o), fmtX(opsX), fmtX(p99X), o ? String(o.errors) : DASH);
      const [med, p99, ops] = base(o);
      const err = o?.errors ? ` ⚠ ${o.errors} err` : '';
      md.push(
        med!,
        neutron && p99X !== undefined ? `${p99} (${fmtX(p99X)})` : p99!,
        (neutron && opsX !== undefined ? `${ops} (${fmtX(opsX)})` : ops!) + err,
      );
    }
    textRows.push(text);
    mdRows.push(md);
  }
  return { text: renderText(textGroups, textRows), markdown: renderMarkdown(mdGroups, mdRows) };
}

function costTables(targets: TargetResult[]) {
  const rows: string[][] = [];
  const row = (name: string, cell: (t: TargetResult) => string) => rows.push([name, ...targets.map(cell)]);
  for (const [cat, name] of [
    ['server', 'CPU-s API server'],
    ['database', 'CPU-s PostgreSQL'],
    ['ovn', 'CPU-s OVN (NB, SB, northd)'],
  ] as const) {
    row(name, (t) => fmtNum(sumCategory(t, t.cpu?.groups, cat)));
  }
  row('CPU-s total', (t) => fmtNum(cpuTotal(t)));
  row('CPU-ms per request', (t) => {
    const cpu = cpuTotal(t);
    return cpu === undefined || !requestCount(t.bench) ? DASH : fmtNum((cpu * 1000) / requestCount(t.bench));
  });
  for (const [cat, name] of [
    ['server', 'peak RSS API server MiB'],
    ['database', 'peak RSS PostgreSQL MiB'],
    ['ovn', 'peak RSS OVN MiB'],
  ] as const) {
    row(name, (t) => {
      const v = fmtMiB(sumCategory(t, t.rss?.groups, cat));
      return cat === 'server' && t.rss?.baseline ? `${v} (baseline)` : v;
    });
  }
  row('peak RSS total MiB', (t) => (t.rss?.baseline ? DASH : fmtMiB(t.rss?.totalMiB)));
  for (const [cat, name] of [
    ['server', 'peak PSS API server MiB'],
    ['database', 'peak PSS PostgreSQL MiB'],
    ['ovn', 'peak PSS OVN MiB'],
  ] as const) {
    row(name, (t) => fmtMiB(sumCategory(t, t.rss?.pss?.groups, cat)));
  }
  row('peak PSS total MiB', (t) => fmtMiB(t.rss?.pss?.totalMiB));
  row('requests', (t) => String(requestCount(t.bench)));
  row('workload wall s', (t) => fmtNum(t.bench?.total_wall_s));
  row('workload', workloadOf);
  row('uniqueness (IPs, MACs)', (t) => t.bench?.uniqueness?.result ?? DASH);
  row('filter check', (t) => t.bench?.filter_check ?? DASH);
  row('source', (t) => (t.source === 'reused' ? `reused ${t.bench?.time ?? ''}`.trim() : 'measured now'));
  const groups: ColumnGroup[] = [{ label: '', columns: ['server side', ...targets.map((t) => t.label)] }];
  const mdGroups: ColumnGroup[] = [{ label: '', columns: ['', ...targets.map(shortLabel)] }];
  return { text: renderText(groups, rows), markdown: renderMarkdown(mdGroups, rows) };
}

function goalTables(goals: Map<TargetResult, GoalCheck[]>) {
  const targets = [...goals.keys()];
  const names = goals.get(targets[0]!)?.map((g) => g.goal) ?? [];
  const mark = (check: GoalCheck | undefined, md: boolean) => {
    if (!check) return DASH;
    if (check.met === undefined) return md ? '–' : 'n/a';
    return check.met ? (md ? '✅' : 'met') : md ? '❌' : 'NOT MET';
  };
  // The terminal gets marks in the table and the details below it; Markdown cells wrap.
  const textRows = names.map((goal, i) => [goal, ...targets.map((t) => mark(goals.get(t)![i], false))]);
  const details = targets.flatMap((t) =>
    goals
      .get(t)!
      .filter((g) => g.detail)
      .map((g) => `  ${t.label}, ${g.goal}: ${g.detail}`),
  );
  const mdRows = names.map((goal, i) => [
    goal,
    ...targets.map((t) => {
      const check = goals.get(t)![i];
      return check?.detail ? `${mark(check, true)} ${check.detail}` : mark(check, true);
    }),
  ]);
  return {
    text: [renderText([{ label: '', columns: ['goal', ...targets.map((t) => t.label)] }], textRows), ...details].join(
      '\n',
    ),
    markdown: renderMarkdown([{ label: '', columns: ['goal', ...targets.map(shortLabel)] }], mdRows),
  };
}

function notes(neutron: TargetResult | undefined, octonets: TargetResult[]): string[] {
  const out: string[] = [];
  if (!neutron) out.push('no Neutron figures: ratios and goals cannot be judged');
  else if (neutron.source === 'reused') out.push(`Neutron figures reused from ${neutron.sourceFile}`);
  if (
    octonets.every((o) => (o.bench?.fips ?? 0) === 0) &&
    neutron?.bench?.phases.some((p) => ROUTER_PHASES.has(p.phase))
  ) {
    out.push("Neutron's router and floating-IP phases are left out: octonet ran with --fips 0");
  }
  const warmed = octonets.filter((o) => o.warmedUp).map((o) => o.label);
  if (warmed.length) {
    out.push(
      `${warmed.join(', ')}: started fresh, then warmed up with an unmeasured 20-port copy of the workload ` +
        '(--no-warmup measures them cold); Neutron had been serving requests before its run',
    );
  }
  for (const o of octonets) {
    if (neutron?.bench && o.bench && !sameWorkload(o.bench, neutron.bench)) {
      out.push(
        `${o.label}: workload differs from Neutron's (${workloadOf(o)} vs ${workloadOf(neutron)}): list ` +
          'latencies grow with the number of ports, so CPU is compared per request',
      );
    }
  }
  for (const t of [...(neutron ? [neutron] : []), ...octonets]) {
    if (t.failure) out.push(`${t.label}: ${t.failure}`);
    for (const p of (t.bench?.phases ?? []).filter((p) => p.errors > 0).slice(0, 4)) {
      out.push(`${t.label}: ${p.phase}: ${p.errors} errors, e.g. ${JSON.stringify(p.error_samples[0]).slice(0, 300)}`);
    }
  }
  return out;
}

export interface Report {
  text: string;
  markdown: string;
  goals: Record<string, GoalCheck[]>;
}

/** `neutronRun` may lack figures (a failed run, a missing file): then only its failure is noted. */
export function buildReport(neutronRun: TargetResult | undefined, octonets: TargetResult[]): Report {
  const neutron = neutronRun?.bench ? neutronRun : undefined;
  const phases = phaseTables(neutron, octonets);
  const cost = costTables([...(neutron ? [neutron] : []), ...octonets]);
  const goalChecks = new Map(octonets.map((o) => [o, evaluateGoals(o, neutron)] as const));
  const goals = goalTables(goalChecks);
  const scaling = buildScalingReport(octonets);
  const noteLines = notes(neutron, octonets);
  if (neutronRun?.failure && !neutron) noteLines.push(`${neutronRun.label}: ${neutronRun.failure}`);
  const text = [
    phases.text,
    '',
    cost.text,
    '',
    goals.text,
    ...(scaling ? ['', scaling.text] : []),
    ...(noteLines.length ? ['', 'notes:', ...noteLines.map((n) => `  - ${n}`)] : []),
  ].join('\n');
  const markdown = [
    phases.markdown,
    '',
    cost.markdown,
    '',
    goals.markdown,
    ...(scaling ? ['', scaling.markdown] : []),
    ...(noteLines.length ? ['', ...noteLines.map((n) => `- ${n.replace(/\n/g, ' ')}`)] : []),
  ].join('\n');
  return { text, markdown, goals: Object.fromEntries([...goalChecks].map(([t, g]) => [t.name, g])) };
}
