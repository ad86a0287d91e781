/**
 * The shared store on MariaDB or MySQL (InnoDB), as Neutron's own deployments run it, through
 * Kysely's MySQL dialect on mysql2's pool.
 *
 * Choices, each made to behave as octonet does on PostgreSQL:
 * - Transactions run at READ COMMITTED, not InnoDB's default REPEATABLE READ: the services read,
 *   lock (`SELECT ... FOR UPDATE`, `supportsRowLocks`) and read again, and expect the second read
 *   to see what committed meanwhile, as on PostgreSQL; REPEATABLE READ would answer from the
 *   transaction's first snapshot and take gap locks that deadlock concurrent inserts.
 * - Text compares byte for byte (`utf8mb4_nopad_bin` on MariaDB, `utf8mb4_0900_bin` on MySQL):
 *   IDs, names, tags and filters match exactly, and trailing spaces count, as on PostgreSQL and
 *   SQLite. Neutron on MySQL inherits the server's case-insensitive default collation, so there
 *   `?name=web` also finds "Web"; octonet keeps one behaviour on every backend instead.
 * - The session's `sql_mode` is TRADITIONAL (strict), as oslo.db sets it for Neutron.
 * - `lockKey` locks a row of `octonet_lock_keys` (MySQL's GET_LOCK belongs to the session, not
 *   the transaction, so a pooled connection would keep it past COMMIT). `tryLockKey` (one replica's
 *   full pass) takes it with SKIP LOCKED; its row is created beforehand in an autocommit statement
 *   of its own (`prepareLockKey`): created inside the holder's transaction, the row would stay
 *   uncommitted and locked for the whole pass, and another replica's first try would wait for it
 *   (innodb_lock_wait_timeout, counted as an outage) instead of answering "held".
 * - Row locks are node-local on a Galera cluster: `SELECT … FOR UPDATE` on one node does not hold
 *   off a writer on another. A Galera cluster must be used single-writer (every replica writing
 *   through one node: haproxy with the other nodes as `backup` servers, as Kolla configures it),
 *   see docs/config.md.
 *
 * Like the PostgreSQL pool, this one survives a server that goes away: every connection has an
 * 'error' listener, a connection whose query broke or timed out is destroyed instead of returned,
 * and connecting, waiting for a free connection and every statement have a time limit.
 */
import { createHash } from 'node:crypto';
import { MysqlAdapter, MysqlDialect, MysqlIntrospector, sql, type Dialect, type MysqlPool } from 'kysely';
import mysql from 'mysql2';
import type { StoreDialect } from '../dialect.js';
import { OctonetMysqlQueryCompiler } from './compiler.js';
import { classifyMysqlError } from './errors.js';
import { describeMysqlUrl, parseMysqlUrl } from './url.js';

export interface MysqlPoolOptions {
  /** Connections per process. */
  poolSize?: number;
  /** Giving up on a new connection (or a free one, when all are busy) after this long. */
  connectTimeoutMs?: number;
  /** Closing a connection idle this long. */
  idleTimeoutMs?: number;
  /** The server stops a statement running this long (`max_statement_time`); 0 for never. */
  statementTimeoutMs?: number;
  /** Told when the server drops a connection, idle or in use (the pool replaces it). */
  onConnectionLost?: (error: Error) => void;
}

/** How much longer than the server's statement limit the client waits before it gives up on the connection. */
const CLIENT_TIMEOUT_SLACK_MS = 1000;

/** The table `lockKey` locks rows of: one row per key ever locked, named by the key's hash. */
const LOCK_TABLE = 'octonet_lock_keys';

/** ROLLBACK failing means the connection is in an unknown transaction state: not reusable. */
const ROLLBACK = /^\s*rollback\b/i;

type RawConnection = mysql.PoolConnection;
type Callback<T> = (error: Error | null, result?: T) => void;

