/**
 * `bench/import/run [--ports N] [--reps R] [--backends ...] [--sources postgresql,mariadb]`: how long
 * `octonet import` takes for a Neutron Zed database with N ports (10,000 by default), with Neutron's
 * database on PostgreSQL and on MariaDB, into SQLite and into PostgreSQL. Per source, a private real
 * Neutron Zed (test/fixtures/neutron-private.ts) makes the database (see seed.ts), then is stopped;
 * each repetition imports into a fresh octonet database. Prints, per source and backend, the median
 * and slowest run, the read-and-map part, and ports per second.
 */
import { parseArgs } from 'node:util';
import { importNeutron, planImport } from '../../src/import/import.js';
import { readSnapshot } from '../../src/import/snapshot.js';
import { openNeutronSource } from '../../src/import/source.js';
import { openStore } from '../../src/store/database.js';
import { createBackendDatabase, type Backend } from '../../test/fixtures/databases.js';
import { startPrivateNeutron, type NeutronDatabaseKind } from '../../test/fixtures/neutron-private.js';
import { seedPorts } from './seed.js';

const { values } = parseArgs({
  options: {
    ports: { type: 'string', default: '10000' },
    reps: { type: 'string', default: '3' },
    backends: { type: 'string', default: 'sqlite,postgres' },
    sources: { type: 'string', default: 'postgresql,mariadb' },
  },
});
const ports = Number(values.ports);
const reps = Number(values.reps);

function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function benchSource(database: NeutronDatabaseKind): Promise<void> {
  const neutron = await startPrivateNeutron({ database });
  try {
    await seedPorts(neutron.url, neutron.databaseUrl, ports);
    await neutron.stopServer();

    const readTimes: number[] = [];
    for (let i = 0; i < reps; i++) {
      const started = performance.now();
      const source = await openNeutronSource(neutron.databaseUrl);
      const plan = planImport(await readSnapshot(source));
      await source.close();
      readTimes.push(performance.now() - started);
      if (plan.ports.length < ports) throw new Error(`the seed made ${plan.ports.length} ports, not ${ports}`);
    }
    console.log(`Neutron Zed database on ${database}: ${ports} ports, ${reps} repetitions per figure`);
    console.log(
      `read + map (no write): median ${median(readTimes).toFixed(0)} ms, max ${Math.max(...readTimes).toFixed(0)} ms`,
    );
    for (const backend of values.backends.split(',') as Backend[]) {
      const times: number[] = [];
      for (let i = 0; i < reps; i++) {
        const target = await createBackendDatabase(backend);
        const store = await openStore(target.url);
        try {
          const started = performance.now();
          const report = await importNeutron(neutron.databaseUrl, store);
          times.push(performance.now() - started);
          if (report.outcome !== 'imported') throw new Error(`import outcome ${report.outcome}`);
        } finally {
          await store.close();
          await target.drop();
        }
      }
      const m = median(times);
      console.log(
        `import into ${backend}: median ${m.toFixed(0)} ms, max ${Math.max(...times).toFixed(0)} ms, ${((ports / m) * 1000).toFixed(0)} ports/s`,
      );
    }
  } finally {
    await neutron.stop();
  }
}

for (const database of values.sources.split(',') as NeutronDatabaseKind[]) await benchSource(database);
