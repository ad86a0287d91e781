/** Maps better-sqlite3 errors onto the store's error kinds. */
import type { DbErrorInfo } from '../dialect.js';

export function classifySqliteError(error: unknown): DbErrorInfo | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return null;
  switch (code) {
    case 'SQLITE_CONSTRAINT_UNIQUE':
    case 'SQLITE_CONSTRAINT_PRIMARYKEY':
      return { kind: 'unique-violation', constraint: constraintFromMessage(error) };
    case 'SQLITE_CONSTRAINT_FOREIGNKEY':
      return { kind: 'foreign-key-violation' };
    case 'SQLITE_BUSY':
    case 'SQLITE_BUSY_SNAPSHOT':
    case 'SQLITE_LOCKED':
      return { kind: 'retryable' };
    default:
      return null;
  }
}

/** SQLite names the columns, not the index: "UNIQUE constraint failed: ports.network_id, ports.mac_address". */
function constraintFromMessage(error: unknown): string | undefined {
  const message = (error as { message?: unknown }).message;
  if (typeof message !== 'string') return undefined;
  const m = /constraint failed: (.*)$/.exec(message);
  return m?.[1];
}
