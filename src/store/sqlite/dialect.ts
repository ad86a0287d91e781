/**
 * The embedded SQLite store: one file, WAL journal, foreign keys on.
 *
 * better-sqlite3 is synchronous and Kysely runs every query of the process through one connection,
 * so write transactions are serialised inside the process. Another process (a CLI tool, a second
 * octonet by mistake) holding the write lock is waited for: transactions begin IMMEDIATE, so they
 * take the write lock first and wait `busy_timeout` for it (a DEFERRED transaction that reads and
 * then writes gets SQLITE_BUSY at once, without waiting, because waiting could deadlock), and the
 * store's transaction helper retries a lock still taken after that. After the file turned
 * read-only or unreadable, the connection is opened afresh (`reopening.ts`).
 */
import Database from 'better-sqlite3';
import { CompiledQuery, SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver } from 'kysely';
import type { StoreDialect } from '../dialect.js';
import { classifySqliteError } from './errors.js';
import { ReopeningDatabase } from './reopening.js';

/** Prepared statements kept per SQL text: Kysely prepares every query afresh, which costs more than running it. */
const STATEMENT_CACHE_SIZE = 512;

/**
 * Makes a reading statement build its row objects in JavaScript from raw arrays, through one
 * object literal per column list: V8 then gives every row the same shape, which is about twice as
 * fast as better-sqlite3 adding the properties one by one (a 1,000-port list reads 25 columns a row).
 */
function withFastRows(statement: Database.Statement): Database.Statement {
  const columns = statement.columns().map((c) => c.name);
  const makeRow = new Function(
    'r',
    `return {${columns.map((c, i) => `${JSON.stringify(c)}: r[${i}]`).join(', ')}};`,
  ) as (raw: unknown[]) => Record<string, unknown>;
  const raw = statement.raw(true);
  const rawAll = raw.all.bind(raw);
  const rawGet = raw.get.bind(raw);
  const rawIterate = raw.iterate.bind(raw);
  // Every way of reading must hand out objects again now that the statement is raw.
  return Object.assign(statement, {
    all: (...params: unknown[]) => (rawAll(...params) as unknown[][]).map(makeRow),
    get: (...params: unknown[]) => {
      const row = rawGet(...params) as unknown[] | undefined;
      return row && makeRow(row);
    },
    *iterate(...params: unknown[]) {
      for (const row of rawIterate(...params) as Iterable<unknown[]>) yield makeRow(row);
    },
  });
}

/** Tells `onError` about every failure of the two ways Kysely runs a statement (`all`, `run`). */
function withErrorHook(statement: Database.Statement, onError: (error: unknown) => void): Database.Statement {
  const all = statement.all.bind(statement);
  const run = statement.run.bind(statement);
  const hooked =
    <A extends unknown[], R>(fn: (...args: A) => R) =>
    (...args: A): R => {
      try {
        return fn(...args);
      } catch (error) {
        onError(error);
        throw error;
      }
    };
  return Object.assign(statement, { all: hooked(all), run: hooked(run) });
}

/**
 * Makes `prepare` return a cached statement for SQL it has seen. Safe because better-sqlite3 is
 * synchronous and Kysely runs one statement to completion before the next (it never iterates two
 * results of one statement at once). Kysely reads only with `all()`, which `withFastRows` keeps.
 */
function withStatementCache(db: Database.Database, onError: (error: unknown) => void): Database.Database {
  const cache = new Map<string, Database.Statement>();
  const prepare = db.prepare.bind(db);
  db.prepare = ((sql: string) => {
    let statement = cache.get(sql);
    if (statement) {
      cache.delete(sql); // re-insert: the Map's order is the eviction order
    } else {
      statement = prepare(sql);
      if (statement.reader) statement = withFastRows(statement);
      statement = withErrorHook(statement, onError);
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
    }
    cache.set(sql, statement);
    return statement;
  }) as typeof db.prepare;
  return db;
}

/**
 * How long one statement waits for another process's lock. Short, because better-sqlite3 waits
 * synchronously and so stalls every request of the process; longer locks are waited out between
 * attempts by the transaction helper, with the event loop free.
 */
const BUSY_TIMEOUT_MS = 1000;

/** Kysely's SQLite driver with write transactions (BEGIN IMMEDIATE) and a ROLLBACK only when one is open. */
class ImmediateSqliteDriver extends SqliteDriver {
  constructor(
    config: ConstructorParameters<typeof SqliteDriver>[0],
    private readonly inTransaction: () => boolean,
  ) {
    super(config);
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    // SQLite rolls back by itself on SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM and some SQLITE_BUSY:
    // a ROLLBACK then fails ("no transaction is active") and would hide the error that matters.
    if (this.inTransaction()) await super.rollbackTransaction(connection);
  }
}

/** One connection with octonet's settings; `mustExist` refuses to create the file. */
function openConnection(path: string, mustExist: boolean, onError: (error: unknown) => void): Database.Database {
  const db = new Database(path, { fileMustExist: mustExist });
  try {
    // busy_timeout first: switching to WAL needs the lock too.
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
  } catch (error) {
    db.close();
    throw error;
  }
  return withStatementCache(db, onError);
}

export function createSqliteDialect(path: string): StoreDialect {
  let opened: ReopeningDatabase | undefined;
  return {
    name: 'sqlite',
    describe: `sqlite:${path}`,
    capabilities: {
      supportsRowLocks: false,
      booleansAsIntegers: true,
      concurrentWriters: false,
      maxBoundParameters: 30000,
    },
    createKyselyDialect() {
      const config = {
        database: async () =>
          (opened = new ReopeningDatabase(
            (mustExist, onError) => openConnection(path, mustExist, onError),
            classifySqliteError,
            path !== ':memory:',
          )),
      };
      return Object.assign(new SqliteDialect(config), {
        createDriver: (): Driver => new ImmediateSqliteDriver(config, () => opened?.inTransaction === true),
      });
    },
    classifyError: classifySqliteError,
    changeToken: () => opened?.changeToken(),
    // One connection runs every transaction of the process in turn: nothing to lock.
    lockKey: async () => {},
    tryLockKey: async () => true,
  };
}
