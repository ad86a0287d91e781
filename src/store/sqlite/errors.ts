/**
 * Maps better-sqlite3 errors onto the store's error kinds. better-sqlite3 reports SQLite's
 * extended result codes as `code` (`SQLITE_BUSY_SNAPSHOT`, `SQLITE_READONLY_DBMOVED`, ...); the
 * primary code is the part before the second underscore.
 */
import type { DbErrorInfo, DbErrorKind } from '../dialect.js';

/** Primary result codes (extended codes fall back to these). */
const PRIMARY_KINDS: Readonly<Record<string, DbErrorKind>> = {
  SQLITE_BUSY: 'busy', // another connection holds the lock past busy_timeout
  SQLITE_LOCKED: 'busy', // a conflict inside this connection's shared cache
  SQLITE_FULL: 'full', // the disk (or SQLite's file size limit) is full
  SQLITE_READONLY: 'read-only', // read-only file, directory or mount
  SQLITE_IOERR: 'unavailable', // the OS refused a read or write (ENOSPC on some paths, EIO)
  SQLITE_CANTOPEN: 'unavailable', // the file or its WAL/SHM could not be opened
  SQLITE_PROTOCOL: 'busy', // a WAL lock race; SQLite's own advice is to retry
};

export function classifySqliteError(error: unknown): DbErrorInfo | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !code.startsWith('SQLITE_')) return null;
  switch (code) {
    case 'SQLITE_CONSTRAINT_UNIQUE':
    case 'SQLITE_CONSTRAINT_PRIMARYKEY':
      return { kind: 'unique-violation', constraint: constraintFromMessage(error) };
    case 'SQLITE_CONSTRAINT_FOREIGNKEY':
      return { kind: 'foreign-key-violation' };
    case 'SQLITE_BUSY_SNAPSHOT':
      // A read transaction's snapshot went stale before it could write: run it again.
      return { kind: 'serialization-conflict' };
    case 'SQLITE_IOERR_NOMEM':
      return { kind: 'full' };
  }
  if (code === 'SQLITE_IOERR' || code.startsWith('SQLITE_IOERR_')) {
    // ENOSPC while writing or growing the WAL shows up as an I/O error, not SQLITE_FULL.
    const message = (error as { message?: unknown }).message;
    if (typeof message === 'string' && /disk is full|no space/i.test(message)) return { kind: 'full' };
  }
  const primary = code.split('_', 2).join('_');
  const kind = PRIMARY_KINDS[primary];
  return kind ? { kind } : null;
}

/** SQLite names the columns, not the index: "UNIQUE constraint failed: ports.network_id, ports.mac_address". */
function constraintFromMessage(error: unknown): string | undefined {
  const message = (error as { message?: unknown }).message;
  if (typeof message !== 'string') return undefined;
  const m = /constraint failed: (.*)$/.exec(message);
  return m?.[1];
}
