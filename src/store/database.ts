/**
 * Opens the store named by a URL (`sqlite:PATH`, `postgres://...` or `mysql://...`), runs the migrations, and
 * runs transactions with the retry policy every write shares.
 *
 * This module owns the connection lifecycle and the retry loop; it knows nothing of Neutron.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Kysely, Migrator, type Migration, type Transaction } from 'kysely';
import type { DbBool, Schema } from './schema.js';
import {
  classifyWith,
  DatabaseUnavailable,
  isConflict,
  isTransientOutage,
  type DbErrorInfo,
  type StoreDialect,
  UnsupportedDatabaseUrl,
} from './dialect.js';
import { guardDialect } from './guarded-dialect.js';
import { isMysqlUrl } from './mysql/url.js';
import { createOutageTracker, type StoreEvents } from './outage.js';
import * as m0001 from './migrations/0001-initial.js';
import * as m0002 from './migrations/0002-routers.js';
import * as m0003 from './migrations/0003-subnetpools.js';
import * as m0004 from './migrations/0004-bgp.js';
import * as m0005 from './migrations/0005-port-bindings.js';
import * as m0006 from './migrations/0006-qos.js';
import * as m0007 from './migrations/0007-deployment-identity.js';
import * as m0008 from './migrations/0008-qos-policy-rbacs.js';
import * as m0009 from './migrations/0009-port-list-indexes.js';

export { UnsupportedDatabaseUrl };
export type Tx = Transaction<Schema>;
export type Db = Kysely<Schema>;

/** Every migration, in order. A new migration is a new file and one line here. */
const MIGRATIONS: Record<string, Migration> = {
  '0001-initial': m0001,
  '0002-routers': m0002,
  '0003-subnetpools': m0003,
  '0004-bgp': m0004,
  '0005-port-bindings': m0005,
  '0006-qos': m0006,
  '0007-deployment-identity': m0007,
  '0008-qos-policy-rbacs': m0008,
  '0009-port-list-indexes': m0009,
};

export interface Store {
  readonly db: Db;
  readonly dialect: StoreDialect;
  /** The value to write into a boolean column. */
  bool(value: boolean): DbBool;
  /**
   * Runs `fn` in one transaction. When the database refuses it for a reason another attempt can
   * fix (a unique index taken or a referenced row deleted by a concurrent writer, a serialisation
   * failure), the whole function runs again on fresh state, up to `maxAttempts` times; `fn` must
   * therefore be free of side effects outside the transaction. A transient outage (connection
   * lost, server restarting, busy file) is retried too, after a growing pause, while the retry
   * budget lasts; what is left of an outage leaves as `DatabaseUnavailable`.
   */
  transaction<T>(fn: (tx: Tx) => Promise<T>, options?: { maxAttempts?: number }): Promise<T>;
  classifyError(error: unknown): DbErrorInfo | null;
  /**
   * Serialises transactions that name the same key until they end (a PostgreSQL advisory lock, a locked row in MySQL);
   * a no-op where the database already serialises writers.
   */
  lockKey(tx: Tx, key: string): Promise<void>;
  /**
   * Runs `fn` only if no other process sharing the database is running work under the same key
   * (a PostgreSQL advisory lock, a MySQL row lock, held by an otherwise idle transaction while `fn` runs); resolves
   * false without running it otherwise. With SQLite, one process owns the file: `fn` just runs.
   */
  exclusively(key: string, fn: () => Promise<void>): Promise<boolean>;
  /**
   * A text that changes whenever anything is written to the database, read without a query
   * plan: equal tokens before two reads mean the second would see what the first saw. Undefined
   * where the database has no cheap exact one (PostgreSQL, MySQL: other replicas write unseen).
   */
  changeToken(): string | undefined;
  close(): Promise<void>;
}

export interface StoreOptions {
  /** Connections per process (PostgreSQL, MySQL). */
  poolSize?: number;
  /** Run the migrations on open (default true). */
  migrate?: boolean;
  /** Told when the database drops a connection (the pool reconnects by itself). */
  onConnectionLost?: (error: Error) => void;
  /** Giving up on connecting (or on a free pooled connection) after this long (PostgreSQL, MySQL). */
  connectTimeoutMs?: number;
  /** Closing a pooled connection idle this long (PostgreSQL, MySQL). */
  idleTimeoutMs?: number;
  /** Cancelling a statement running this long; 0 for never (PostgreSQL, MySQL). */
  statementTimeoutMs?: number;
  /** How long a transaction keeps retrying a transient outage before it fails with DatabaseUnavailable. */
  retryBudgetMs?: number;
  /** Outages and classified errors, for logs and metrics. */
  events?: StoreEvents;
}

/** Default `retryBudgetMs`: a database restart or failover usually fits in it. */
const DEFAULT_RETRY_BUDGET_MS = 3000;
/** First and longest pause between attempts while the database is unavailable. */
const OUTAGE_BACKOFF_MS = { first: 50, max: 500 };

