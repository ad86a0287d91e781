/**
 * Puts every statement octonet runs through the dialect's error classifier, in one place below
 * Kysely: reads outside a transaction (`store.db.selectFrom(...)`), transactions, migrations.
 *
 * An error of an outage kind (connection lost, unavailable, busy, full, read-only) leaves as a
 * `DatabaseUnavailable` wrapping the driver's error, so the API answers 503 whatever code path
 * ran the query; every classified error and every success is reported to `DatabaseHealth`, which
 * tracks outages. A failed ROLLBACK never replaces the error that caused it (SQLite rolls back by
 * itself on SQLITE_FULL, and Kysely's ROLLBACK then fails with "no transaction is active").
 *
 * It must not retry: retrying is the transaction helper's job (`database.ts`), where the whole
 * unit of work can run again.
 */
import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryResult, TransactionSettings } from 'kysely';
import { DatabaseUnavailable, isOutage, type DbErrorInfo, type DbErrorKind } from './dialect.js';

/** Told about every classified failure and every success; `database.ts` turns these into outages. */
export interface DatabaseHealth {
  failed(kind: DbErrorKind, error: unknown): void;
  succeeded(): void;
}

type Classify = (error: unknown) => DbErrorInfo | null;

/** The error as callers should see it: an outage kind wrapped, anything else untouched. */
function translate(error: unknown, classify: Classify, health: DatabaseHealth): unknown {
  if (error instanceof DatabaseUnavailable) return error;
  const info = classify(error);
  if (!info) return error;
  health.failed(info.kind, error);
  return isOutage(info.kind) ? new DatabaseUnavailable(info.kind, error) : error;
}

const GUARDED = Symbol('octonet.guarded');

class GuardedDriver implements Driver {
  constructor(
    private readonly inner: Driver,
    private readonly classify: Classify,
    private readonly health: DatabaseHealth,
  ) {}

  /** Runs one statement: a success tells `health` the database answers. */
  private async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      const result = await work();
      this.health.succeeded();
      return result;
    } catch (error) {
      throw translate(error, this.classify, this.health);
    }
  }

  async init(): Promise<void> {
    try {
      await this.inner.init();
    } catch (error) {
      throw translate(error, this.classify, this.health);
    }
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    let connection: DatabaseConnection;
    try {
      // Taking an idle pooled connection proves nothing about the server: no `succeeded` here.
      connection = await this.inner.acquireConnection();
    } catch (error) {
      throw translate(error, this.classify, this.health);
    }
    const marked = connection as DatabaseConnection & { [GUARDED]?: true };
    if (!marked[GUARDED]) {
      // Patched in place: the inner driver gets the same object back in begin/commit/release.
      const executeQuery = connection.executeQuery.bind(connection);
      const streamQuery = connection.streamQuery.bind(connection);
      const { classify, health } = this;
      marked.executeQuery = <R>(query: CompiledQuery) => this.guard<QueryResult<R>>(() => executeQuery<R>(query));
      marked.streamQuery = async function* <R>(query: CompiledQuery, chunkSize?: number) {
        try {
          yield* streamQuery<R>(query, chunkSize);
        } catch (error) {
          throw translate(error, classify, health);
        }
      };
      marked[GUARDED] = true;
    }
    return connection;
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.inner.beginTransaction(connection, settings);
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await this.inner.commitTransaction(connection);
    } catch (error) {
      // The COMMIT may have reached the database before the connection broke.
      if (error instanceof DatabaseUnavailable && error.kind === 'connection-lost') {
        throw new DatabaseUnavailable(error.kind, error.cause, true);
      }
      throw error;
    }
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await this.inner.rollbackTransaction(connection);
    } catch {
      // Kysely rethrows the error that made it roll back; a failed ROLLBACK (the transaction is
      // already gone, or so is the connection, which the pool then discards) must not replace it.
    }
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(connection);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

/** `inner` with every statement's errors classified and reported (see the module comment). */
export function guardDialect(inner: Dialect, classify: Classify, health: DatabaseHealth): Dialect {
  return {
    createAdapter: () => inner.createAdapter(),
    createIntrospector: (db) => inner.createIntrospector(db),
    createQueryCompiler: () => inner.createQueryCompiler(),
    createDriver: () => new GuardedDriver(inner.createDriver(), classify, health),
  };
}
