/**
 * octonet against Neutron, phase by phase: which phases are comparable, the ratios, and whether
 * the goals are met (ops/s ≥ 100× Neutron on every write phase and ≥ 20× on reads, p99 ≤
 * Neutron's p99 / 100, CPU-seconds ≤ Neutron's / 100, API server RSS ≤ Neutron's / 8). Pure
 * functions over TargetResults; rendering is report.ts.
 */
import type { ApiBenchResult, PhaseSummary, TargetResult } from './api-bench.js';

export const GOALS = { writeOps: 100, readOps: 20, p99: 100, cpu: 100, rss: 8 } as const;

/** api-bench.py phases that only run with --fips > 0. */
export const ROUTER_PHASES = new Set([
  'extnet-create',
  'extsubnet-create',
  'router-create',
  'router-add-interface',
  'fip-port-create',
  'fip-create',
  'fip-associate',
  'fip-disassociate',
  'fip-delete',
  'router-remove-interface',
  'router-delete',
  'extnet-delete',
]);

/** Lists and shows are reads; everything else the driver does (POST, PUT, DELETE) writes. */
export const isReadPhase = (phase: string) => /-(list|show)(-|$)/.test(phase);

export const phaseOf = (t: TargetResult | undefined, phase: string): PhaseSummary | undefined =>
  t?.bench?.phases.find((p) => p.phase === phase);

/** Every phase of any target, in the driver's order (merged: a missing phase goes after its predecessor). */
export function phaseOrder(targets: TargetResult[]): string[] {
  const order: string[] = [];
  for (const t of targets) {
    let at = 0;
    for (const p of t.bench?.phases ?? []) {
      const i = order.indexOf(p.phase);
      if (i >= 0) at = i + 1;
      else order.splice(at++, 0, p.phase);
    }
  }
  return order;
}

/** octonet / Neutron; undefined when either side is missing or zero. */
export function ratio(octonet: number | undefined, neutron: number | undefined): number | undefined {
  return octonet !== undefined && neutron !== undefined && neutron > 0 && octonet > 0 ? octonet / neutron : undefined;
}

export const requestCount = (b: ApiBenchResult | null) => (b?.phases ?? []).reduce((n, p) => n + p.count, 0);

export const cpuTotal = (t: TargetResult) =>
  t.cpu ? Object.values(t.cpu.groups).reduce((sum, s) => sum + s, 0) : undefined;

/** Whether two runs asked for the same workload (then CPU-seconds compare directly). */
export function sameWorkload(a: ApiBenchResult | null, b: ApiBenchResult | null): boolean {
  if (!a || !b) return false;
  const reps = (r: ApiBenchResult, phase: string) => r.phases.find((p) => p.phase === phase)?.count;
  return (
    a.ports === b.ports &&
    a.concurrency === b.concurrency &&
    a.fips === b.fips &&
    ['port-list-all', 'port-show'].every((p) => !reps(a, p) || !reps(b, p) || reps(a, p) === reps(b, p))
  );
}

export interface GoalCheck {
  goal: string;
  /** undefined: cannot be judged (no Neutron figures, or nothing to compare). */
  met: boolean | undefined;
  detail: string;
}

/** A ratio with about 3 significant digits: 312, 45.2, 1.53, 0.0041. */
export const fmtRatio = (r: number) =>
  r >= 100 ? r.toFixed(0) : r >= 10 ? r.toFixed(1) : r >= 1 ? r.toFixed(2) : r.toPrecision(2);

/**
 * Phase-wise goal: every phase Neutron ran (and octonet was asked to run) must pass. `margin` maps
 * a ratio to how far it is past the goal (≥ 1 passes); the detail names the misses or the closest.
 */
