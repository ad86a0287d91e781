/**
 * `npm run bench:api`: the shared Neutron API workload (../shared/bench/api-bench.py) against
 * octonet on SQLite, octonet on PostgreSQL and the real Neutron, one after the other, then one
 * comparison table (text and Markdown) and the full results as bench/api/results/<timestamp>.json.
 * Expects dist/ to be built (bench/api/run runs scripts/setup first).
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { locateApiBench, type TargetResult } from './api-bench.js';
import { anchorRunnable, benchNeutronLive, defaultNeutronResults, loadNeutronResults } from './neutron-target.js';
import { benchOctonet, type RunContext } from './octonet-target.js';
import { HELP, parseBenchOptions, type BenchOptions } from './options.js';
import { buildReport } from './report.js';
import { buildScalingReport } from './scaling-report.js';
import { undoOnSignals, wasInterrupted } from './teardown.js';
import { runBench } from '../lab-run.js';

const repoRoot = resolve(fileURLToPath(import.meta.url), '..', '..', '..');

async function neutronColumn(options: BenchOptions, ctx: RunContext): Promise<TargetResult> {
  if (options.neutronResults) return loadNeutronResults(resolve(options.neutronResults));
  const anchor = anchorRunnable(repoRoot);
  if (!options.skipNeutron && anchor.runnable) {
    const live = await benchNeutronLive(ctx, join(ctx.logsDir, 'neutron.json'));
    if (live.bench) return live;
    process.stderr.write(`bench: the live Neutron run failed, reusing the default results: ${live.failure}\n`);
  } else {
    const why = options.skipNeutron ? '--skip-neutron' : anchor.reason;
    process.stderr.write(`bench: not running the Neutron anchor (${why}); reusing its earlier results\n`);
  }
  return loadNeutronResults(defaultNeutronResults(repoRoot));
}

/** --scaling-only: one PostgreSQL replica and N, alternated `scalingRounds` times, and their comparison. */
async function scalingOnly(options: BenchOptions, ctx: RunContext, resultsFile: string): Promise<number> {
  if (options.replicas < 2) throw new Error('--scaling-only compares one replica with --replicas N (N ≥ 2)');
  const targets: TargetResult[] = [];
  for (let round = 0; round < options.scalingRounds; round++) {
    for (const replicas of [1, options.replicas]) {
      targets.push(await benchOctonet('postgres', ctx, replicas));
      if (wasInterrupted()) return 130;
    }
  }
  const report = buildScalingReport(targets);
  const failures = targets.filter((t) => t.failure).map((t) => `${t.label}: ${t.failure}`);
  const results = {
    time: new Date().toISOString(),
    machine: { cpus: cpus().length, availableParallelism: availableParallelism(), loadavg: loadavg() },
    options,
    targets,
    markdown: report?.markdown,
  };
  writeFileSync(resultsFile, JSON.stringify(results, null, 1) + '\n');
  process.stdout.write(
    `\n${report?.text ?? 'no write-scaling figures'}\n` +
      (failures.length ? `\nfailures:\n${failures.join('\n')}\n` : '') +
      `\nMarkdown (for a closing note):\n\n${report?.markdown ?? ''}\n\nresults: ${resultsFile}\nlogs:    ${ctx.logsDir}\n`,
  );
  return failures.length ? 1 : 0;
}

async function main(): Promise<number> {
  let options: BenchOptions | undefined;
  try {
    options = parseBenchOptions(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`bench: ${(error as Error).message}\n\n${HELP}\n`);
    return 2;
  }
  if (!options) {
    process.stdout.write(HELP + '\n');
    return 0;
  }
  const apiBench = locateApiBench(repoRoot);
  const dist = resolve(options.serverDist ?? join(repoRoot, 'dist'));
  if (!existsSync(join(dist, 'cli/main.js'))) {
    throw new Error(`${dist}/cli/main.js is missing: build first (scripts/setup, or npm run bench:api)`);
  }
  undoOnSignals();
  const stamp = new Date()
    .toISOString()
    .replace(/[:.]/g, '-')
    .replace(/-\d{3}Z$/, 'Z');
  const resultsDir = resolve(repoRoot, options.resultsDir);
  const logsDir = join(resultsDir, `${stamp}.logs`);
  mkdirSync(logsDir, { recursive: true });
  const ctx: RunContext = {
    repoRoot,
    apiBench,
    workload: options.workload,
    logsDir,
    verbose: options.verbose,
    warmup: options.warmup,
    ovn: options.ovn,
    dist,
    apiBenchWorkload: !options.scalingOnly,
    ...(options.replicas > 1 && {
      scaling: { ports: options.scalingPorts, clientsPerReplica: options.workload.concurrency },
    }),
  };
  if (options.scalingOnly) return scalingOnly(options, ctx, join(resultsDir, `${stamp}.json`));

  const octonets: TargetResult[] = [];
  for (const backend of options.backends) {
    octonets.push(await benchOctonet(backend, ctx));
    if (wasInterrupted()) return 130;
  }
  if (options.replicas > 1) {
    octonets.push(await benchOctonet('postgres', ctx, options.replicas));
    if (wasInterrupted()) return 130;
  }
  const neutron = await neutronColumn(options, ctx);
  if (wasInterrupted()) return 130;

  const report = buildReport(neutron, octonets);
  const resultsFile = join(resultsDir, `${stamp}.json`);
  const results = {
    time: new Date().toISOString(),
    machine: { cpus: cpus().length, availableParallelism: availableParallelism(), loadavg: loadavg() },
    options,
    targets: [neutron, ...octonets],
    goals: report.goals,
    markdown: report.markdown,
  };
  writeFileSync(resultsFile, JSON.stringify(results, null, 1) + '\n');
  const w = options.workload;
  process.stdout.write(
    `\nNeutron API workload: ${w.ports} + ${w.ports} ports, concurrency ${w.concurrency}, ${w.fips} floating IPs, ` +
      `list reps ${w.listReps}, show reps ${w.showReps}; ${cpus().length} CPUs\n\n` +
      report.text +
      '\n\nMarkdown (for a closing note):\n\n' +
      report.markdown +
      `\n\nresults: ${resultsFile}\nlogs:    ${logsDir}\n`,
  );
  return 0;
}

runBench(main);
