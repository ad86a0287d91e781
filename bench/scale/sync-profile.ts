/**
 * `node --import tsx bench/scale/sync-profile.ts --ports 100000 [--dir DIR] [--runs 2] [--cpu-prof] [--perf]`:
 * where the full OVN pass into an empty NB spends its time. It fills a database once (kept in
 * `--dir` for the next run), then, per run, starts a fresh OVN central and `serve` (the built
 * `dist/` with the launcher's flags and malloc settings, `../launcher.ts`) over it, and reports the
 * pass's seconds as octonet logs them with the CPU seconds of octonet, the NB and SB ovsdb-servers
 * and ovn-northd over the pass (`/proc/PID/stat`), the load average, and the server's memory 5 s
 * after its API opened (as it is and after a full GC: `gc-memory.ts`); with what the OVN side did
 * (`ovnStats`: the NB's transactions as its log file holds them, its compactions, ovn-northd's
 * recomputes), octonet's own NB transactions and operations (`/metrics`), and how often the pass's
 * pacer changed its transaction size. `--cpu-prof` writes octonet's V8 profile into the run's
 * directory, `--perf` a `perf record` of the OVN processes; `--dist ROOT` runs ROOT's `dist/`
 * instead (an older build, for an A/B on the same database); `--node-args "FLAGS"` adds Node/V8
 * flags to the server's command line (e.g. `--heap-growing-percent=50`, to weigh memory against
 * CPU).
 *
 * Prints figures and asserts nothing; everything it starts it stops.
 */
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../test/fixtures/postgres.js';
import { startOvnCentral } from '../../test/fixtures/ovn-central.js';
import { killGroup } from '../api/teardown.js';
import { intOption } from '../goals-report.js';
import { runBench } from '../lab-run.js';
import { NeutronApi } from '../ovn/neutron-api.js';
import { fill } from './fill.js';
import { collectedMemory, gcAnswerFile, gcHookEnv } from './gc-memory.js';
import { LAUNCHER_ENV, LAUNCHER_NODE_FLAGS } from '../launcher.js';

const repoRoot = resolve(fileURLToPath(import.meta.url), '..', '..', '..');
const SUMMARY = ['OVN NB brought in line with the database', 'OVN NB matches the database'];
const TICK = 100; // USER_HZ

/** utime + stime of a process, in seconds (0 once it is gone). */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICK;
  } catch {
    return 0;
  }
}

/**
 * What the OVN side did during the pass: the NB's transactions as its database file holds them
 * (a standalone ovsdb-server appends one record per committed transaction; a compaction rewrites
 * the file as one snapshot, counted from its log), and how often ovn-northd recomputed
 * (`inc-engine/show-stats`). The raw `coverage/show` and `memory/show` answers go into the run's
 * directory (`ovn-LABEL/`) for a closer look.
 */
function ovnStats(centralDir: string, outDir: string) {
  mkdirSync(outDir, { recursive: true });
  const appctl = (target: string, ...cmd: string[]) => {
    try {
      return execFileSync('ovs-appctl', ['-t', join(centralDir, `${target}.ctl`), ...cmd], { encoding: 'utf8' });
    } catch (error) {
      return `failed: ${String(error)}`;
    }
  };
  for (const target of ['nb', 'sb', 'northd'])
    for (const cmd of ['coverage/show', 'memory/show'])
      writeFileSync(join(outDir, `${target}-${cmd.replace('/', '-')}.txt`), appctl(target, cmd));
  const engine = appctl('northd', 'inc-engine/show-stats');
  writeFileSync(join(outDir, 'northd-inc-engine.txt'), engine);
  // "Node: northd\n- recompute:  12\n- compute: 3\n- abort: 0" per engine node.
  const recomputes: Record<string, number> = {};
  for (const m of engine.matchAll(/Node: (\S+)\s+- recompute:\s+(\d+)/g)) recomputes[m[1]!] = Number(m[2]);
  const db = readFileSync(join(centralDir, 'nb.db'), 'latin1');
  const records = [...db.matchAll(/^OVSDB JSON (\d+) /gm)].map((m) => Number(m[1]));
  writeFileSync(join(outDir, 'nb-records.txt'), nbRecordSummary(db));
  const log = readFileSync(join(centralDir, 'nb.log'), 'utf8');
  return {
    nbRecords: records.length,
    nbRecordMiB: records.reduce((a, b) => a + b, 0) / 2 ** 20,
    nbLargestRecordMiB: Math.max(0, ...records) / 2 ** 20,
    nbCompactions: log.split('\n').filter((l) => /compact/i.test(l)).length,
    northdRecomputes: { northd: recomputes.northd, lflow: recomputes.lflow },
  };
}