function phaseGoal(
  goal: string,
  phases: string[],
  octonet: TargetResult,
  neutron: TargetResult,
  value: (p: PhaseSummary) => number,
  margin: (r: number) => number,
): GoalCheck {
  if (phases.length === 0) return { goal, met: undefined, detail: 'no phase to compare' };
  const misses: string[] = [];
  let closest: { phase: string; r: number } | undefined;
  for (const phase of phases) {
    const o = phaseOf(octonet, phase);
    const r = o && ratio(value(o), value(phaseOf(neutron, phase)!));
    if (!o) misses.push(`${phase} not run`);
    else if (o.errors > 0) misses.push(`${phase} failed (${o.errors} error${o.errors > 1 ? 's' : ''})`);
    else if (r === undefined) continue;
    else if (margin(r) < 1) misses.push(`${phase} ×${fmtRatio(r)}`);
    else if (!closest || margin(r) < margin(closest.r)) closest = { phase, r };
  }
  if (misses.length)
    return { goal, met: false, detail: misses.slice(0, 4).join(', ') + (misses.length > 4 ? ', …' : '') };
  return { goal, met: true, detail: closest ? `closest: ${closest.phase} ×${fmtRatio(closest.r)}` : '' };
}

export function evaluateGoals(octonet: TargetResult, neutron: TargetResult | undefined): GoalCheck[] {
  const goals = [
    `write ops/s ≥ ${GOALS.writeOps}× Neutron`,
    `read ops/s ≥ ${GOALS.readOps}× Neutron`,
    `p99 ≤ Neutron p99 / ${GOALS.p99}`,
    `CPU-seconds ≤ Neutron / ${GOALS.cpu}`,
    `API server RSS ≤ Neutron / ${GOALS.rss}`,
  ];
  if (!neutron?.bench || !octonet.bench) {
    const why = !neutron?.bench ? 'no Neutron figures' : 'no octonet figures';
    return goals.map((goal) => ({ goal, met: undefined, detail: why }));
  }
  const skipRouter = octonet.bench.fips === 0;
  const compared = neutron.bench.phases.map((p) => p.phase).filter((p) => !(skipRouter && ROUTER_PHASES.has(p)));
  const writes = compared.filter((p) => !isReadPhase(p));
  const reads = compared.filter(isReadPhase);
  const checks = [
    phaseGoal(
      goals[0]!,
      writes,
      octonet,
      neutron,
      (p) => p.ops_per_s,
      (r) => r / GOALS.writeOps,
    ),
    phaseGoal(
      goals[1]!,
      reads,
      octonet,
      neutron,
      (p) => p.ops_per_s,
      (r) => r / GOALS.readOps,
    ),
    phaseGoal(
      goals[2]!,
      compared,
      octonet,
      neutron,
      (p) => p.p99_ms,
      (r) => 1 / (r * GOALS.p99),
    ),
  ];

  const oCpu = cpuTotal(octonet);
  const nCpu = cpuTotal(neutron);
  if (oCpu === undefined || nCpu === undefined) {
    checks.push({ goal: goals[3]!, met: undefined, detail: 'CPU not measured' });
  } else if (sameWorkload(octonet.bench, neutron.bench)) {
    const r = oCpu / nCpu;
    checks.push({
      goal: goals[3]!,
      met: r <= 1 / GOALS.cpu,
      detail: `${oCpu.toFixed(2)} s vs ${nCpu.toFixed(1)} s (×${fmtRatio(r)})`,
    });
  } else {
    const o = (oCpu * 1000) / requestCount(octonet.bench);
    const n = (nCpu * 1000) / requestCount(neutron.bench);
    const r = o / n;
    checks.push({
      goal: goals[3]!,
      met: r <= 1 / GOALS.cpu,
      detail: `per request (workloads differ): ${o.toPrecision(3)} ms vs ${n.toPrecision(3)} ms (×${fmtRatio(r)})`,
    });
  }

  const oRss = octonet.rss?.groups[octonet.rss.server];
  const nRss = neutron.rss?.groups[neutron.rss.server];
  if (oRss === undefined || nRss === undefined) {
    checks.push({ goal: goals[4]!, met: undefined, detail: 'RSS not measured' });
  } else {
    const r = oRss / nRss;
    const base = neutron.rss?.baseline ? ' (Neutron: baseline)' : '';
    checks.push({
      goal: goals[4]!,
      met: r <= 1 / GOALS.rss,
      detail: `${oRss.toFixed(0)} MiB vs ${nRss.toFixed(0)} MiB${base}`,
    });
  }
  return checks;
}
