/**
 * Lock keys on a real MariaDB (Debian's mariadbd, test/fixtures/mariadb.ts), two stores (two
 * replicas) on one database: the first use of a key must not make the second replica wait for the
 * first one's transaction. `exclusively` on a fresh key held by the other answers false at once,
 * not after the holder's work or innodb_lock_wait_timeout (which the store would count as an
 * outage); `lockKey` on a fresh key serialises racing transactions without an outage.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createBackendDatabase, type TestDatabase } from '../../../test/fixtures/databases.js';
import { openStore, type Store } from '../database.js';

/** A hang guard: long enough for any answer that does not wait for the other replica. */
const GUARD_MS = 15_000;

describe('MySQL lock keys, two replicas racing for a fresh key (real MariaDB)', () => {
  let database: TestDatabase;
  const stores: Store[] = [];
  const outages: string[] = [];
  const open = async () => {
    const store = await openStore(database.url, { events: { onOutage: (kind) => outages.push(kind) } });
    stores.push(store);
    return store;
  };

  before(async () => {
    database = await createBackendDatabase('mysql');
  });
  after(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await database.drop();
  });

  /** `promise`'s value, or 'still waiting' once the guard passed. */
  async function withinGuard<T>(promise: Promise<T>): Promise<T | 'still waiting'> {
    let timer: NodeJS.Timeout | undefined;
    const guard = new Promise<'still waiting'>(
      (resolve) => (timer = setTimeout(() => resolve('still waiting'), GUARD_MS)),
    );
    try {
      return await Promise.race([promise, guard]);
    } finally {
      clearTimeout(timer);
    }
  }

  it('exclusively: the second replica sees a fresh key held and answers false without waiting', async () => {
    const [a, b] = [await open(), await open()];
    const key = `fresh-${randomUUID()}`;
    let other: Promise<boolean> | undefined;
    let answer: boolean | 'still waiting' = 'still waiting';
    const ran = await a.exclusively(key, async () => {
      other = b.exclusively(key, async () => {});
      // Holds the key until the other replica answered, or the guard passed.
      answer = await withinGuard(other);
    });
    assert.equal(ran, true);
    assert.equal(answer, false, 'the other replica answered while the key was held');
    assert.equal(await withinGuard(other!), false);
    // Free again: either replica takes it.
    assert.equal(await b.exclusively(key, async () => {}), true);
    assert.deepEqual(outages, []);
  });

  it('lockKey: transactions racing for a fresh key run one after the other, with no outage', async () => {
    const racers = [await open(), await open(), await open()];
    const key = `fresh-${randomUUID()}`;
    const trail: string[] = [];
    await Promise.all(
      racers.map((store, i) =>
        store.transaction(async (tx) => {
          await store.lockKey(tx, key);
          trail.push(`in ${i}`);
          await sql`select sleep(0.2)`.execute(tx);
          trail.push(`out ${i}`);
        }),
      ),
    );
    // Each holder left before the next came in (an attempt retried after a deadlock never got in).
    assert.equal(trail.length, 6, trail.join(', '));
    for (let i = 0; i < trail.length; i += 2)
      assert.equal(trail[i]!.slice(3), trail[i + 1]!.slice(4), trail.join(', '));
    assert.deepEqual(outages, []);
  });
});
