/**
 * One octonet target: a fresh `octonet serve` process (the built dist/, not tsx) on a SQLite file
 * in a temporary directory or on a database in a private PostgreSQL cluster, the workload run
 * against it, and the server's (and PostgreSQL's) CPU-seconds and peak RSS during the workload.
 * Everything it starts it stops again; a failure becomes a `failure` note, never an exception.
 *
 * With `replicas` > 1 (PostgreSQL only) several `serve` processes share the database behind
 * Debian's haproxy, round robin per request, the way a deployment puts them behind one endpoint.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, openSync, closeSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { startOvnCentral } from '../../test/fixtures/ovn-central.js';
import { freePort, startPostgresCluster } from '../../test/fixtures/postgres.js';
import { logTail, readApiBenchJson, runLogged, type TargetResult } from './api-bench.js';
import { workloadArgs, type Backend, type Workload } from './options.js';
import { ProcessMeter, statusKiB, type ProcessGroup } from './process-meter.js';
import { deferUndo, killGroup } from './teardown.js';
import { runWriteScaling } from './write-scaling.js';
import { LAUNCHER_ENV, LAUNCHER_NODE_FLAGS } from '../launcher.js';

export interface RunContext {
  repoRoot: string;
  apiBench: string;
  workload: Workload;
  /** Where server logs and api-bench.py's output go. */
  logsDir: string;
  verbose: boolean;
  /** Run a small unmeasured copy of the workload first (see --no-warmup). */
  warmup: boolean;
  /** Run octonet with the OVN driver against an OVN central of its own (see --ovn). */
  ovn: boolean;
  /** Run api-bench.py's workload (false with --scaling-only). */
  apiBenchWorkload: boolean;
  /** Run the write-scaling workload on PostgreSQL targets (see --replicas). */
  scaling?: { ports: number; clientsPerReplica: number };
  /** The built dist/ the servers run from. */
  dist: string;
}

/** The warm-up workload: every phase once or a few times, in a project of its own. */
const WARMUP_ARGS = ['--ports', '20', '--concurrency', '4', '--fips', '0', '--list-reps', '2', '--show-reps', '20'];

const LABELS: Record<Backend, string> = { sqlite: 'octonet SQLite', postgres: 'octonet PostgreSQL' };

/** An OVN central of the target's own; its daemons are metered as the anchor's are. */
function startCentral(groups: ProcessGroup[], undoSteps: Array<() => Promise<void>>): string[] {
  const central = startOvnCentral();
  undoSteps.unshift(deferUndo(async () => central.stop()));
  const pid = (name: string) => Number(readFileSync(join(central.dir, `${name}.pid`), 'utf8').trim());
  groups.push(
    { name: 'ovsdb-nb', root: pid('nb') },
    { name: 'ovsdb-sb', root: pid('sb') },
    { name: 'ovn-northd', root: pid('northd') },
  );
  return ['--ovn-nb', central.nb, '--ovn-sb', central.sb];
}
const STARTUP_TIMEOUT_MS = 30_000;

/** A new database in the cluster, and the pid of the cluster's postmaster (for CPU accounting). */
async function createBenchDatabase(adminUrl: string): Promise<{ url: string; postmasterPid: number }> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query('CREATE DATABASE octonet_bench');
    const { rows } = await admin.query<{ data_directory: string }>('SHOW data_directory');
    const pidLine = readFileSync(join(rows[0]!.data_directory, 'postmaster.pid'), 'utf8').split('\n')[0];
    return { url: adminUrl.replace(/\/[^/]*$/, '/octonet_bench'), postmasterPid: Number(pidLine) };
  } finally {
    await admin.end();
  }
}

async function waitForApi(baseUrl: string, server: ChildProcess, logFile: string): Promise<void> {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (server.exitCode !== null || server.signalCode !== null) {
      throw new Error(`octonet serve exited (${server.exitCode ?? server.signalCode}):\n${logTail(logFile)}`);
    }
    try {
      const response = await fetch(baseUrl + '/', { signal: AbortSignal.timeout(1000) });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`octonet serve did not answer GET / within ${STARTUP_TIMEOUT_MS / 1000} s:\n${logTail(logFile)}`);
}

