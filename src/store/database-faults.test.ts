/**
 * The store when the database fails, on real databases: what a caller sees (DatabaseUnavailable
 * with the right kind, never a driver error of an outage kind and never a ROLLBACK error hiding
 * the cause), what is retried, and that the store works again afterwards. The same faults under
 * HTTP load, with a real `serve` process, are in test/faults/.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createTestDatabase, freePort } from '../../test/fixtures/postgres.js';
import { openStore, type Store, type StoreOptions } from './database.js';
import { DatabaseUnavailable, type DbErrorKind } from './dialect.js';

/** Runs `fn`, expecting a DatabaseUnavailable, and returns it. */
async function unavailable(fn: () => Promise<unknown>): Promise<DatabaseUnavailable> {
  try {
    await fn();
  } catch (error) {
    assert.ok(error instanceof DatabaseUnavailable, `expected DatabaseUnavailable, got ${String(error)}`);
    return error;
  }
  assert.fail('expected a rejection');
}

const cleanups: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function open(url: string, options: StoreOptions = {}): Promise<Store> {
  const store = await openStore(url, options);
  cleanups.push(() => store.close());
  await sql`create table fault_probe (v text)`.execute(store.db);
  return store;
}

const probeCount = async (store: Store) =>
  Number((await sql<{ n: number }>`select count(*) as n from fault_probe`.execute(store.db)).rows[0]!.n);

describe('store faults (sqlite)', () => {
  it('reports a full database as full, not as the ROLLBACK that follows, and works again once there is room', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'octonet-full-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const store = await open(`sqlite:${join(dir, 'octonet.db')}`);
    const pages = (await sql<{ page_count: number }>`pragma page_count`.execute(store.db)).rows[0]!.page_count;
    // SQLite's own size limit fails writes with SQLITE_FULL, as a full disk does, and SQLite
    // rolls the transaction back by itself before Kysely's ROLLBACK runs.
    await sql.raw(`pragma max_page_count = ${pages}`).execute(store.db);
    const big = 'x'.repeat(100_000);
    const error = await unavailable(() =>
      store.transaction(async (tx) => {
        await sql`insert into fault_probe (v) values (${big})`.execute(tx);
      }),
    );
    assert.equal(error.kind, 'full', String(error.cause));
    assert.equal(await probeCount(store), 0, 'nothing of the failed transaction is left');
    await sql.raw('pragma max_page_count = 1073741823').execute(store.db);
    await store.transaction(async (tx) => {
      await sql`insert into fault_probe (v) values (${big})`.execute(tx);
    });
    assert.equal(await probeCount(store), 1);
  });
});

describe('store faults (postgres)', () => {
  it('answers reads and transactions with DatabaseUnavailable when nothing listens, within the retry budget', async () => {
    const url = `postgres://postgres@127.0.0.1:${await freePort()}/nothing`;
    const outages: DbErrorKind[] = [];
    const store = await openStore(url, {
      migrate: false,
      retryBudgetMs: 200,
      events: { onOutage: (kind) => outages.push(kind) },
    });
    cleanups.push(() => store.close());
    const read = await unavailable(() => store.db.selectFrom('networks').selectAll().execute());
    assert.equal(read.kind, 'connection-lost');
    let attempts = 0;
    const write = await unavailable(() =>
      store.transaction(async () => {
        attempts++;
      }),
    );
    assert.equal(write.kind, 'connection-lost');
    assert.ok(attempts === 0, 'the function never ran: no connection was ever made');
    assert.deepEqual(outages, ['connection-lost'], 'one outage however many requests failed');
  });

  it('survives the server killing a connection in use, and runs the transaction again on a new one', async () => {
    const { url, drop } = await createTestDatabase();
    cleanups.push(drop);
    const store = await open(url, { poolSize: 2 });
    let attempts = 0;
    await store.transaction(async (tx) => {
      attempts++;
      await sql`insert into fault_probe (v) values ('kept')`.execute(tx);
      // What pg_ctl stop -m fast and pg_terminate_backend do to a busy connection: the client
      // gets 57P01 and an 'error' event that, unheard, would end the process.
      if (attempts === 1) await sql`select pg_terminate_backend(pg_backend_pid())`.execute(tx);
    });
    assert.equal(attempts, 2);
    assert.equal(await probeCount(store), 1, 'the first attempt rolled back, the second committed');
  });

  it('cancels a statement past the statement timeout with DatabaseUnavailable', async () => {
    const { url, drop } = await createTestDatabase();
    cleanups.push(drop);
    const store = await open(url, { statementTimeoutMs: 100, retryBudgetMs: 0 });
    const error = await unavailable(() => sql`select pg_sleep(2)`.execute(store.db));
    assert.equal(error.kind, 'unavailable', String(error.cause));
    assert.equal(await probeCount(store), 0, 'the connection is usable afterwards');
  });
});