/** One line per NB log record: its size and, per table, the rows and columns it wrote. */
function nbRecordSummary(db: string): string {
  const lines: string[] = [];
  for (const m of db.matchAll(/^OVSDB JSON (\d+) \S+\n(.*)$/gm)) {
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(m[2]!) as Record<string, unknown>;
    } catch {
      continue;
    }
    const tables = Object.entries(record)
      .filter(([table]) => !table.startsWith('_') && table !== 'name' && table !== 'version' && table !== 'tables')
      .map(([table, rows]) => {
        const columns = new Set(
          Object.values(rows as Record<string, object | null>).flatMap((row) => Object.keys(row ?? {})),
        );
        return `${table}:${Object.keys(rows as object).length}[${[...columns].join(',')}]`;
      });
    lines.push(`${m[1]} ${tables.join(' ')}`);
  }
  return lines.join('\n') + '\n';
}

/** octonet's own count of NB transactions and operations (`/metrics`). */
async function nbWrites(baseUrl: string) {
  try {
    const text = await (await fetch(baseUrl + '/metrics', { signal: AbortSignal.timeout(10_000) })).text();
    const value = (re: RegExp) => Number(re.exec(text)?.[1] ?? NaN);
    return {
      transactions: value(/^octonet_ovn_nb_transactions_total\{result="ok"\} (\S+)/m),
      operations: value(/^octonet_ovn_nb_operations_total (\S+)/m),
    };
  } catch {
    return undefined;
  }
}

interface Running {
  pid: number;
  baseUrl: string;
  logFile: string;
  /** Whether the server died (an out-of-memory abort under `--node-args=--max-old-space-size=…`). */
  hasExited(): boolean;
  stop(): Promise<void>;
}

/** The checkout whose `dist/` runs (`--dist`: another build, for an A/B on the same data). */
let buildRoot = repoRoot;
/** `--node-args`: extra Node/V8 flags for the server. */
let nodeArgs: string[] = [];

async function serve(dir: string, label: string, ovn?: { nb: string; sb: string }, cpuProf = false): Promise<Running> {
  const port = await freePort();
  const logFile = join(dir, `serve-${label}.log`);
  const args = [
    ...LAUNCHER_NODE_FLAGS,
    ...nodeArgs,
    ...(cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${join(dir, `prof-${label}`)}`] : []),
    join(buildRoot, 'dist/cli/main.js'),
    'serve',
    '--listen',
    `127.0.0.1:${port}`,
    '--database',
    `sqlite:${join(dir, 'octonet.db')}`,
    '--state-dir',
    dir,
    '--log-level',
    ovn ? 'info' : 'warn',
    ...(ovn ? ['--ovn-nb', ovn.nb, '--ovn-sb', ovn.sb] : []),
  ];
  const fd = openSync(logFile, 'a');
  const child = spawn(process.execPath, args, {
    cwd: repoRoot,
    stdio: ['ignore', fd, fd],
    detached: true,
    env: { ...gcHookEnv(gcAnswerFile(dir, label)), ...LAUNCHER_ENV },
  });
  closeSync(fd);
  const exited = new Promise((r) => child.once('exit', r));
  return {
    pid: child.pid!,
    baseUrl: `http://127.0.0.1:${port}`,
    logFile,
    hasExited: () => child.exitCode !== null || child.signalCode !== null,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      killGroup(child.pid!, 'SIGTERM');
      await Promise.race([exited, sleep(120_000)]); // the V8 profile is written on exit
      if (child.exitCode === null && child.signalCode === null) killGroup(child.pid!, 'SIGKILL');
    },
  };
}

async function waitForApi(baseUrl: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(baseUrl + '/', { signal: AbortSignal.timeout(1000) })).ok) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`no answer from ${baseUrl}`);
    await sleep(100);
  }
}

/** The records of a pino log so far. */
function logRecords(file: string): { msg: string; time: number; [k: string]: unknown }[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { msg: string; time: number });
}