/**
 * `octonet serve` from the built dist/, with the node flags and malloc settings the `octonet`
 * launcher runs it with (bench/launcher.ts). The launcher itself is not used: it runs
 * scripts/setup first, which bench/api/run has done already.
 */
function spawnServer(ctx: RunContext, port: number, database: string, stateDir: string, args: string[], log: string) {
  const logFd = openSync(log, 'a');
  const server = spawn(
    process.execPath,
    [
      ...LAUNCHER_NODE_FLAGS,
      join(ctx.dist, 'cli/main.js'),
      'serve',
      '--listen',
      `127.0.0.1:${port}`,
      '--database',
      database,
      '--state-dir',
      stateDir,
      '--log-level',
      'warn',
      ...args,
    ],
    { cwd: ctx.repoRoot, stdio: ['ignore', logFd, logFd], detached: true, env: { ...process.env, ...LAUNCHER_ENV } },
  );
  closeSync(logFd);
  return server;
}

/** haproxy in HTTP mode in front of the replicas: each request goes to the next one. */
function spawnBalancer(dir: string, port: number, replicaPorts: readonly number[], log: string): ChildProcess {
  const config = join(dir, 'haproxy.cfg');
  writeFileSync(
    config,
    [
      'defaults',
      '  mode http',
      '  timeout connect 5s',
      '  timeout client 300s',
      '  timeout server 300s',
      'frontend api',
      `  bind 127.0.0.1:${port}`,
      '  default_backend replicas',
      'backend replicas',
      '  balance roundrobin',
      ...replicaPorts.map((p, i) => `  server r${i + 1} 127.0.0.1:${p}`),
      '',
    ].join('\n'),
  );
  const logFd = openSync(log, 'a');
  const balancer = spawn('haproxy', ['-f', config, '-db'], { stdio: ['ignore', logFd, logFd], detached: true });
  closeSync(logFd);
  return balancer;
}

async function stopServer(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null || !server.pid) return;
  const exited = new Promise((resolve) => server.once('exit', resolve));
  killGroup(server.pid, 'SIGTERM');
  const result = await Promise.race([exited.then(() => 'exited'), sleep(5000).then(() => 'timeout')]);
  if (result === 'timeout') killGroup(server.pid, 'SIGKILL');
}

interface Started {
  baseUrl: string;
  database: string;
  dir: string;
  groups: ProcessGroup[];
  /** The first replica (its peak RSS is the server's). */
  server: ChildProcess;
}

/** api-bench.py's workload (after an unmeasured warm-up), metered; fills `result`. */
async function runApiBench(ctx: RunContext, result: TargetResult, started: Started): Promise<void> {
  const { baseUrl, database, dir, groups, server } = started;
  const { name } = result;
  const driverLog = join(ctx.logsDir, `${name}.api-bench.txt`);
  if (ctx.warmup) {
    process.stderr.write(`bench: ${result.label}: warm-up (not measured)\n`);
    await runLogged(
      '/usr/bin/python3',
      [ctx.apiBench, '--url', baseUrl, '--project-id', 'bench-warmup', '--admin', ...WARMUP_ARGS],
      join(ctx.logsDir, `${name}.warmup.txt`),
      ctx.verbose,
    );
    result.warmedUp = true;
  }
  process.stderr.write(
    `bench: ${result.label}: api-bench.py against ${baseUrl} (${database.split(':')[0]}${ctx.ovn ? ', OVN driver on' : ''})\n`,
  );
  const jsonFile = join(dir, 'api-bench.json');
  const meter = new ProcessMeter(groups);
  meter.start();
  result.exitCode = await runLogged(
    '/usr/bin/python3',
    [ctx.apiBench, '--url', baseUrl, '--json', jsonFile, ...workloadArgs(ctx.workload)],
    driverLog,
    ctx.verbose,
  );
  const cost = meter.stop();
  // VmHWM also covers peaks between samples (and start-up, which is lower than under load).
  const serverPeak = Math.max(cost.rssPeakMiB.octonet ?? 0, Math.round(statusKiB(server.pid!, 'VmHWM') / 102.4) / 10);
  result.cpu = { groups: cost.cpuSeconds, server: 'octonet' };
  result.rss = {
    groups: { ...cost.rssPeakMiB, octonet: serverPeak },
    server: 'octonet',
    totalMiB: Math.max(cost.rssPeakTotalMiB, serverPeak),
    pss: { groups: cost.pssPeakMiB, totalMiB: cost.pssPeakTotalMiB },
  };
  result.bench = readApiBenchJson(jsonFile);
  if (!result.bench) {
    result.failure = `api-bench.py wrote no results (exit ${result.exitCode}):\n${logTail(driverLog)}`;
  }
}

