/**
 * The shared load driver ../shared/bench/api-bench.py: where it is, how to run it with its output
 * in a log file, and the shape of the JSON it writes (also what bench-anchor.sh writes, plus
 * `server_cpu_s`). Also the shape of one target's result in our comparison. Does not interpret
 * the figures: that is compare.ts.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { deferUndo, forgetUndo, killGroup } from './teardown.js';
import type { WriteScaling } from './write-scaling.js';

/** One row of api-bench.py's per-phase table. */
export interface PhaseSummary {
  phase: string;
  count: number;
  median_ms: number;
  p99_ms: number;
  max_ms: number;
  ops_per_s: number;
  wall_s: number;
  errors: number;
  error_samples: unknown[];
}

export interface Uniqueness {
  ports_created: number;
  ips_checked: number;
  macs_checked: number;
  ports_listed_on_network: number;
  dup_ips: string[];
  dup_macs: string[];
  created_but_not_listed: number;
  result: 'PASS' | 'FAIL';
}

export interface ApiBenchResult {
  url: string;
  ports: number;
  concurrency: number;
  fips: number;
  tag: string;
  phases: PhaseSummary[];
  uniqueness: Uniqueness | null;
  filter_check: string | null;
  time: string;
  total_wall_s?: number;
  /** bench-anchor.sh only: CPU-seconds per process group and `total`. */
  server_cpu_s?: Record<string, number>;
}

/** One column of the comparison: a target, its workload results and its server-side cost. */
export interface TargetResult {
  /** `octonet-sqlite`, `octonet-postgres` or `neutron`. */
  name: string;
  /** Column header, e.g. `octonet SQLite`. */
  label: string;
  /** `measured` in this run, or `reused` from an earlier run's file. */
  source: 'measured' | 'reused';
  sourceFile?: string;
  /** api-bench.py's JSON; null when the driver wrote none (it crashed or never started). */
  bench: ApiBenchResult | null;
  /** api-bench.py's exit status (1 when any request failed or the uniqueness check failed). */
  exitCode: number | null;
  /** Why the run is missing or incomplete. */
  failure?: string;
  /** A small unmeasured copy of the workload ran first (octonet only). */
  warmedUp?: boolean;
  /** CPU-seconds per process group; `server` names the API server's group. */
  cpu?: { groups: Record<string, number>; server: string };
  /**
   * Peak RSS in MiB per group and of their sum; `baseline` when not measured but taken from
   * documentation. `pss`: the same as proportional set size (shared pages counted once).
   */
  rss?: {
    groups: Record<string, number>;
    server: string;
    totalMiB: number;
    baseline?: string;
    pss?: { groups: Record<string, number>; totalMiB: number };
  };
  /** The write-scaling workload's figures (PostgreSQL targets, with --replicas). */
  scaling?: WriteScaling;
}

/** api-bench.py beside the repository: `<repo>/../shared/bench/api-bench.py`. */
export function locateApiBench(repoRoot: string): string {
  const path = resolve(repoRoot, '..', 'shared', 'bench', 'api-bench.py');
  if (!existsSync(path)) {
    throw new Error(
      `the shared load driver is missing: ${path} (expected ../shared/bench/api-bench.py beside the repository)`,
    );
  }
  return path;
}

export function readApiBenchJson(path: string): ApiBenchResult | null {
  if (!existsSync(path)) return null;
  const parsed = JSON.parse(readFileSync(path, 'utf8')) as ApiBenchResult;
  return Array.isArray(parsed.phases) ? parsed : null;
}

/**
 * Runs a command with stdout and stderr appended to `logFile` (and echoed when `echo`), resolving
 * to its exit status. The child leads its own process group, which an interrupt ends (only that).
 */
export function runLogged(command: string, args: string[], logFile: string, echo: boolean): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const log = createWriteStream(logFile, { flags: 'a' });
    log.write(`$ ${command} ${args.join(' ')}\n`);
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const undo = () => killGroup(child.pid!);
    if (child.pid) deferUndo(undo);
    for (const stream of [child.stdout, child.stderr]) {
      stream.on('data', (chunk: Buffer) => {
        log.write(chunk);
        if (echo) process.stderr.write(chunk);
      });
    }
    child.once('error', (error) => {
      forgetUndo(undo);
      log.end();
      reject(error);
    });
    child.once('close', (status, signal) => {
      forgetUndo(undo);
      log.end(() => resolvePromise(status ?? (signal ? 128 : 1)));
    });
  });
}

/** The last lines of a log, to explain a failure without opening the file. */
export function logTail(path: string, lines = 15): string {
  if (!existsSync(path)) return '';
  return readFileSync(path, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
}