/** A binary, no-pad utf8mb4 collation the server has (see the module comment). */
function binaryCollation(serverVersion: string): string {
  if (/mariadb/i.test(serverVersion)) return 'utf8mb4_nopad_bin';
  return Number(serverVersion.split('.')[0]) >= 8 ? 'utf8mb4_0900_bin' : 'utf8mb4_bin';
}

function run(connection: RawConnection, text: string, values: unknown[] = []): Promise<unknown> {
  return new Promise((resolve, reject) =>
    connection.query(text, values, (error, result) => (error ? reject(error) : resolve(result))),
  );
}

/** What every session needs before octonet's first statement on it (see the module comment). */
async function prepareSession(
  connection: RawConnection,
  serverVersion: string,
  statementTimeoutMs: number,
): Promise<void> {
  const mariadb = /mariadb/i.test(serverVersion);
  const limit =
    statementTimeoutMs <= 0
      ? []
      : mariadb
        ? [`max_statement_time = ${statementTimeoutMs / 1000}`]
        : [`max_execution_time = ${Math.round(statementTimeoutMs)}`];
  await run(connection, `set session sql_mode = 'TRADITIONAL', ${['time_zone = "+00:00"', ...limit].join(', ')}`);
  await run(connection, 'set session transaction isolation level read committed');
}

/**
 * mysql2's pool as Kysely reads it, with what `pg`'s pool does by itself and mysql2's does not:
 * a time limit on waiting for a free connection, and a connection that broke (lost, timed out,
 * failed ROLLBACK) destroyed on release instead of handed to the next request.
 */
function guardedPool(
  pool: mysql.Pool,
  options: Required<Omit<MysqlPoolOptions, 'poolSize' | 'idleTimeoutMs'>>,
  ready: (connection: RawConnection) => Promise<void>,
): MysqlPool {
  const prepared = new WeakSet<RawConnection>();
  const clientTimeoutMs = options.statementTimeoutMs > 0 ? options.statementTimeoutMs + CLIENT_TIMEOUT_SLACK_MS : 0;
  const wrap = (connection: RawConnection) => {
    let broken = false;
    return {
      query(text: string, values: unknown[], callback?: Callback<unknown>) {
        if (!callback) return connection.query(text, values); // a stream: Kysely reads it itself
        if (broken) {
          callback(new Error("Can't add new command when connection is in closed state"));
          return undefined;
        }
        return connection.query(
          { sql: text, ...(clientTimeoutMs && { timeout: clientTimeoutMs }) },
          values,
          (error, result) => {
            if (error && (classifyMysqlError(error)?.kind === 'connection-lost' || ROLLBACK.test(text))) broken = true;
            callback(error, result);
          },
        );
      },
      release() {
        if (broken) connection.destroy();
        else connection.release();
      },
    };
  };
  return {
    getConnection(callback) {
      let settled = false;
      const timer = setTimeout(() => {
        settled = true;
        callback(
          new Error(`timeout waiting for a free database connection (${options.connectTimeoutMs} ms)`),
          undefined as never,
        );
      }, options.connectTimeoutMs);
      pool.getConnection((error, connection) => {
        const finish = (failure: unknown) => {
          clearTimeout(timer);
          if (settled) {
            // The caller gave up meanwhile: the connection goes back unused.
            if (!failure) connection.release();
            else connection?.destroy();
            return;
          }
          settled = true;
          if (failure) callback(failure as Error, undefined as never);
          else callback(null, wrap(connection) as never);
        };
        if (error) return finish(error);
        if (prepared.has(connection)) return finish(null);
        connection.on('error', (e: Error) => options.onConnectionLost(e));
        ready(connection).then(
          () => {
            prepared.add(connection);
            finish(null);
          },
          (failure: unknown) => {
            connection.destroy();
            finish(failure);
          },
        );
      });
    },
    end: (callback) => pool.end(callback),
  };
}

