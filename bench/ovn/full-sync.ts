/**
 * The start-up full pass over many ports. With the OVN-writing octonet stopped, a second `serve`
 * without OVN on the same SQLite file bulk-creates the ports (500 per request); the network's
 * logical switch, its DHCP rows and the port groups are then deleted from the NB, so the next
 * `serve` with OVN must write everything in its start-up pass. Its duration as octonet measured it
 * (`octonet_ovn_last_full_sync_seconds` and the summary log line) is the figure; then one more
 * restart over the complete NB (nothing to change). The goal: under 10 s.
 */
import { join } from 'node:path';
import type { Lab } from '../../src/lab/index.js';
import type { ProcessGroup } from '../api/process-meter.js';
import { CpuMeter } from './cpu.js';
import { NeutronApi } from './neutron-api.js';
import { LogFollower, startServe, type LogLine } from './octonet-serve.js';
import { now } from './stats.js';

export interface FullSyncPass {
  label: string;
  /** The summary line's message: "brought in line" (something changed) or "matches". */
  message: string;
  created: number;
  updated: number;
  deleted: number;
  unchanged: number;
  /** `seconds` of the summary log line. */
  logSeconds: number;
  /** `octonet_ovn_last_full_sync_seconds` after the pass. */
  metricSeconds: number | undefined;
  /** From the spawn of `./octonet serve` to the summary line (launcher, Node start-up, database, OVSDB connect, pass). */
  wallSeconds: number;
  /** LSPs on the network's switch once the pass was over. */
  lspsOnSwitch: number;
  /** After the pass: until `ovn-nbctl --wait=sb sync` returned (northd had caught up with the NB). */
  northdCatchUpSeconds: number | undefined;
  /** Full passes that followed the start-up one by themselves (trigger and seconds each), until quiet. */
  followUps: { trigger: string; seconds: number; changed: number }[];
  /** CPU-seconds per process from the spawn to the summary line. */
  cpuSeconds: Record<string, number>;
  /** CPU-seconds per process from the summary line until everything was quiet (northd, follow-up passes). */
  cpuAfterSeconds: Record<string, number>;
}

export interface FullSyncResult {
  /** Ports on the network in the database when the passes ran. */
  portsInDatabase: number;
  bulkCreateSeconds: number;
  /** Each bulk request of up to 500 ports, in order (the database grows between them). */
  bulkBatchSeconds: number[];
  passes: FullSyncPass[];
}

export interface FullSyncContext {
  repoRoot: string;
  /** The run's directory with octonet.db (the OVN-writing serve must be stopped). */
  dir: string;
  logsDir: string;
  lab: Lab;
  labGroups: ProcessGroup[];
  networkId: string;
  subnetId: string;
  ports: number;
  progress: (line: string) => void;
}

const BULK = 500;
const SUMMARY = ['OVN NB brought in line with the database', 'OVN NB matches the database'];
const PASS_TIMEOUT_MS = 600_000;

async function bulkCreate(
  ctx: FullSyncContext,
): Promise<{ seconds: number; batchSeconds: number[]; portsInDatabase: number }> {
  const serve = await startServe({
    repoRoot: ctx.repoRoot,
    dir: ctx.dir,
    logFile: join(ctx.logsDir, 'serve-no-ovn.log'),
    logLevel: 'warn',
  });
  const api = new NeutronApi(serve.baseUrl);
  try {
    const started = now();
    const batchSeconds: number[] = [];
    for (let done = 0; done < ctx.ports; done += BULK) {
      const batch = Math.min(BULK, ctx.ports - done);
      const t = now();
      await api.createPorts(
        Array.from({ length: batch }, (_, i) => ({ network_id: ctx.networkId, name: `sync-${done + i}` })),
      );
      batchSeconds.push((now() - t) / 1000);
      if ((done + batch) % 2000 === 0 || done + batch === ctx.ports)
        ctx.progress(`${done + batch}/${ctx.ports} ports in the database`);
    }
    const seconds = (now() - started) / 1000;
    return { seconds, batchSeconds, portsInDatabase: (await api.listPortIds(ctx.networkId)).length };
  } finally {
    api.close();
    await serve.stop();
  }
}

