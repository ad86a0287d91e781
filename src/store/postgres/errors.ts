/**
 * Maps node-postgres errors onto the store's error kinds: the server's SQLSTATE codes, the socket
 * errors of Node's `net`, and the messages node-postgres and its pool raise without a code.
 */
import type { DbErrorInfo, DbErrorKind } from '../dialect.js';

/** SQLSTATE codes with a kind of their own; classes (first two characters) are below. */
const SQLSTATE_KINDS: Readonly<Record<string, DbErrorKind>> = {
  '23505': 'unique-violation',
  '23503': 'foreign-key-violation',
  '40001': 'serialization-conflict', // serialization_failure
  '40P01': 'serialization-conflict', // deadlock_detected
  '55P03': 'busy', // lock_not_available
  '25006': 'read-only', // read_only_sql_transaction (a hot standby, default_transaction_read_only)
  '57014': 'unavailable', // query_canceled: statement_timeout
  '57P01': 'connection-lost', // admin_shutdown: pg_ctl stop -m fast, pg_terminate_backend
  '57P02': 'connection-lost', // crash_shutdown: pg_ctl stop -m immediate, a backend crashed
  '57P03': 'unavailable', // cannot_connect_now: starting up, shutting down, in recovery
  '57P04': 'connection-lost', // database_dropped
  '57P05': 'connection-lost', // idle_session_timeout
  '53300': 'unavailable', // too_many_connections
  '58030': 'unavailable', // io_error
};

/** SQLSTATE classes: 08 connection exception, 53 insufficient resources. */
const SQLSTATE_CLASS_KINDS: Readonly<Record<string, DbErrorKind>> = {
  '08': 'connection-lost',
  '53': 'full', // 53100 disk_full, 53200 out_of_memory, 53400 configuration_limit_exceeded
};

/** Node's socket errors while connecting or talking to the server. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** What node-postgres and pg-pool throw without a code when the connection is gone or never came. */
const CONNECTION_MESSAGES = [
  /^Connection terminated/, // "... unexpectedly", "... due to connection timeout"
  /^Query read timeout$/, // query_timeout: the server did not answer in time
  /^timeout exceeded when trying to connect$/, // pool: connectionTimeoutMillis
  /is not queryable$/, // a client whose connection already broke
];

export function classifyPostgresError(error: unknown): DbErrorInfo | null {
  const e = error as { code?: unknown; constraint?: unknown; message?: unknown; errors?: unknown } | null;
  if (!e || typeof e !== 'object') return null;
  const code = typeof e.code === 'string' ? e.code : undefined;
  if (code) {
    const kind = SQLSTATE_KINDS[code] ?? (code.length === 5 ? SQLSTATE_CLASS_KINDS[code.slice(0, 2)] : undefined);
    if (kind)
      return kind === 'unique-violation' || kind === 'foreign-key-violation'
        ? { kind, constraint: typeof e.constraint === 'string' ? e.constraint : undefined }
        : { kind };
    if (SOCKET_CODES.has(code)) return { kind: 'connection-lost' };
  }
  // Node reports a refused connection to every address of a name as an AggregateError.
  if (Array.isArray(e.errors) && e.errors.length > 0) return classifyPostgresError(e.errors[0]);
  if (typeof e.message === 'string' && CONNECTION_MESSAGES.some((re) => re.test(e.message as string))) {
    return { kind: 'connection-lost' };
  }
  return null;
}
