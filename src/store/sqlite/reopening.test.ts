/**
 * When the one SQLite connection is opened again: after a statement failed in a way that leaves the
 * connection stuck (read-only, unavailable), failures while preparing included; never for an
 * in-memory database, whose reopening would start an empty one.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { ReopeningDatabase } from './reopening.js';

/** Every error counts as the file having turned read-only: what matters here is what happens next. */
const readOnly = () => ({ kind: 'read-only' as const });

function connection(reopenable: boolean): { db: ReopeningDatabase; opens: () => number } {
  let opens = 0;
  const db = new ReopeningDatabase(
    () => {
      opens++;
      return new Database(':memory:');
    },
    readOnly,
    reopenable,
  );
  return { db, opens: () => opens };
}

describe('ReopeningDatabase', () => {
  it('opens the file again before the next statement after one failed to prepare', () => {
    const { db, opens } = connection(true);
    assert.throws(() => db.prepare('SELEC 1'));
    assert.equal(opens(), 1, 'not reopened in the middle of the failing call');
    db.prepare('SELECT 1').all([]);
    assert.equal(opens(), 2);
    db.close();
  });

  it('never reopens an in-memory database: its tables stay', () => {
    const { db, opens } = connection(false);
    db.prepare('CREATE TABLE kept (id INTEGER)').run([]);
    assert.throws(() => db.prepare('SELEC 1'));
    assert.deepEqual(db.prepare('SELECT count(*) AS n FROM kept').all([]), [{ n: 0 }]);
    assert.equal(opens(), 1);
    db.close();
  });
});
