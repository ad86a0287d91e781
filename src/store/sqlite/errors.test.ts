/** The SQLite classifier: primary and extended result codes as better-sqlite3 reports them. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifySqliteError } from './errors.js';

const withCode = (code: string, message = code) => Object.assign(new Error(message), { code });

describe('classifySqliteError', () => {
  const cases: [unknown, string | null][] = [
    [withCode('SQLITE_CONSTRAINT_UNIQUE', 'UNIQUE constraint failed: ports.mac_address'), 'unique-violation'],
    [withCode('SQLITE_CONSTRAINT_PRIMARYKEY'), 'unique-violation'],
    [withCode('SQLITE_CONSTRAINT_FOREIGNKEY'), 'foreign-key-violation'],
    [withCode('SQLITE_CONSTRAINT_NOTNULL'), null],
    [withCode('SQLITE_BUSY'), 'busy'],
    [withCode('SQLITE_BUSY_RECOVERY'), 'busy'],
    [withCode('SQLITE_BUSY_TIMEOUT'), 'busy'],
    [withCode('SQLITE_BUSY_SNAPSHOT'), 'serialization-conflict'],
    [withCode('SQLITE_LOCKED'), 'busy'],
    [withCode('SQLITE_LOCKED_SHAREDCACHE'), 'busy'],
    [withCode('SQLITE_PROTOCOL'), 'busy'],
    [withCode('SQLITE_FULL', 'database or disk is full'), 'full'],
    [withCode('SQLITE_IOERR_WRITE', 'disk I/O error: No space left on device'), 'full'],
    [withCode('SQLITE_IOERR_WRITE', 'disk I/O error'), 'unavailable'],
    [withCode('SQLITE_IOERR_NOMEM'), 'full'],
    [withCode('SQLITE_IOERR'), 'unavailable'],
    [withCode('SQLITE_CANTOPEN'), 'unavailable'],
    [withCode('SQLITE_READONLY', 'attempt to write a readonly database'), 'read-only'],
    [withCode('SQLITE_READONLY_DBMOVED'), 'read-only'],
    [withCode('SQLITE_READONLY_DIRECTORY'), 'read-only'],
    [withCode('SQLITE_ERROR', 'no such table: x'), null],
    [withCode('ENOENT'), null],
    [new Error('cannot rollback - no transaction is active'), null],
    [null, null],
  ];
  for (const [error, kind] of cases) {
    const e = error as { code?: string; message?: string } | null;
    it(`${e?.code ?? String(e)} (${e?.message ?? ''}) → ${kind}`, () =>
      assert.equal(classifySqliteError(error)?.kind ?? null, kind));
  }

  it('names the columns of a unique violation', () => {
    const info = classifySqliteError(
      withCode('SQLITE_CONSTRAINT_UNIQUE', 'UNIQUE constraint failed: ports.network_id, ports.mac_address'),
    );
    assert.deepEqual(info, { kind: 'unique-violation', constraint: 'ports.network_id, ports.mac_address' });
  });
});
