/**
 * `npm run bench:failover`: floating IPs on a load balancer's VIP across amphora failover, with
 * real VRRP on a 3-node OVN lab driven by octonet (cloud.ts from bench/routers; load-balancer.ts;
 * measure.ts). Per `ovn.vip_failover` mode, on its own lab: small NB then big NB (scale.ts), each
 * with keepalived at Octavia's defaults and at its fastest timers, `--rounds` failovers each. Prints the tables and, last, the line
 * `failover: rebind median <ms> ms, outage median <s> s`; writes bench/failover/results/<timestamp>.json.
 * Everything it starts it stops again, also on Ctrl-C or a failure (--keep-lab leaves the lab up).
 */
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { deferUndo, wasInterrupted } from '../api/teardown.js';
import { optionsOrExit, repoRoot, runBench, startLabRun, writeRunResults } from '../lab-run.js';
import { FIP_ADDRESS, startCloud } from '../routers/cloud.js';
import { Prober } from '../routers/prober.js';
import { LoadBalancer, VRRP_SETTINGS, type VrrpSetting } from './load-balancer.js';
import { measureFailoverRound, settledPair } from './measure.js';
import { HELP, parseFailoverBenchOptions, type FailoverBenchOptions, type VipFailoverMode } from './options.js';
import { buildReport, type FailoverBenchResults } from './report.js';
import { populateNb } from './scale.js';

const LAB_NAME = 'octonet-failover';
const SETTINGS: VrrpSetting[] = ['octavia-default', 'fastest'];
const say = (line: string) => process.stderr.write(`bench: ${line}\n`);

async function series(
  results: FailoverBenchResults,
  context: { lb: LoadBalancer; prober: Prober; cloud: Awaited<ReturnType<typeof startCloud>> },
  labels: { mode: VipFailoverMode; nb: string },
  rounds: number,
): Promise<void> {
  const { mode, nb } = labels;
  for (const setting of SETTINGS) {
    if (wasInterrupted()) return;
    say(`${mode}, ${nb}: keepalived ${VRRP_SETTINGS[setting].label}, ${rounds} failovers`);
    try {
      await context.lb.start(setting);
      await settledPair(context.lb);
      await context.prober.firstReplyAfter(Date.now(), 30_000, 'a reply through the floating IP');
    } catch (error) {
      results.failures.push(`${mode}, ${nb}, ${setting}: start: ${(error as Error).message}`);
      continue;
    }
    for (let round = 1; round <= rounds && !wasInterrupted(); round++) {
      try {
        const sample = await measureFailoverRound(context.lb, context.prober, context.cloud.api, {
          mode,
          nb,
          setting,
          round,
        });
        results.rounds.push(sample);
        say(
          `  round ${round}: killed ${sample.killed}: (a) ${sample.killToGarpMs.toFixed(0)} ms, ` +
            `(b) ${sample.garpToReplyMs.toFixed(1)} ms, (c) ${sample.outageMs.toFixed(0)} ms, ` +
            `(d) ${sample.garpToHostMs?.toFixed(0) ?? '—'} ms`,
        );
      } catch (error) {
        results.failures.push(`${mode}, ${nb}, ${setting}, round ${round}: ${(error as Error).message}`);
        say(`  round ${round} failed: ${(error as Error).message}`);
        break;
      }
    }
  }
}

/** One mode on its own lab: the small-NB series, then the NB filled, then the big-NB series. */
async function runMode(
  results: FailoverBenchResults,
  options: FailoverBenchOptions,
  mode: VipFailoverMode,
  logsDir: string,
): Promise<void> {
  say(`lab ${LAB_NAME} (3 nodes) and octonet serve with ovn.vip_failover ${mode}`);
  const cloud = await startCloud({
    repoRoot,
    logFile: join(logsDir, `serve-${mode}.log`),
    vms: [],
    say,
    labName: LAB_NAME,
    ovnConfig: { vip_failover: mode },
  });
  try {
    const lb = await LoadBalancer.create(cloud);
    const stopLb = deferUndo(() => lb.stop());
    const prober = new Prober(cloud.lab.outsideCommand([]), FIP_ADDRESS);
    try {
      await series(results, { lb, prober, cloud }, { mode, nb: 'small NB' }, options.rounds);
      if (options.ports > 0 && !wasInterrupted()) {
        say(`filling the NB: ${options.routers} routers with a network each, ${options.ports} ports`);
        const scale = await populateNb(cloud.lab, cloud.api, options, say);
        results.scale[mode] = scale;
        say(`  done in ${scale.seconds.toFixed(0)} s; SB has ${scale.sbLogicalFlows} logical flows`);
        await series(results, { lb, prober, cloud }, { mode, nb: 'big NB' }, options.rounds);
      }
    } finally {
      await prober.stop();
      await stopLb();
    }
  } finally {
    await cloud.close(options.keepLab && mode === options.modes.at(-1));
  }
}

async function run(options: FailoverBenchOptions, logsDir: string): Promise<FailoverBenchResults> {
  const results: FailoverBenchResults = { rounds: [], scale: {}, failures: [], notes: [] };
  for (const mode of options.modes) {
    if (wasInterrupted()) break;
    try {
      await runMode(results, options, mode, logsDir);
    } catch (error) {
      results.failures.push(`${mode}: ${(error as Error).message}`);
      say(`${mode} failed: ${(error as Error).message}`);
    }
  }
  if (options.keepLab) results.notes.push(`the lab ${LAB_NAME} was left up (octonet lab down --name ${LAB_NAME})`);
  return results;
}

async function main(): Promise<number> {
  const parsed = optionsOrExit(parseFailoverBenchOptions, HELP);
  if ('exit' in parsed) return parsed.exit;
  const { options } = parsed;
  const { logsDir, resultsFile } = startLabRun('bench:failover', options.resultsDir);
  const loadBefore = loadavg();
  const results = await run(options, logsDir);
  if (wasInterrupted()) return 130;
  const report = buildReport(results);
  writeRunResults(resultsFile, options, loadBefore, {
    results,
    goals: report.goals,
    markdown: report.markdown,
    summary: report.summary,
  });
  process.stdout.write(
    `\namphora failover on OVN (lab: 3 nodes, amphorae on node1 and node2, gateways node2 and node3, ` +
      `OVN 23.03, userspace datapath; octonet serve on SQLite; Debian's keepalived); ${cpus().length} CPUs\n` +
      `rounds ${options.rounds} per series; probe: ICMP echo to the floating IP every 5 ms (icmp-probe.py)\n\n` +
      report.text +
      '\n\nMarkdown (for a closing note):\n\n' +
      report.markdown +
      `\n\nresults: ${resultsFile}\nlogs:    ${logsDir}\n\n${report.summary.join('\n')}\n`,
  );
  return 0;
}

runBench(main);
