/**
 * What differs between the databases octonet runs on, as data rather than `instanceof` checks.
 *
 * `store/sqlite/` and `store/postgres/` each export a `StoreDialect` built from the same file set
 * (`dialect.ts`, `errors.ts`); everything else in `store/` and `core/` reads only these flags.
 */
import type { Dialect, Kysely } from 'kysely';

export type DbErrorKind =
  /** A unique or primary-key constraint refused a row: somebody else took the value first. */
  | 'unique-violation'
  /** A foreign key refused a row or a delete: the parent vanished or a child still exists. */
  | 'foreign-key-violation'
  /** The database gave up on the transaction and asks for it to be run again. */
  | 'retryable';

export interface DbErrorInfo {
  readonly kind: DbErrorKind;
  /** Constraint or index name when the database reports one. */
  readonly constraint?: string;
}

export interface StoreCapabilities {
  /** `SELECT ... FOR UPDATE` takes a row lock (PostgreSQL). SQLite serialises writers instead. */
  readonly supportsRowLocks: boolean;
  /** Booleans are stored as 0/1 integers (SQLite). */
  readonly booleansAsIntegers: boolean;
  /** Several processes may write concurrently, so cross-row invariants need explicit locks. */
  readonly concurrentWriters: boolean;
  /** Largest number of bound parameters in one statement that is safe to use. */
  readonly maxBoundParameters: number;
}

export interface StoreDialect {
  readonly name: 'sqlite' | 'postgres';
  readonly capabilities: StoreCapabilities;
  /** The Kysely dialect connected to the database. */
  createKyselyDialect(): Dialect;
  /** Recognises the database's own errors; null for anything else. */
  classifyError(error: unknown): DbErrorInfo | null;
  /** The URL with any password masked, for logs. */
  readonly describe: string;
  /** Holds a transaction-scoped lock on `key` (see `Store.lockKey`). */
  lockKey(tx: Kysely<any>, key: string): Promise<void>;
  /** Takes a transaction-scoped lock on `key` if nobody holds it; false when somebody does. */
  tryLockKey(tx: Kysely<any>, key: string): Promise<boolean>;
}
