/**
 * `npm run bench:ovn`: octonet writing a real OVN. Starts a 2-node lab and `octonet serve` on
 * SQLite with the OVN driver, makes a network and a /16 subnet, then takes, in order: port create →
 * ACTIVE (active.ts), port churn with NB transactions per write (churn.ts), LSP repair (repair.ts),
 * the start-up full pass (full-sync.ts), and the real Neutron's churn (neutron.ts). Prints the
 * tables (text and Markdown) and writes bench/ovn/results/<timestamp>.json. Everything it starts
 * it stops again, also on Ctrl-C or a failure. Expects dist/ built (bench/ovn/run runs scripts/setup).
 */
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { downLab, upLab, type Lab } from '../../src/lab/index.js';
import type { ProcessGroup } from '../api/process-meter.js';
import { deferUndo, wasInterrupted } from '../api/teardown.js';
import { optionsOrExit, repoRoot, runBench, startLabRun } from '../lab-run.js';
import { measureActive } from './active.js';
import { measureChurn } from './churn.js';
import { CpuMeter, labProcessGroups } from './cpu.js';
import { measureFullSync } from './full-sync.js';
import { openMonitors } from './monitors.js';
import { measureNeutron } from './neutron.js';
import { NeutronApi } from './neutron-api.js';
import { figureNotes } from './notes.js';
import { startServe } from './octonet-serve.js';
import { HELP, parseOvnBenchOptions, type OvnBenchOptions } from './options.js';
import { buildReport, type OvnBenchResults } from './report.js';
import { measureRepair } from './repair.js';

const LAB_NAME = 'octonet-bench';
const SUBNET_CIDR = '10.200.0.0/16';

const say = (line: string) => process.stderr.write(`bench: ${line}\n`);
const buildStamp = () => {
  const file = join(repoRoot, 'dist', '.build-stamp');
  return existsSync(file) ? statSync(file).mtimeMs : 0;
};

/** Runs one figure; a failure is recorded and the next figure still runs. */
async function attempt(results: OvnBenchResults, name: string, fn: () => Promise<void>): Promise<void> {
  if (wasInterrupted()) return;
  say(name);
  try {
    await fn();
  } catch (error) {
    results.failures.push(`${name}: ${(error as Error).message}`);
    say(`${name} failed: ${(error as Error).message}`);
  }
}

async function startLab(undo: Array<() => Promise<void>>): Promise<Lab> {
  const leftover = await downLab({ name: LAB_NAME });
  if (leftover.existed) say(`removed a leftover lab ${LAB_NAME}`);
  undo.unshift(deferUndo(async () => void (await downLab({ name: LAB_NAME }))));
  return upLab({ name: LAB_NAME, nodes: 2 });
}

