/**
 * What the benches share: options or help, the results file and the exit; for the lab benches
 * (bench:ovn, bench:routers, bench:failover) also a built octonet and root checked, signal cleanup
 * armed, and a timestamped results file and logs directory.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { undoOnSignals } from './api/teardown.js';

export const repoRoot = resolve(fileURLToPath(import.meta.url), '..', '..');

/** The parsed options, or the exit status after printing help (0) or a usage error (2). */
export function optionsOrExit<T>(
  parse: (argv: string[]) => T | undefined,
  help: string,
): { options: T } | { exit: number } {
  try {
    const options = parse(process.argv.slice(2));
    if (options) return { options };
    process.stdout.write(help + '\n');
    return { exit: 0 };
  } catch (error) {
    process.stderr.write(`bench: ${(error as Error).message}\n\n${help}\n`);
    return { exit: 2 };
  }
}

/** Checks that octonet is built and we are root, arms the cleanup, and names this run's files. */
export function startLabRun(
  script: string,
  resultsDirOption: string,
): { resultsDir: string; logsDir: string; resultsFile: string } {
  if (!existsSync(join(repoRoot, 'dist/cli/main.js'))) {
    throw new Error(`dist/cli/main.js is missing: build first (scripts/setup, or npm run ${script})`);
  }
  if (process.getuid?.() !== 0) throw new Error('the lab needs root');
  undoOnSignals();
  const stamp = new Date()
    .toISOString()
    .replace(/[:.]/g, '-')
    .replace(/-\d{3}Z$/, 'Z');
  const resultsDir = resolve(repoRoot, resultsDirOption);
  const logsDir = join(resultsDir, `${stamp}.logs`);
  mkdirSync(logsDir, { recursive: true });
  return { resultsDir, logsDir, resultsFile: join(resultsDir, `${stamp}.json`) };
}

/** Writes a run's JSON: when, the machine (CPUs, load before and after), the options, then `body`. */
export function writeRunResults(
  file: string,
  options: unknown,
  loadBefore: number[],
  body: Record<string, unknown>,
): void {
  const machine = { cpus: cpus().length, loadavgBefore: loadBefore, loadavgAfter: loadavg() };
  writeFileSync(file, JSON.stringify({ time: new Date().toISOString(), machine, options, ...body }, null, 1) + '\n');
}

/**
 * Runs a bench's main and exits with its code; after an interrupt (130) the signal handler exits
 * once everything started is stopped.
 */
export function runBench(main: () => Promise<number>): void {
  main().then(
    (code) => (code === 130 ? undefined : process.exit(code)),
    (error: unknown) => {
      process.stderr.write(`bench: ${(error as Error).message}\n`);
      process.exit(1);
    },
  );
}
