/** Maps node-postgres errors (SQLSTATE codes) onto the store's error kinds. */
import type { DbErrorInfo } from '../dialect.js';

export function classifyPostgresError(error: unknown): DbErrorInfo | null {
  const e = error as { code?: unknown; constraint?: unknown } | null;
  if (typeof e?.code !== 'string') return null;
  const constraint = typeof e.constraint === 'string' ? e.constraint : undefined;
  switch (e.code) {
    case '23505':
      return { kind: 'unique-violation', constraint };
    case '23503':
      return { kind: 'foreign-key-violation', constraint };
    case '40001': // serialization_failure
    case '40P01': // deadlock_detected
    case '55P03': // lock_not_available
      return { kind: 'retryable' };
    default:
      return null;
  }
}
