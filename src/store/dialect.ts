/**
 * What differs between the databases octonet runs on, as data rather than `instanceof` checks,
 * and the one classification of database failures every caller shares.
 *
 * `store/sqlite/`, `store/postgres/` and `store/mysql/` each export a `StoreDialect` built from the same file set
 * (`dialect.ts`, `errors.ts`); everything else in `store/` and `core/` reads only these flags.
 * Each dialect's `errors.ts` maps its driver's errors onto `DbErrorKind`; what to do with a kind
 * (retry at once, retry after a pause, answer 503) is decided here, once.
 */
import type { Dialect, Kysely } from 'kysely';
import type { Schema } from './schema.js';

export type DbErrorKind =
  /** A unique or primary-key constraint refused a row: somebody else took the value first. */
  | 'unique-violation'
  /** A foreign key refused a row or a delete: the parent vanished or a child still exists. */
  | 'foreign-key-violation'
  /** The database gave up on the transaction (serialisation failure, deadlock) and asks for it to be run again. */
  | 'serialization-conflict'
  /** Another writer holds the lock (SQLite's busy file, a PostgreSQL lock wait that gave up). */
  | 'busy'
  /** The connection broke or could not be made (server restarted, backend terminated, network, pool timeout). */
  | 'connection-lost'
  /** The server is up but refuses work for now (starting up, shutting down, too many clients, statement timeout). */
  | 'unavailable'
  /** No space left for the write (disk, memory, SQLite's file size limit). */
  | 'full'
  /** The database accepts reads only (read-only file or mount, a hot standby). */
  | 'read-only';

export interface DbErrorInfo {
  readonly kind: DbErrorKind;
  /** Constraint or index name when the database reports one. */
  readonly constraint?: string;
}

/** Kinds that mean a concurrent writer got in the way: the transaction runs again at once. */
const CONFLICT_KINDS: ReadonlySet<DbErrorKind> = new Set([
  'unique-violation',
  'foreign-key-violation',
  'serialization-conflict',
]);
/** Kinds that mean the database itself is in trouble: the caller gets a 503, never a 500. */
const OUTAGE_KINDS: ReadonlySet<DbErrorKind> = new Set(['busy', 'connection-lost', 'unavailable', 'full', 'read-only']);
/** Outage kinds that usually pass within seconds: worth another attempt after a pause. */
const TRANSIENT_OUTAGE_KINDS: ReadonlySet<DbErrorKind> = new Set(['busy', 'connection-lost', 'unavailable']);

export function isConflict(kind: DbErrorKind): boolean {
  return CONFLICT_KINDS.has(kind);
}
export function isOutage(kind: DbErrorKind): boolean {
  return OUTAGE_KINDS.has(kind);
}
export function isTransientOutage(kind: DbErrorKind): boolean {
  return TRANSIENT_OUTAGE_KINDS.has(kind);
}

/**
 * The database could not do the work: what every outage-kind error (and a conflict that outlived
 * the retry budget) becomes when it leaves the store, wrapping the driver's error as `cause`.
 * The API answers it with 503 and `Retry-After`; the store never lets a driver error of these
 * kinds through unwrapped.
 */
export class DatabaseUnavailable extends Error {
  constructor(
    readonly kind: DbErrorKind,
    cause: unknown,
    /** The failure hit COMMIT: the transaction may or may not have been written, so it is not run again. */
    readonly outcomeUnknown = false,
  ) {
    super(`database unavailable (${kind}): ${(cause as { message?: unknown } | null)?.message ?? String(cause)}`, {
      cause,
    });
    this.name = 'DatabaseUnavailable';
  }

  /** Seconds a client should wait before trying again: longer when an operator must step in. */
  get retryAfterSeconds(): number {
    return isTransientOutage(this.kind) || isConflict(this.kind) ? 1 : 10;
  }
}

/** Runs the dialect's classifier, seeing through `DatabaseUnavailable` to the kind it carries. */
export function classifyWith(classify: (error: unknown) => DbErrorInfo | null, error: unknown): DbErrorInfo | null {
  if (error instanceof DatabaseUnavailable) return { kind: error.kind };
  return classify(error);
}

/** The database URL names no database octonet can open, or names one wrongly. */
export class UnsupportedDatabaseUrl extends Error {}

export interface StoreCapabilities {
  /** `SELECT ... FOR UPDATE` takes a row lock (PostgreSQL, MySQL). SQLite serialises writers instead. */
  readonly supportsRowLocks: boolean;
  /** Booleans are stored as 0/1 integers (SQLite, MySQL's TINYINT(1)). */
  readonly booleansAsIntegers: boolean;
  /** Several processes may write concurrently, so cross-row invariants need explicit locks. */
  readonly concurrentWriters: boolean;
  /** Largest number of bound parameters in one statement that is safe to use. */
  readonly maxBoundParameters: number;
}

export interface StoreDialect {
  readonly name: 'sqlite' | 'postgres' | 'mysql';
  readonly capabilities: StoreCapabilities;
  /** The Kysely dialect connected to the database. */
  createKyselyDialect(): Dialect;
  /** Recognises the database's own errors; null for anything else. */
  classifyError(error: unknown): DbErrorInfo | null;
  /** The URL with any password masked, for logs. */
  readonly describe: string;
  /** Holds a transaction-scoped lock on `key` (see `Store.lockKey`). */
  lockKey(tx: Kysely<Schema>, key: string): Promise<void>;
  /**
   * Takes a transaction-scoped lock on `key` if nobody holds it; false when somebody does. Where
   * locks are rows (MySQL), `prepareLockKey` must have run first, outside the transaction.
   */
  tryLockKey(tx: Kysely<Schema>, key: string): Promise<boolean>;
  /** Makes `key` lockable without waiting for anyone (MySQL: its row exists, committed). */
  prepareLockKey?(db: Kysely<Schema>, key: string): Promise<void>;
  /** See `Store.changeToken`; absent where no cheap exact token exists (a server several replicas write to). */
  changeToken?(): string | undefined;
}