function outageBackoff(attempt: number): number {
  const ceiling = Math.min(OUTAGE_BACKOFF_MS.max, OUTAGE_BACKOFF_MS.first * 2 ** (attempt - 1));
  return ceiling / 2 + (Math.random() * ceiling) / 2;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The dialect for a database URL. Each dialect's driver is loaded only when used: a SQLite
 * deployment never loads `pg` or `mysql2`, a PostgreSQL one never loads the SQLite addon.
 */
export async function dialectForUrl(url: string, options: StoreOptions = {}): Promise<StoreDialect> {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (!path) throw new UnsupportedDatabaseUrl('sqlite: URL needs a path, e.g. sqlite:/var/lib/octonet/octonet.db');
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    const { createSqliteDialect } = await import('./sqlite/dialect.js');
    return createSqliteDialect(path);
  }
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    const { createPostgresDialect } = await import('./postgres/dialect.js');
    return createPostgresDialect(url, options);
  }
  if (isMysqlUrl(url)) {
    const { createMysqlDialect } = await import('./mysql/dialect.js');
    return createMysqlDialect(url, options);
  }
  throw new UnsupportedDatabaseUrl(
    `unsupported database URL (use sqlite:PATH, postgres://... or mysql://...): ${url.split(':')[0]}:...`,
  );
}

export async function openStore(url: string, options: StoreOptions = {}): Promise<Store> {
  const dialect = await dialectForUrl(url, options);
  const health = createOutageTracker(options.events);
  const classifyError = (e: unknown) => classifyWith(dialect.classifyError, e);
  const db = new Kysely<Schema>({
    dialect: guardDialect(dialect.createKyselyDialect(), dialect.classifyError, health),
  });
  const retryBudgetMs = options.retryBudgetMs ?? DEFAULT_RETRY_BUDGET_MS;
  if (options.migrate !== false) await migrate(db);
  const booleansAsIntegers = dialect.capabilities.booleansAsIntegers;
  return {
    db,
    dialect,
    bool: booleansAsIntegers ? (v) => (v ? 1 : 0) : (v) => v,
    classifyError,
    async transaction(fn, { maxAttempts = 12 } = {}) {
      const started = Date.now();
      for (let attempt = 1; ; attempt++) {
        try {
          return await db.transaction().execute(fn);
        } catch (error) {
          const kind = classifyError(error)?.kind;
          if (!kind) throw error;
          if (isConflict(kind)) {
            // Unique and foreign-key violations both mean a concurrent writer changed what this
            // transaction read; on the next attempt the service sees the new state and answers
            // with the proper error (IpAddressAlreadyAllocated, SecurityGroupNotFound, ...).
            if (attempt < maxAttempts) {
              // Colliding writers picked the same value; spread them out a little before the next try.
              await sleep(Math.random() * 2 * attempt);
              continue;
            }
            // A database that keeps refusing to serialise us is overloaded, not a bug: 503.
            if (kind === 'serialization-conflict') throw new DatabaseUnavailable(kind, error);
            throw error;
          }
          const retry =
            isTransientOutage(kind) &&
            !(error instanceof DatabaseUnavailable && error.outcomeUnknown) &&
            attempt < maxAttempts &&
            Date.now() - started < retryBudgetMs;
          if (!retry) throw error instanceof DatabaseUnavailable ? error : new DatabaseUnavailable(kind, error);
          await sleep(outageBackoff(attempt));
        }
      }
    },
    lockKey: (tx, key) => dialect.lockKey(tx, key),
    changeToken: () => dialect.changeToken?.(),
    async exclusively(key, fn) {
      if (!dialect.capabilities.concurrentWriters) {
        await fn();
        return true;
      }
      // Outside the transaction: a lock row created inside it would be invisible, yet locked, to
      // the other replicas until this work ends, and theirs would wait for it (MySQL).
      await dialect.prepareLockKey?.(db, key);
      return db.transaction().execute(async (tx) => {
        if (!(await dialect.tryLockKey(tx, key))) return false;
        await fn();
        return true;
      });
    },
    close: () => db.destroy(),
  };
}

/** Brings the schema up to date. Kysely's migrator takes a lock, so replicas may start together. */
export async function migrate(db: Kysely<Schema>): Promise<void> {
  // Neutron's own database (neutron.conf's `[database] connection`, unchanged) is read by
  // `octonet import`, never written: octonet's tables beside Neutron's would mix two schemas.
  const tables = await db.introspection.getTables();
  if (tables.some((t) => t.name === 'standardattributes')) {
    throw new Error(
      "this database is Neutron's (it has Neutron's standardattributes table): give octonet a database " +
        "of its own and copy Neutron's into it with `octonet import --from <this URL>`",
    );
  }
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => MIGRATIONS },
    migrationTableName: 'octonet_migrations',
    migrationLockTableName: 'octonet_migrations_lock',
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    throw new Error(`database migration ${failed ?? ''} failed: ${(error as Error).message ?? error}`);
  }
}
