/**
 * Named prepared statements: which texts get a name, and, on a real PostgreSQL, that a read keeps
 * answering after another process changes the columns under its prepared plan.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createTestDatabase } from '../../../test/fixtures/postgres.js';
import { openStore } from '../database.js';
import { StatementNames } from './named-statements.js';

describe('StatementNames', () => {
  it('names a select once per text and leaves writes unnamed', () => {
    const names = new StatementNames();
    const a = names.nameOf('select * from ports where id = $1');
    assert.ok(a);
    assert.equal(names.nameOf('select * from ports where id = $1'), a);
    assert.notEqual(names.nameOf('SELECT id from networks'), a);
    assert.equal(names.nameOf('insert into ports (id) values ($1)'), undefined);
    assert.equal(names.nameOf('begin'), undefined);
  });

  it('stops naming new texts past its bound, and keeps the names it gave', () => {
    const names = new StatementNames();
    const first = names.nameOf('select 0');
    for (let i = 1; i < 1000; i++) names.nameOf(`select ${i}`);
    assert.equal(names.nameOf('select 999'), undefined);
    assert.equal(names.nameOf('select 0'), first);
  });
});

describe('named statements on PostgreSQL', () => {
  const cleanups: (() => Promise<void>)[] = [];
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('answers a read whose columns another connection changed, and its next transaction', async () => {
    const { url, drop } = await createTestDatabase();
    cleanups.push(drop);
    const store = await openStore(url, { poolSize: 1 });
    cleanups.push(() => store.close());
    await sql`create table probe (id text primary key)`.execute(store.db);
    await store.db
      .insertInto('probe' as never)
      .values({ id: 'a' } as never)
      .execute();
    const read = () =>
      store.db
        .selectFrom('probe' as never)
        .selectAll()
        .execute();
    assert.deepEqual(await read(), [{ id: 'a' }]);
    assert.deepEqual(await read(), [{ id: 'a' }], 'the second run binds the prepared statement');
    // What another replica's migration does: the prepared `select *` now has a column more.
    const other = await openStore(url, { poolSize: 1 });
    await sql`alter table probe add column extra text`.execute(other.db);
    await other.close();
    assert.deepEqual(await read(), [{ id: 'a', extra: null }]);
    const inTransaction = await store.transaction(async (tx) =>
      tx
        .selectFrom('probe' as never)
        .selectAll()
        .execute(),
    );
    assert.deepEqual(inTransaction, [{ id: 'a', extra: null }]);
  });
});
