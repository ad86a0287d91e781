/**
 * `npm run bench:routers`: routers and floating IPs with real packets on a 3-node OVN lab driven by
 * octonet. On one lab (cloud.ts): floating IP create+associate → first packet (fip.ts), then router
 * interface add → first routed packet (interface.ts); then gateway failovers, each on a fresh lab
 * (failover.ts), with BFD at 100 ms and, with --default-bfd, at OVN's defaults. Prints the tables
 * and the summary line, writes bench/routers/results/<timestamp>.json. Everything it starts it
 * stops again, also on Ctrl-C or a failure (--keep-lab leaves the last lab up). Expects dist/
 * built (bench/routers/run runs scripts/setup).
 */
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { wasInterrupted } from '../api/teardown.js';
import { optionsOrExit, repoRoot, runBench, startLabRun, writeRunResults } from '../lab-run.js';
import { LAB_NAME, startCloud } from './cloud.js';
import { measureFailover, type BfdSetting } from './failover.js';
import { measureFip } from './fip.js';
import { measureInterface } from './interface.js';
import { HELP, parseRoutersBenchOptions, type RoutersBenchOptions } from './options.js';
import { buildReport, type RoutersBenchResults } from './report.js';

const BFD_100MS = { minRx: 100, minTx: 100, mult: 3 };

const say = (line: string) => process.stderr.write(`bench: ${line}\n`);

/** Runs one figure; a failure is recorded and the next figure still runs. */
async function attempt(results: RoutersBenchResults, name: string, fn: () => Promise<void>): Promise<void> {
  if (wasInterrupted()) return;
  say(name);
  try {
    await fn();
  } catch (error) {
    results.failures.push(`${name}: ${(error as Error).message}`);
    say(`${name} failed: ${(error as Error).message}`);
  }
}

async function run(options: RoutersBenchOptions, logsDir: string): Promise<RoutersBenchResults> {
  const results: RoutersBenchResults = { failover: [], failures: [], notes: [] };
  const settings: BfdSetting[] = ['bfd-100ms', ...(options.defaultBfd ? (['ovn-default'] as const) : [])];
  const failovers = options.failoverRuns * settings.length;

  await attempt(results, `lab ${LAB_NAME} (3 nodes) and octonet serve, BFD 100 ms`, async () => {
    const cloud = await startCloud({
      repoRoot,
      logFile: join(logsDir, 'serve.log'),
      bfd: BFD_100MS,
      vms: ['left', 'right'],
      say,
    });
    try {
      await attempt(results, `floating IP create → first packet, ${options.rounds} rounds`, async () => {
        results.fip = await measureFip(cloud, options.rounds, say);
        results.failures.push(...results.fip.failures.map((f) => `floating IP: ${f}`));
      });
      await attempt(results, `router interface add → routed, ${options.rounds} rounds`, async () => {
        results.interface = await measureInterface(cloud, options.rounds, say);
        results.failures.push(...results.interface.failures.map((f) => `interface: ${f}`));
      });
    } finally {
      await cloud.close(options.keepLab && failovers === 0);
    }
  });

  let done = 0;
  for (const setting of settings) {
    for (let i = 1; i <= options.failoverRuns; i++) {
      done++;
      await attempt(results, `gateway failover (${setting}) ${i}/${options.failoverRuns} on a fresh lab`, async () => {
        const sample = await measureFailover({
          repoRoot,
          logFile: join(logsDir, `serve-failover-${setting}-${i}.log`),
          bfd: setting === 'bfd-100ms' ? BFD_100MS : undefined,
          // OVN's defaults: OVS's min_rx 1000 ms (min_tx 100 ms), mult 3.
          bfdDetectMs: setting === 'bfd-100ms' ? BFD_100MS.mult * BFD_100MS.minRx : 3 * 1000,
          setting,
          run: i,
          keepLab: options.keepLab && done === failovers,
          say,
        });
        results.failover.push(sample);
        say(
          `  killed ${sample.killed}: outage ${sample.outageMs.toFixed(0)} ms, ${sample.lost} lost, ` +
            `l3-agents moved after ${sample.agentMovedMs ?? '—'} ms`,
        );
      });
    }
  }
  if (options.keepLab) results.notes.push(`the lab ${LAB_NAME} was left up (octonet lab down --name ${LAB_NAME})`);
  return results;
}

async function main(): Promise<number> {
  const parsed = optionsOrExit(parseRoutersBenchOptions, HELP);
  if ('exit' in parsed) return parsed.exit;
  const { options } = parsed;
  const { logsDir, resultsFile } = startLabRun('bench:routers', options.resultsDir);
  const loadBefore = loadavg();
  const results = await run(options, logsDir);
  if (wasInterrupted()) return 130;
  const report = buildReport(results);
  writeRunResults(resultsFile, options, loadBefore, {
    results,
    goals: report.goals,
    summary: report.summary,
    markdown: report.markdown,
  });
  process.stdout.write(
    `\nrouters and floating IPs on OVN (lab: 3 nodes, gateways node2 and node3, OVN 23.03, userspace datapath; ` +
      `octonet serve on SQLite); ${cpus().length} CPUs\n` +
      `rounds ${options.rounds}, failover runs ${options.failoverRuns} per BFD setting; probes: ICMP echo every 5 ms (icmp-probe.py)\n\n` +
      report.text +
      '\n\nMarkdown (for a closing note):\n\n' +
      report.markdown +
      `\n\nresults: ${resultsFile}\nlogs:    ${logsDir}\n\n${report.summary}\n`,
  );
  return 0;
}

runBench(main);