/** Removes the network's switch (its LSPs go with it), its DHCP rows and every port group. */
async function clearNb(ctx: FullSyncContext): Promise<void> {
  const { lab } = ctx;
  await lab.nbctl('--if-exists', 'ls-del', `neutron-${ctx.networkId}`);
  const dhcp = await lab.nbctl(
    '--bare',
    '--columns=_uuid',
    'find',
    'DHCP_Options',
    `external_ids:subnet_id="${ctx.subnetId}"`,
  );
  for (const uuid of dhcp.split(/\s+/).filter(Boolean)) await lab.nbctl('dhcp-options-del', uuid);
  const groups = await lab.nbctl('--bare', '--columns=name', 'list', 'Port_Group');
  for (const name of groups.split(/\s+/).filter((n) => n === 'neutron_pg_drop' || n.startsWith('pg_'))) {
    await lab.nbctl('pg-del', name);
  }
}

async function lspsOnSwitch(lab: Lab, networkId: string): Promise<number> {
  const ports = await lab.nbctl('--bare', '--columns=ports', 'list', 'Logical_Switch', `neutron-${networkId}`);
  return ports.split(/\s+/).filter(Boolean).length;
}

const isSummary = (line: LogLine) => SUMMARY.includes(line.msg);
/** How long no further pass must be logged before the restart counts as settled. */
const QUIET_MS = 3000;

async function onePass(ctx: FullSyncContext, label: string): Promise<FullSyncPass> {
  // Set from the spawn callback (a plain `let` would be narrowed to undefined below).
  const metered: { pass?: CpuMeter } = {};
  const groups = (pid: number) => [{ name: 'octonet', root: pid }, ...ctx.labGroups];
  const serve = await startServe({
    repoRoot: ctx.repoRoot,
    dir: ctx.dir,
    logFile: join(ctx.logsDir, `serve-full-sync-${label}.log`),
    logLevel: 'info',
    ovn: { nb: ctx.lab.nb, sb: ctx.lab.sb },
    onSpawn: (pid) => {
      metered.pass = new CpuMeter(groups(pid));
      metered.pass.start();
    },
  });
  const after = new CpuMeter(groups(serve.pid));
  const api = new NeutronApi(serve.baseUrl);
  const log = new LogFollower(serve);
  try {
    const start = await log.waitFor((l) => isSummary(l) && l.trigger === 'start', PASS_TIMEOUT_MS);
    const cpuSeconds = metered.pass?.stop() ?? {};
    after.start();
    // Read at once: a pass that follows overwrites the gauge.
    const metricSeconds = await api.metric('octonet_ovn_last_full_sync_seconds');
    const lsps = await lspsOnSwitch(ctx.lab, ctx.networkId);
    const waitStarted = now();
    const caughtUp = await ctx.lab.nbctl('--timeout=600', '--wait=sb', 'sync').then(
      () => (now() - waitStarted) / 1000,
      () => undefined,
    );
    await log.quiet(isSummary, QUIET_MS, PASS_TIMEOUT_MS);
    const cpuAfterSeconds = after.stop();
    const num = (line: LogLine, key: string) => Number(line[key] ?? 0);
    const line = start.line;
    return {
      label,
      message: line.msg,
      created: num(line, 'created'),
      updated: num(line, 'updated'),
      deleted: num(line, 'deleted'),
      unchanged: num(line, 'unchanged'),
      logSeconds: num(line, 'seconds'),
      metricSeconds,
      wallSeconds: (line.time - serve.spawnedAt) / 1000,
      lspsOnSwitch: lsps,
      northdCatchUpSeconds: caughtUp,
      followUps: log.records
        .slice(start.index + 1)
        .filter(isSummary)
        .map((l) => ({
          trigger: String(l.trigger),
          seconds: num(l, 'seconds'),
          changed: num(l, 'created') + num(l, 'updated') + num(l, 'deleted'),
        })),
      cpuSeconds,
      cpuAfterSeconds,
    };
  } finally {
    metered.pass?.stop();
    after.stop();
    api.close();
    await serve.stop();
  }
}

export async function measureFullSync(ctx: FullSyncContext): Promise<FullSyncResult> {
  const bulk = await bulkCreate(ctx);
  ctx.progress(`${bulk.portsInDatabase} ports on the network in ${bulk.seconds.toFixed(1)} s; clearing the NB`);
  await clearNb(ctx);
  const passes: FullSyncPass[] = [];
  passes.push(await onePass(ctx, 'empty-nb'));
  ctx.progress(`first pass: ${passes[0]!.logSeconds.toFixed(2)} s; restarting over the complete NB`);
  passes.push(await onePass(ctx, 'complete-nb'));
  return {
    portsInDatabase: bulk.portsInDatabase,
    bulkCreateSeconds: bulk.seconds,
    bulkBatchSeconds: bulk.batchSeconds,
    passes,
  };
}
