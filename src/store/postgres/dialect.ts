/**
 * The shared store: PostgreSQL, for several `serve` replicas on one database.
 *
 * Transactions run at READ COMMITTED; the invariants that span rows (overlapping subnets, quota
 * counts) take row locks (`supportsRowLocks`), and unique indexes are the last line against
 * duplicates, retried by the store's transaction helper.
 */
import { PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { StoreDialect } from '../dialect.js';
import { classifyPostgresError } from './errors.js';

// Bigint columns (COUNT(*)) come back as strings by default; every count here fits a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (v: string) => Number(v));

export function createPostgresDialect(
  url: string,
  poolSize = 10,
  onConnectionLost: (error: Error) => void = () => {},
): StoreDialect {
  const safeUrl = url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
  return {
    name: 'postgres',
    describe: safeUrl,
    capabilities: {
      supportsRowLocks: true,
      booleansAsIntegers: false,
      concurrentWriters: true,
      maxBoundParameters: 30000,
    },
    createKyselyDialect() {
      const pool = new pg.Pool({ connectionString: url, max: poolSize });
      // An idle connection the server closes (restart, failover, pg_terminate_backend) is dropped
      // by the pool and the next query connects afresh; without a listener its 'error' event
      // would be an uncaught exception that ends the process.
      pool.on('error', (error) => onConnectionLost(error));
      return new PostgresDialect({ pool });
    },
    classifyError: classifyPostgresError,
    async lockKey(tx, key) {
      await sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(tx);
    },
    async tryLockKey(tx, key) {
      const result = await sql<{
        locked: boolean;
      }>`select pg_try_advisory_xact_lock(hashtextextended(${key}, 0)) as locked`.execute(tx);
      return result.rows[0]?.locked === true;
    },
  };
}
