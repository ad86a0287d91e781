/**
 * The embedded SQLite store: one file, WAL journal, foreign keys on.
 *
 * better-sqlite3 is synchronous and Kysely runs every query of the process through one connection,
 * so write transactions are serialised inside the process; `busy_timeout` covers another process
 * (a CLI tool, a second octonet by mistake) holding the write lock for a moment.
 */
import Database from 'better-sqlite3';
import { SqliteDialect } from 'kysely';
import type { StoreDialect } from '../dialect.js';
import { classifySqliteError } from './errors.js';

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

/**
 * Makes `prepare` return a cached statement for SQL it has seen. Safe because better-sqlite3 is
 * synchronous and Kysely runs one statement to completion before the next (it never iterates two
 * results of one statement at once). Kysely reads only with `all()`, which `withFastRows` keeps.
 */
function withStatementCache(db: Database.Database): Database.Database {
  const cache = new Map<string, Database.Statement>();
  const prepare = db.prepare.bind(db);
  db.prepare = ((sql: string) => {
    let statement = cache.get(sql);
    if (statement) {
      cache.delete(sql); // re-insert: the Map's order is the eviction order
    } else {
      statement = prepare(sql);
      if (statement.reader) statement = withFastRows(statement);
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
    }
    cache.set(sql, statement);
    return statement;
  }) as typeof db.prepare;
  return db;
}

export function createSqliteDialect(path: string): StoreDialect {
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
      return new SqliteDialect({
        database: async () => {
          const db = new Database(path);
          db.pragma('journal_mode = WAL');
          db.pragma('synchronous = NORMAL');
          db.pragma('foreign_keys = ON');
          db.pragma('busy_timeout = 5000');
          return withStatementCache(db);
        },
      });
    },
    classifyError: classifySqliteError,
    // One connection runs every transaction of the process in turn: nothing to lock.
    lockKey: async () => {},
    tryLockKey: async () => true,
  };
}