async function onePass(dir: string, label: string, cpuProf: boolean, perf: boolean) {
  const central = startOvnCentral();
  const pids = Object.fromEntries(
    ['nb', 'sb', 'northd'].map((name) => [name, Number(readFileSync(join(central.dir, `${name}.pid`), 'utf8'))]),
  );
  const before = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuSeconds(pid)]));
  const load = loadavg()[0]!;
  // `perf record` of the OVN central's processes, for `perf report -i DIR/perf-LABEL.data --sort comm,sym`.
  const recorder = perf
    ? spawn(
        'perf',
        ['record', '-F', '99', '-p', Object.values(pids).join(','), '-o', join(dir, `perf-${label}.data`)],
        {
          stdio: 'ignore',
        },
      )
    : undefined;
  const started = Date.now();
  const server = await serve(dir, label, central, cpuProf);
  try {
    let summary: { msg: string; time: number; [k: string]: unknown } | undefined;
    while (!summary) {
      await sleep(200);
      const records = logRecords(server.logFile);
      summary = records.find((r) => SUMMARY.includes(r.msg));
      if (!summary && server.hasExited()) throw new Error(`serve exited before its full pass: ${server.logFile}`);
      if (Date.now() - started > 1_800_000) throw new Error('no full pass within 30 minutes');
    }
    const cpu: Record<string, number> = { octonet: cpuSeconds(server.pid) };
    for (const [name, pid] of Object.entries(pids)) cpu[name] = cpuSeconds(pid) - before[name]!;
    const ovn = ovnStats(central.dir, join(dir, `ovn-${label}`));
    // serve handles SIGTERM (and so writes its V8 profile) once its API is open.
    let records = logRecords(server.logFile);
    while (!records.some((r) => r.msg === 'octonet API listening') && Date.now() - started < 1_800_000) {
      await sleep(200);
      records = logRecords(server.logFile);
    }
    const listening = records.find((r) => r.msg === 'octonet API listening');
    const failed = records.filter((r) => r.msg.startsWith('full OVN pass failed')).length;
    const disconnects = records.filter((r) => r.msg === 'ovsdb disconnected').length;
    // The full pass's pacer changing its transaction size (a slow NB answer halves it).
    const resized = records.filter((r) => r.msg === 'full pass: NB transaction size changed').length;
    await sleep(5_000);
    const writes = listening ? await nbWrites(server.baseUrl) : undefined;
    const memory = listening ? await collectedMemory(server.pid, gcAnswerFile(dir, label)) : undefined;
    return {
      label,
      seconds: Number(summary.seconds ?? NaN),
      spawnToDone: (summary.time - started) / 1000,
      passToApi: listening ? (listening.time - summary.time) / 1000 : undefined,
      failed,
      disconnects,
      resized,
      cpu,
      load: [load, loadavg()[0]!],
      created: summary.created,
      writes,
      ovn,
      memory,
    };
  } finally {
    if (recorder) {
      recorder.kill('SIGINT');
      await new Promise((r) => recorder.once('exit', r));
    }
    await server.stop();
    central.stop();
  }
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      ports: { type: 'string' },
      'per-network': { type: 'string' },
      dir: { type: 'string' },
      runs: { type: 'string' },
      'cpu-prof': { type: 'boolean' },
      perf: { type: 'boolean' },
      dist: { type: 'string' },
      'node-args': { type: 'string' },
    },
  });
  const ports = intOption('ports', values.ports, 100_000);
  const perNetwork = intOption('per-network', values['per-network'], 100);
  const dir = resolve(values.dir ?? `/tmp/octonet-sync-profile-${ports}`);
  mkdirSync(dir, { recursive: true });
  if (!existsSync(join(dir, 'filled'))) {
    const server = await serve(dir, 'fill');
    try {
      await waitForApi(server.baseUrl, 120_000);
      const api = new NeutronApi(server.baseUrl);
      const filled = await fill(api, ports, perNetwork, (l) => process.stderr.write(`fill: ${l}\n`));
      api.close();
      process.stderr.write(`filled ${ports} ports in ${filled.seconds.toFixed(1)} s\n`);
    } finally {
      await server.stop();
    }
    writeFileSync(join(dir, 'filled'), `${ports}\n`);
  }
  const runs = intOption('runs', values.runs, 1);
  if (values.dist) buildRoot = resolve(values.dist);
  nodeArgs = (values['node-args'] ?? '').split(' ').filter(Boolean);
  for (let i = 0; i < runs; i++) {
    const result = await onePass(dir, `run-${Date.now()}`, values['cpu-prof'] ?? false, values.perf ?? false);
    process.stdout.write(JSON.stringify(result) + '\n');
  }
  return 0;
}

runBench(main);
