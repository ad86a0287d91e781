/**
 * The real Neutron column: either run live on the shared anchor (../shared/anchors/neutron-zed:
 * start.sh, which is idempotent, then the workload through bench-anchor.sh, which accounts the CPU
 * of neutron-server, its PostgreSQL and OVN), or reused from an earlier run's JSON. Never stops
 * or wipes the anchor: other people use it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { logTail, readApiBenchJson, runLogged, type ApiBenchResult, type TargetResult } from './api-bench.js';
import type { RunContext } from './octonet-target.js';
import { workloadArgs } from './options.js';
import { ProcessMeter, type ProcessGroup } from './process-meter.js';

/** Where start.sh keeps its state and pidfiles. */
const ANCHOR_STATE = '/tmp/anchor-zed';
/** The anchor README: neutron-server and its 6 workers hold about 1.2 GiB RSS after start-up. */
export const NEUTRON_RSS_BASELINE = { MiB: 1.2 * 1024, note: '1.2 GiB over 7 processes (anchor README)' };

export const anchorDir = (repoRoot: string) => resolve(repoRoot, '..', 'shared', 'anchors', 'neutron-zed');
export const defaultNeutronResults = (repoRoot: string) => join(anchorDir(repoRoot), 'bench-results', 'run1.json');

/** Whether start.sh can run here, and if not why. */
export function anchorRunnable(repoRoot: string): { runnable: boolean; reason: string } {
  if (!existsSync(join(anchorDir(repoRoot), 'start.sh'))) return { runnable: false, reason: 'no anchor start.sh' };
  if (spawnSync('sh', ['-c', 'command -v neutron-server']).status !== 0) {
    return { runnable: false, reason: 'neutron-server is not installed' };
  }
  if (process.getuid?.() !== 0) return { runnable: false, reason: 'start.sh needs root' };
  return { runnable: true, reason: 'anchor runnable' };
}

const readPid = (file: string) => Number(readFileSync(join(ANCHOR_STATE, file), 'utf8').split('\n')[0]);

/** The same groups bench-anchor.sh accounts CPU for; here for RSS. */
function anchorGroups(): ProcessGroup[] {
  return [
    { name: 'neutron-server', root: readPid('run/neutron-server.pid') },
    { name: 'postgresql', root: readPid('pg/postmaster.pid') },
    { name: 'ovsdb-nb', root: readPid('run/ovnnb_db.pid') },
    { name: 'ovsdb-sb', root: readPid('run/ovnsb_db.pid') },
    { name: 'ovn-northd', root: readPid('run/ovn-northd.pid') },
  ];
}

function cpuFromAnchor(bench: ApiBenchResult | null): TargetResult['cpu'] {
  if (!bench?.server_cpu_s) return undefined;
  const groups = Object.fromEntries(Object.entries(bench.server_cpu_s).filter(([k]) => k !== 'total'));
  return { groups, server: 'neutron-server' };
}

const baselineRss = (): TargetResult['rss'] => ({
  groups: { 'neutron-server': NEUTRON_RSS_BASELINE.MiB },
  server: 'neutron-server',
  totalMiB: NEUTRON_RSS_BASELINE.MiB,
  baseline: NEUTRON_RSS_BASELINE.note,
});

export async function benchNeutronLive(ctx: RunContext, outFile: string): Promise<TargetResult> {
  const result: TargetResult = {
    name: 'neutron',
    label: 'Neutron Zed',
    source: 'measured',
    bench: null,
    exitCode: null,
  };
  const dir = anchorDir(ctx.repoRoot);
  const startLog = join(ctx.logsDir, 'neutron.start.txt');
  const driverLog = join(ctx.logsDir, 'neutron.api-bench.txt');
  try {
    process.stderr.write(`bench: Neutron Zed: start.sh (idempotent)\n`);
    const started = await runLogged('bash', [join(dir, 'start.sh')], startLog, ctx.verbose);
    if (started !== 0) throw new Error(`anchor start.sh failed (exit ${started}):\n${logTail(startLog)}`);
    process.stderr.write(`bench: Neutron Zed: bench-anchor.sh (about 25 min for the default workload)\n`);
    const meter = new ProcessMeter(anchorGroups());
    meter.start();
    result.exitCode = await runLogged(
      'bash',
      [join(dir, 'bench-anchor.sh'), outFile, ...workloadArgs(ctx.workload)],
      driverLog,
      ctx.verbose,
    );
    const cost = meter.stop();
    result.bench = readApiBenchJson(outFile);
    result.sourceFile = outFile;
    result.cpu = cpuFromAnchor(result.bench);
    result.rss = {
      groups: cost.rssPeakMiB,
      server: 'neutron-server',
      totalMiB: cost.rssPeakTotalMiB,
      pss: { groups: cost.pssPeakMiB, totalMiB: cost.pssPeakTotalMiB },
    };
    if (!result.bench)
      result.failure = `bench-anchor.sh wrote no results (exit ${result.exitCode}):\n${logTail(driverLog)}`;
  } catch (error) {
    result.failure = (error as Error).message;
  }
  return result;
}

/** An earlier run: bench-anchor.sh's JSON, or the `neutron` target of one of our results files. */
export function loadNeutronResults(path: string): TargetResult {
  const reused: TargetResult = {
    name: 'neutron',
    label: `Neutron Zed (${basename(path)})`,
    source: 'reused',
    sourceFile: path,
    bench: null,
    exitCode: null,
  };
  if (!existsSync(path)) return { ...reused, failure: `no earlier Neutron results at ${path}` };
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as { targets?: TargetResult[] };
    if (Array.isArray(parsed.targets)) {
      const earlier = parsed.targets.find((t) => t.name === 'neutron');
      if (!earlier) return { ...reused, failure: `${path} has no neutron target` };
      return { ...earlier, label: reused.label, source: 'reused', sourceFile: path };
    }
    const bench = readApiBenchJson(path);
    if (!bench) return { ...reused, failure: `${path} is not api-bench.py JSON` };
    return { ...reused, bench, cpu: cpuFromAnchor(bench), rss: baselineRss() };
  } catch (error) {
    return { ...reused, failure: `cannot read ${path}: ${(error as Error).message}` };
  }
}