export function createMysqlDialect(url: string, options: MysqlPoolOptions = {}): StoreDialect {
  const target = parseMysqlUrl(url);
  const {
    poolSize = 10,
    connectTimeoutMs = 5000,
    idleTimeoutMs = 30000,
    statementTimeoutMs = 15000,
    onConnectionLost = () => {},
  } = options;
  // Known once the first connection's handshake named the server; every CREATE TABLE comes after it.
  let collation = 'utf8mb4_bin';
  let lockTableReady: Promise<unknown> | undefined;
  const ready = async (connection: RawConnection) => {
    const [row] = (await run(connection, 'select version() as version')) as { version: string }[];
    const version = row?.version ?? '';
    collation = binaryCollation(version);
    await prepareSession(connection, version, statementTimeoutMs);
    lockTableReady ??= run(
      connection,
      `create table if not exists ${LOCK_TABLE} (name varchar(64) primary key) default character set utf8mb4 collate ${collation}`,
    ).catch((error: unknown) => {
      lockTableReady = undefined; // the next connection tries again
      throw error;
    });
    await lockTableReady;
  };
  const keyHash = (key: string) => createHash('sha256').update(key).digest('hex');
  return {
    name: 'mysql',
    describe: describeMysqlUrl(url),
    capabilities: {
      supportsRowLocks: true,
      booleansAsIntegers: true,
      concurrentWriters: true,
      // mysql2 inlines the parameters client-side: the limit is max_allowed_packet, not a count.
      maxBoundParameters: 30000,
    },
    createKyselyDialect(): Dialect {
      const pool = mysql.createPool({
        ...target,
        connectionLimit: poolSize,
        maxIdle: poolSize,
        idleTimeout: idleTimeoutMs,
        connectTimeout: connectTimeoutMs,
        enableKeepAlive: true,
        charset: 'UTF8MB4_BIN',
        // DECIMAL (SUM, AVG) as numbers like COUNT's BIGINT; every figure here fits a double.
        decimalNumbers: true,
        // Without IGNORE_SPACE, as pymysql connects: it would make built-in function names
        // (POSITION, a column of subnets) reserved words.
        flags: ['-IGNORE_SPACE'],
      });
      // Idle connections' fatal errors surface on their own listener (above); nothing else to tell.
      pool.on('error' as 'connection', () => {});
      const kysely = new MysqlDialect({
        pool: guardedPool(pool, { connectTimeoutMs, statementTimeoutMs, onConnectionLost }, ready),
      });
      return {
        createAdapter: () => new MysqlAdapter(),
        createDriver: () => kysely.createDriver(),
        createIntrospector: (db) => new MysqlIntrospector(db),
        createQueryCompiler: () => new OctonetMysqlQueryCompiler(() => collation),
      };
    },
    classifyError: classifyMysqlError,
    async lockKey(tx, key) {
      // Inserts the key's row, or locks it where it exists: either way it is ours until COMMIT.
      await sql`insert into ${sql.table(LOCK_TABLE)} (name) values (${keyHash(key)}) on duplicate key update name = name`.execute(
        tx,
      );
    },
    async prepareLockKey(db, key) {
      // A committed row, created by an autocommit statement of its own, is never waited for: the
      // lock itself is taken with SKIP LOCKED. The consistent read (no lock) sees a committed row
      // and skips the insert, whose duplicate check would wait for the row's holder.
      const name = keyHash(key);
      const exists = await sql<{
        n: number;
      }>`select count(*) as n from ${sql.table(LOCK_TABLE)} where name = ${name}`.execute(db);
      if (Number(exists.rows[0]?.n ?? 0) > 0) return;
      await sql`insert ignore into ${sql.table(LOCK_TABLE)} (name) values (${name})`.execute(db);
    },
    async tryLockKey(tx, key) {
      // The row exists (prepareLockKey): locked by somebody, it is skipped, and we answer false.
      const free = await sql<{
        name: string;
      }>`select name from ${sql.table(LOCK_TABLE)} where name = ${keyHash(key)} for update skip locked`.execute(tx);
      return free.rows.length > 0;
    },
  };
}
