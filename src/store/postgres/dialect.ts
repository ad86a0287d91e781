/**
 * The shared store: PostgreSQL, for several `serve` replicas on one database.
 *
 * Transactions run at READ COMMITTED; the invariants that span rows (overlapping subnets, quota
 * counts) take row locks (`supportsRowLocks`), and unique indexes are the last line against
 * duplicates, retried by the store's transaction helper.
 *
 * This module also owns the pool's behaviour when the server goes away: every connection has an
 * 'error' listener (a server that kills a checked-out connection must not end the process), a
 * connection whose query broke or timed out is destroyed instead of going back to the pool, and
 * connecting and every statement have a time limit, so a frozen server costs a bounded wait.
 */
import { PostgresDialect, sql, type PostgresPool, type PostgresPoolClient } from 'kysely';
import pg from 'pg';
import type { StoreDialect } from '../dialect.js';
import { classifyPostgresError } from './errors.js';
import { isStalePreparedStatement, StatementNames } from './named-statements.js';

// Bigint columns (COUNT(*)) come back as strings by default; every count here fits a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (v: string) => Number(v));

export interface PostgresPoolOptions {
  /** Connections per process. */
  poolSize?: number;
  /** Giving up on a new connection (or a free one, when all are busy) after this long. */
  connectTimeoutMs?: number;
  /** Closing a connection idle this long. */
  idleTimeoutMs?: number;
  /** The server cancels a statement running this long (`statement_timeout`); 0 for never. */
  statementTimeoutMs?: number;
  /** Told when the server drops a connection, idle or in use (the pool replaces it). */
  onConnectionLost?: (error: Error) => void;
}

/**
 * How much longer than `statement_timeout` the client waits for an answer before it declares the
 * connection dead: the server's own cancel normally comes first; this covers a server that
 * cannot answer at all (frozen, network gone).
 */
const CLIENT_TIMEOUT_SLACK_MS = 1000;

/** Kysely's transaction statements, to know whether a failed read aborted a transaction. */
const TRANSACTION_START = /^\s*(begin|start transaction)\b/i;
const TRANSACTION_END = /^\s*(commit|rollback)\s*$/i;

/** ROLLBACK failing means the connection is in an unknown transaction state: not reusable. */
const ROLLBACK = /^\s*rollback\b/i;

/**
 * The pool as Kysely sees it, but a connection that failed in a way that leaves it unusable
 * (broken socket, client-side timeout with the statement possibly still running, failed ROLLBACK)
 * is destroyed on release instead of being handed to the next request.
 */
function discardingBrokenConnections(pool: pg.Pool): PostgresPool {
  const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const names = new StatementNames();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    let broken = false;
    // A statement of this connection was prepared against older columns: it sends nothing named
    // any more and is closed on release, so the pool's next connection prepares afresh.
    let stale = false;
    let inTransaction = false;
    const run = (text: string, parameters: readonly unknown[]) => {
      const name = stale ? undefined : names.nameOf(text);
      const values = parameters as unknown[];
      return name ? client.query({ name, text, values }) : client.query(text, values);
    };
    const query = async (text: string, parameters: readonly unknown[]) => {
      // After a client-side timeout the old statement may still occupy the connection: the
      // ROLLBACK that follows would wait out a second timeout behind it. Fail it at once.
      if (broken) throw new Error('Client has encountered a connection error and is not queryable');
      try {
        const result = await run(text, parameters);
        if (TRANSACTION_START.test(text)) inTransaction = true;
        else if (TRANSACTION_END.test(text)) inTransaction = false;
        return result;
      } catch (error) {
        if (TRANSACTION_END.test(text)) inTransaction = false;
        if (!stale && isStalePreparedStatement(error)) {
          stale = true;
          // Outside a transaction nothing was aborted: the same read, unnamed, answers now.
          if (!inTransaction) return await query(text, parameters);
        }
        if (classifyPostgresError(error)?.kind === 'connection-lost' || ROLLBACK.test(text)) broken = true;
        throw error;
      }
    };
    return {
      // Kysely passes a cursor only when configured with one; octonet never is.
      query: query as unknown as PostgresPoolClient['query'],
      release: () => client.release(broken || stale || undefined),
    };
  };
  return {
    async connect() {
      const client = await pool.connect();
      let wrapper = wrappers.get(client);
      if (!wrapper) wrappers.set(client, (wrapper = wrap(client)));
      return wrapper;
    },
    end: () => pool.end(),
  };
}

export function createPostgresDialect(url: string, options: PostgresPoolOptions = {}): StoreDialect {
  const {
    poolSize = 10,
    connectTimeoutMs = 5000,
    idleTimeoutMs = 30000,
    statementTimeoutMs = 15000,
    onConnectionLost = () => {},
  } = options;
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
      const pool = new pg.Pool({
        connectionString: url,
        max: poolSize,
        connectionTimeoutMillis: connectTimeoutMs,
        idleTimeoutMillis: idleTimeoutMs,
        keepAlive: true,
        ...(statementTimeoutMs > 0 && {
          statement_timeout: statementTimeoutMs,
          query_timeout: statementTimeoutMs + CLIENT_TIMEOUT_SLACK_MS,
        }),
      });
      // A connection the server closes (restart, failover, pg_terminate_backend) emits 'error' on
      // its client whether idle or checked out; unheard, that is an uncaught exception that ends
      // the process. The query in flight fails on its own and is classified by the store; the
      // pool then drops the client (it is no longer queryable) and connects afresh on demand.
      pool.on('connect', (client) => client.on('error', (error) => onConnectionLost(error)));
      // The pool re-emits idle clients' errors on itself: that needs a listener too.
      pool.on('error', () => {});
      return new PostgresDialect({ pool: discardingBrokenConnections(pool) });
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