async function run(options: OvnBenchOptions, logsDir: string): Promise<OvnBenchResults> {
  const results: OvnBenchResults = { failures: [], notes: [] };
  const undo: Array<() => Promise<void>> = [];
  const dir = mkdtempSync(join(tmpdir(), 'octonet-bench-ovn-'));
  undo.unshift(deferUndo(() => rmSync(dir, { recursive: true, force: true })));
  try {
    say(`lab ${LAB_NAME}: up (2 nodes)`);
    const lab = await startLab(undo);
    const nodeRunDirs = (await lab.status()).nodes.map((n) => n.runDir);
    const labGroups: ProcessGroup[] = await labProcessGroups(lab);
    const nbFile = join(lab.layout.centralDir, 'ovnnb_db.db');
    const serve = await startServe({
      repoRoot,
      dir,
      logFile: join(logsDir, 'serve.log'),
      logLevel: 'warn',
      ovn: { nb: lab.nb, sb: lab.sb },
    });
    undo.unshift(serve.stop);
    const api = new NeutronApi(serve.baseUrl);
    await api.raiseQuotas();
    const networkId = await api.createNetwork('bench-ovn');
    const subnetId = await api.createSubnet(networkId, SUBNET_CIDR);
    const monitors = await openMonitors({ nb: lab.nb, sb: lab.sb, nodeRunDirs });
    const closeMonitors = deferUndo(() => monitors.close());
    undo.unshift(closeMonitors);

    await attempt(results, `port create → ACTIVE, ${options.activeSamples} samples`, async () => {
      results.active = await measureActive(lab, api, monitors.events, networkId, options.activeSamples, say);
      results.failures.push(...results.active.failures.map((f) => `ACTIVE: ${f}`));
      const notDown = results.active.samples.filter((s) => !s.downAfterUnplug).length;
      if (notDown) results.failures.push(`ACTIVE: ${notDown} ports did not turn DOWN after their VM was deleted`);
    });
    monitors.events.clear();

    await attempt(results, `port churn: ${options.ports} creates, updates, deletes`, async () => {
      const cpuSeconds: Record<string, Record<string, number>> = {};
      const meter = new CpuMeter([{ name: 'octonet', root: serve.pid }, ...labGroups]);
      const phases = await measureChurn({
        api,
        networkId,
        ports: options.ports,
        nbFile,
        readCounter: () => api.metric('octonet_ovn_nb_transactions_total'),
        onPhase: (phase, stage) => (stage === 'start' ? meter.start() : (cpuSeconds[phase] = meter.stop())),
      });
      results.churn = { phases, cpuSeconds };
    });
    monitors.events.clear();

    await attempt(results, `LSP repair, ${options.repairs} samples`, async () => {
      results.repair = await measureRepair(api, monitors, networkId, options.repairs);
      results.failures.push(...results.repair.failures.map((f) => `repair: ${f}`));
    });

    // The full pass runs without our monitors (they would take CPU from it) and without this serve.
    await closeMonitors();
    api.close();
    await serve.stop();
    await attempt(results, `full pass over ${options.fullSyncPorts} ports`, async () => {
      results.fullSync = await measureFullSync({
        repoRoot,
        dir,
        logsDir,
        lab,
        labGroups,
        networkId,
        subnetId,
        ports: options.fullSyncPorts,
        progress: say,
      });
    });
  } catch (error) {
    results.failures.push(`setup: ${(error as Error).message}`);
    say(`failed: ${(error as Error).message}`);
  } finally {
    // The lab goes before Neutron runs: its daemons would otherwise share the CPU with it.
    for (const step of undo) await step().catch((e: Error) => say(`cleanup failed: ${e.message}`));
  }
  const neutronWork = options.skipNeutron ? 'skipped' : `${options.neutronPorts} creates, updates, deletes`;
  await attempt(results, `Neutron anchor: ${neutronWork}`, async () => {
    results.neutron = await measureNeutron(repoRoot, logsDir, options.neutronPorts, options.skipNeutron);
    if (results.neutron.failure) results.failures.push(`Neutron: ${results.neutron.failure}`);
  });
  results.notes.push(...figureNotes(results));
  return results;
}

async function main(): Promise<number> {
  const parsed = optionsOrExit(parseOvnBenchOptions, HELP);
  if ('exit' in parsed) return parsed.exit;
  const { options } = parsed;
  const { logsDir, resultsFile } = startLabRun('bench:ovn', options.resultsDir);
  const builtBefore = buildStamp();
  const results = await run(options, logsDir);
  if (wasInterrupted()) return 130;
  if (buildStamp() !== builtBefore) {
    results.notes.push(
      'the launcher rebuilt dist/ during the run (src/ changed meanwhile): later figures ran newer code',
    );
  }
  const report = buildReport(results);
  writeFileSync(
    resultsFile,
    JSON.stringify(
      {
        time: new Date().toISOString(),
        machine: { cpus: cpus().length, loadavg: loadavg() },
        options,
        results,
        goals: report.goals,
        markdown: report.markdown,
      },
      null,
      1,
    ) + '\n',
  );
  process.stdout.write(
    `\noctonet + OVN (lab: 2 nodes, OVN 23.03, userspace datapath; octonet serve on SQLite); ${cpus().length} CPUs\n` +
      `ACTIVE samples ${options.activeSamples}, churn ${options.ports} ports, repairs ${options.repairs}, ` +
      `full pass ${options.fullSyncPorts} ports, Neutron ${options.skipNeutron ? 'skipped' : `${options.neutronPorts} ports`}\n\n` +
      report.text +
      '\n\nMarkdown (for a closing note):\n\n' +
      report.markdown +
      `\n\nresults: ${resultsFile}\nlogs:    ${logsDir}\n`,
  );
  return 0;
}

runBench(main);
