/**
 * Maps mysql2 errors onto the store's error kinds: the server's error numbers (MySQL's and
 * MariaDB's own, Galera's), the socket errors of Node's `net`, and mysql2's client-side codes.
 * Server errors are matched by number (`errno`): mysql2 names only MySQL's numbers in `code`, so a
 * MariaDB-only error (1927 connection killed, 1969 statement timeout) arrives without a name.
 */
import type { DbErrorInfo, DbErrorKind } from '../dialect.js';

const ERRNO_KINDS: Readonly<Record<number, DbErrorKind>> = {
  1062: 'unique-violation', // ER_DUP_ENTRY
  1586: 'unique-violation', // ER_DUP_ENTRY_WITH_KEY_NAME
  1216: 'foreign-key-violation', // ER_NO_REFERENCED_ROW
  1217: 'foreign-key-violation', // ER_ROW_IS_REFERENCED
  1451: 'foreign-key-violation', // ER_ROW_IS_REFERENCED_2
  1452: 'foreign-key-violation', // ER_NO_REFERENCED_ROW_2
  1213: 'serialization-conflict', // ER_LOCK_DEADLOCK (also Galera's certification failure)
  1020: 'serialization-conflict', // ER_CHECKREAD: record changed since last read (snapshot isolation)
  1205: 'busy', // ER_LOCK_WAIT_TIMEOUT: innodb_lock_wait_timeout, or NOWAIT on MariaDB
  3572: 'busy', // ER_LOCK_NOWAIT (MySQL)
  1290: 'read-only', // ER_OPTION_PREVENTS_STATEMENT: --read-only, a replica
  1792: 'read-only', // ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION
  1836: 'read-only', // ER_READ_ONLY_MODE (MySQL)
  1114: 'full', // ER_RECORD_FILE_FULL: the table is full
  1021: 'full', // ER_DISK_FULL
  1037: 'full', // ER_OUTOFMEMORY
  1041: 'full', // ER_OUT_OF_RESOURCES
  1040: 'unavailable', // ER_CON_COUNT_ERROR: too many connections
  1203: 'unavailable', // ER_TOO_MANY_USER_CONNECTIONS
  1317: 'unavailable', // ER_QUERY_INTERRUPTED: KILL QUERY
  1969: 'unavailable', // ER_STATEMENT_TIMEOUT (MariaDB max_statement_time)
  3024: 'unavailable', // ER_QUERY_TIMEOUT (MySQL max_execution_time)
  1047: 'unavailable', // ER_UNKNOWN_COM_ERROR: a Galera node not yet synced ("WSREP has not yet prepared node")
  1053: 'connection-lost', // ER_SERVER_SHUTDOWN
  1927: 'connection-lost', // ER_CONNECTION_KILLED (MariaDB)
  1152: 'connection-lost', // ER_ABORTING_CONNECTION
  1184: 'connection-lost', // ER_NEW_ABORTING_CONNECTION
  2002: 'connection-lost', // CR_CONNECTION_ERROR
  2003: 'connection-lost', // CR_CONN_HOST_ERROR
  2006: 'connection-lost', // CR_SERVER_GONE_ERROR
  2013: 'connection-lost', // CR_SERVER_LOST
};

/** mysql2's own codes and Node's socket errors: the connection is gone or never came. */
const CONNECTION_CODES = new Set([
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT', // a query or connect timeout: the connection is abandoned
  'PROTOCOL_ENQUEUE_AFTER_FATAL_ERROR',
  'PROTOCOL_ENQUEUE_AFTER_QUIT',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENOENT', // no socket file: the server is not running
]);

/** What mysql2 and octonet's pool throw without a code when the connection is gone or never came. */
const CONNECTION_MESSAGES = [
  /^Can't add new command when connection is in closed state$/,
  /^Connection lost: The server closed the connection\.$/,
  /^timeout waiting for a free database connection/, // ./dialect.ts's pool wait limit
];

export function classifyMysqlError(error: unknown): DbErrorInfo | null {
  const e = error as { errno?: unknown; code?: unknown; message?: unknown; errors?: unknown } | null;
  if (!e || typeof e !== 'object') return null;
  const kind = typeof e.errno === 'number' ? ERRNO_KINDS[e.errno] : undefined;
  if (kind) {
    return kind === 'unique-violation' || kind === 'foreign-key-violation'
      ? { kind, constraint: constraintFromMessage(e.message) }
      : { kind };
  }
  if (typeof e.code === 'string' && CONNECTION_CODES.has(e.code)) return { kind: 'connection-lost' };
  // Node reports a refused connection to every address of a name as an AggregateError.
  if (Array.isArray(e.errors) && e.errors.length > 0) return classifyMysqlError(e.errors[0]);
  if (typeof e.message === 'string' && CONNECTION_MESSAGES.some((re) => re.test(e.message as string))) {
    return { kind: 'connection-lost' };
  }
  return null;
}

/**
 * The index or foreign key named in the message: "Duplicate entry 'x' for key 'ports_network_mac'"
 * (MySQL 8 prefixes the table: 'ports.ports_network_mac'), "... CONSTRAINT `ports_ibfk_1` FOREIGN KEY ...".
 */
function constraintFromMessage(message: unknown): string | undefined {
  if (typeof message !== 'string') return undefined;
  const key = /for key '(?:[^'.]*\.)?([^']*)'/.exec(message) ?? /CONSTRAINT `([^`]*)`/.exec(message);
  return key?.[1];
}