export async function benchOctonet(backend: Backend, ctx: RunContext, replicas = 1): Promise<TargetResult> {
  if (replicas > 1 && backend !== 'postgres') throw new Error('replicas share a database: PostgreSQL only');
  const name = `octonet-${backend}` + (replicas > 1 ? `-x${replicas}` : '');
  const label = LABELS[backend] + (replicas > 1 ? ` ×${replicas} replicas` : '') + (ctx.ovn ? ' + OVN' : '');
  const result: TargetResult = { name, label, source: 'measured', bench: null, exitCode: null };
  const dir = mkdtempSync(join(tmpdir(), 'octonet-bench-'));
  const undoDir = deferUndo(() => rmSync(dir, { recursive: true, force: true }));
  const undoSteps: Array<() => Promise<void>> = [];
  const serverLog = join(ctx.logsDir, `${name}.server.log`);
  try {
    const groups: ProcessGroup[] = [];
    let database = `sqlite:${join(dir, 'octonet.db')}`;
    if (backend === 'postgres') {
      const cluster = await startPostgresCluster();
      undoSteps.unshift(deferUndo(() => cluster.stop()));
      const created = await createBenchDatabase(cluster.adminUrl);
      database = created.url;
      groups.push({ name: 'postgresql', root: created.postmasterPid });
    }
    const ovnArgs = ctx.ovn ? startCentral(groups, undoSteps) : [];
    const servers: ChildProcess[] = [];
    const serverPorts: number[] = [];
    // One at a time: the first migrates the database, the others find it done.
    for (let i = 1; i <= replicas; i++) {
      const port = await freePort();
      const stateDir = join(dir, `replica-${i}`);
      mkdirSync(stateDir);
      const server = spawnServer(ctx, port, database, stateDir, ovnArgs, serverLog);
      undoSteps.unshift(deferUndo(() => stopServer(server)));
      await waitForApi(`http://127.0.0.1:${port}`, server, serverLog);
      servers.push(server);
      serverPorts.push(port);
      groups.splice(i - 1, 0, { name: i === 1 ? 'octonet' : `octonet-${i}`, root: server.pid! });
    }
    const server = servers[0]!;
    let baseUrl = `http://127.0.0.1:${serverPorts[0]}`;
    if (replicas > 1) {
      const port = await freePort();
      const balancer = spawnBalancer(dir, port, serverPorts, join(ctx.logsDir, `${name}.haproxy.log`));
      undoSteps.unshift(deferUndo(() => stopServer(balancer)));
      baseUrl = `http://127.0.0.1:${port}`;
      await waitForApi(baseUrl, balancer, join(ctx.logsDir, `${name}.haproxy.log`));
      groups.push({ name: 'haproxy', root: balancer.pid! });
    }

    if (ctx.apiBenchWorkload) await runApiBench(ctx, result, { baseUrl, database, dir, groups, server });
    if (ctx.scaling && backend === 'postgres' && !result.failure) {
      process.stderr.write(`bench: ${result.label}: write-scaling workload against ${baseUrl}\n`);
      const replicaGroups = groups.slice(0, replicas).map((g) => g.name);
      result.scaling = await runWriteScaling({
        baseUrl,
        replicas,
        groups,
        replicaGroups,
        databaseUrl: database,
        ...ctx.scaling,
      });
    }
    if (servers.some((s) => s.exitCode !== null || s.signalCode !== null)) {
      result.failure = `octonet serve exited during the workload (see ${serverLog})`;
    }
  } catch (error) {
    result.failure = (error as Error).message;
  } finally {
    for (const undo of undoSteps) await undo();
    await undoDir();
  }
  return result;
}
