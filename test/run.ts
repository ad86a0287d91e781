/**
 * The test runner behind `scripts/test`: starts one PostgreSQL cluster and, when MariaDB is
 * installed, one MariaDB server for the whole run (each test creates its own database in them),
 * runs every test file with `node --test`, stops the servers. Without the shared server every file
 * that uses MariaDB (the store and some API suites, the import tests) would start one of its own.
 * Test files: `src/**\/*.test.ts` and `test/**\/*.test.ts`, or the ones given.
 * The shared Neutron anchor, which some suites start, is stopped at the end if the run started it.
 */
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { anchorRunning, stopAnchor } from './fixtures/anchor.js';
import { mariadbInstalled, startMariadbServer, type MariadbServer } from './fixtures/mariadb.js';
import { startPostgresCluster } from './fixtures/postgres.js';

function findTests(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules' || entry === 'fixtures') continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) out.push(...findTests(path));
    else if (entry.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

/**
 * No test file may hang the run: one that has not finished after this long fails, named, with
 * what it printed, and the others go on (the longest, the real Octavia amphora suite, takes about 4
 * minutes here). Its tests done, a file whose process stays alive (a handle a fixture left open)
 * exits instead of holding back every report after it. Both flags came with Node 20.11 and 20.14.
 */
const FILE_TIMEOUT_MS = 20 * 60 * 1000;
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
const atLeast = (m: number, n: number) => major > m || (major === m && minor >= n);
const guards = [
  ...(atLeast(20, 11) ? [`--test-timeout=${FILE_TIMEOUT_MS}`] : []),
  ...(atLeast(20, 14) ? ['--test-force-exit'] : []),
];

const files = process.argv.length > 2 ? process.argv.slice(2) : [...findTests('src'), ...findTests('test')].sort();
// Suites that need the shared Neutron anchor start it; a run that found it stopped stops it again.
const anchorWasRunning = anchorRunning();
const cluster = await startPostgresCluster();
let mariadb: MariadbServer | undefined;
let code = 1;
try {
  if (mariadbInstalled()) mariadb = await startMariadbServer();
  const mysqlUrl = mariadb?.adminUrl;
  code = await new Promise<number>((resolve) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--test', '--test-concurrency=2', ...guards, '--test-reporter=spec', ...files],
      {
        stdio: 'inherit',
        env: {
          ...process.env,
          OCTONET_TEST_PG_URL: cluster.adminUrl,
          ...(mysqlUrl && { OCTONET_TEST_MYSQL_URL: mysqlUrl }),
        },
      },
    );
    child.on('exit', (status) => resolve(status ?? 1));
  });
} finally {
  cluster.stop();
  mariadb?.stop();
  if (!anchorWasRunning && anchorRunning()) {
    // A failure to stop it is reported, and the run still exits with its tests' status.
    try {
      stopAnchor();
    } catch (error) {
      console.error(`could not stop the Neutron anchor this run started: ${String(error)}`);
    }
  }
}
process.exit(code);
