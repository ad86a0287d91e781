/**
 * The test runner behind `scripts/test`: starts one PostgreSQL cluster and, when the suites run on
 * MariaDB, one MariaDB server for the whole run (each test creates its own database in them), runs
 * every test file with `node --test`, stops the servers. Test files: `src/**\/*.test.ts` and
 * `test/**\/*.test.ts`, or the ones given.
 */
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { BACKENDS } from './fixtures/databases.js';
import { startMariadbServer, type MariadbServer } from './fixtures/mariadb.js';
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

const files = process.argv.length > 2 ? process.argv.slice(2) : [...findTests('src'), ...findTests('test')].sort();
const cluster = await startPostgresCluster();
let mariadb: MariadbServer | undefined;
let code = 1;
try {
  if (BACKENDS.includes('mysql')) mariadb = await startMariadbServer();
  const mysqlUrl = mariadb?.adminUrl;
  code = await new Promise<number>((resolve) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...files],
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
}
process.exit(code);
