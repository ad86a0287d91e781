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
          return db;
        },
      });
    },
    classifyError: classifySqliteError,
    // One connection runs every transaction of the process in turn: nothing to lock.
    lockKey: async () => {},
  };
}
