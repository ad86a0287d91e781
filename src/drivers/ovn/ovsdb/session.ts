/**
 * One session with one server: connect, check that the server may be used (the `_Server`
 * database's row for our database: clustered servers must be connected to their cluster, and be
 * the leader when `leaderOnly`), fetch the schema, start `monitor_cond`, and hand the snapshot and
 * then every update to the owner in wire order. A session ends when its connection closes, which it
 * also does itself when the server stops being usable (leadership moved elsewhere).
 *
 * This module owns the sequence of one session; reconnecting and the replica belong to client.ts.
 */
import { JsonRpcConnection } from './connection.js';
import { OvsdbRpcError, OvsdbServerNotUsable } from './errors.js';
import { Replica, type MonitoredColumns } from './replica.js';
import { declaredColumns, parseDatabaseSchema, type DatabaseSchema } from './schema.js';
import type { GenericRow } from './wire.js';

/** Structured logger, pino's shape. */
export interface OvsdbLogger {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  debug(object: object, message: string): void;
}

export const silentLogger: OvsdbLogger = { info() {}, warn() {}, debug() {} };

export type MonitoredTables = Readonly<Record<string, readonly string[] | 'all'>>;

export interface SessionOptions {
  remote: string;
  database: string;
  tables: MonitoredTables;
  leaderOnly: boolean;
  echoIntervalMs: number;
  connectTimeoutMs: number;
  /** How long a request may wait for its answer (see `JsonRpcConnectionOptions`). */
  callTimeoutMs?: number;
  logger: OvsdbLogger;
  /** Aborting ends the session, or the attempt to open it. */
  signal: AbortSignal;
}

export interface SessionHandlers {
  /**
   * The monitor reply (`<table-updates2>` of `initial` rows); called once, before any `onUpdate`
   * and before `open` resolves, with the session already usable for requests.
   */
  onSnapshot(session: Session, monitored: MonitoredColumns, tableUpdates: unknown): void;
  /** The `<table-updates2>` of one `update2` notification. A throw ends the session. */
  onUpdate(tableUpdates: unknown): void;
}

/** The monitor ids we pass as `<json-value>`; notifications echo them back. */
const DATABASE_MONITOR = 'octonet';
const SERVER_MONITOR = 'octonet-server';

/** The part of `_Server`'s schema we read; these columns exist since OVS 2.9. */
const SERVER_SCHEMA = parseDatabaseSchema({
  name: '_Server',
  tables: {
    Database: {
      columns: {
        name: { type: 'string' },
        model: { type: 'string' },
        connected: { type: 'boolean' },
        leader: { type: 'boolean' },
      },
    },
  },
});
const SERVER_COLUMNS: MonitoredColumns = new Map([['Database', ['name', 'model', 'connected', 'leader']]]);

/** Why a server must not be used for `database`, or undefined when it may. */
function unusableBecause(row: GenericRow | undefined, database: string, leaderOnly: boolean): string | undefined {
  if (!row) return `the server does not serve ${database}`;
  if (row.model !== 'clustered') return undefined;
  if (!row.connected) return `${database} is not connected to its cluster`;
  if (leaderOnly && !row.leader) return `${database} is not the cluster leader here`;
  return undefined;
}

/** Holds notifications that arrive before the reply they follow has been applied. */
class OrderedUpdates {
  private held: unknown[] | null = [];
  constructor(private readonly apply: (updates: unknown) => void) {}
  push(updates: unknown): void {
    if (this.held) this.held.push(updates);
    else this.apply(updates);
  }
  /** The reply has been applied: apply what was held, then everything as it comes. */
  release(): void {
    const held = this.held ?? [];
    this.held = null;
    for (const updates of held) this.apply(updates);
  }
}

export class Session {
  /** Resolves when the connection closes, with the reason (undefined after a plain `close()`). */
  readonly ended: Promise<Error | undefined>;

  private constructor(
    readonly connection: JsonRpcConnection,
    readonly schema: DatabaseSchema,
    ended: Promise<Error | undefined>,
  ) {
    this.ended = ended;
  }

  get remote(): string {
    return this.connection.remote;
  }

  close(reason?: Error): void {
    this.connection.close(reason);
  }

  /** Resolves once `onSnapshot` has run; rejects (and closes) when any step fails or the server is unusable. */
  static async open(options: SessionOptions, handlers: SessionHandlers): Promise<Session> {
    const { remote, database, leaderOnly, logger } = options;
    const connection = await JsonRpcConnection.connect(remote, options);
    const ended = new Promise<Error | undefined>((resolve) => connection.once('close', resolve));
    const fail = (error: unknown) => connection.close(error as Error);
    const serverRows = new Replica();
    const serverUpdates = new OrderedUpdates((updates) => {
      serverRows.applyUpdate2(updates);
      const reason = unusableBecause(serverRows.findOne('Database', 'name', database), database, leaderOnly);
      if (reason) fail(new OvsdbServerNotUsable(`${remote}: ${reason}`));
    });
    const databaseUpdates = new OrderedUpdates((updates) => handlers.onUpdate(updates));
    connection.on('notification', (method, params) => {
      if (method !== 'update2') return;
      try {
        if (params[0] === DATABASE_MONITOR) databaseUpdates.push(params[1]);
        else if (params[0] === SERVER_MONITOR) serverUpdates.push(params[1]);
      } catch (error) {
        fail(error);
      }
    });
    try {
      // Both requests go out at once: a server we cannot use is dropped after one round trip.
      const [serverReply, schemaJson] = await Promise.all([
        connection
          .request('monitor_cond', [
            '_Server',
            SERVER_MONITOR,
            { Database: { columns: SERVER_COLUMNS.get('Database'), where: [['name', '==', database]] } },
          ])
          .catch((error: unknown) => {
            // A server without `_Server` predates clustering: it is standalone.
            if (error instanceof OvsdbRpcError) return undefined;
            throw error;
          }),
        connection.request('get_schema', [database]),
      ]);
      if (serverReply !== undefined) {
        serverRows.replace(SERVER_SCHEMA, SERVER_COLUMNS, serverReply);
        const row = serverRows.findOne('Database', 'name', database);
        const reason = unusableBecause(row, database, leaderOnly);
        if (reason) throw new OvsdbServerNotUsable(`${remote}: ${reason}`);
        logger.debug({ remote, model: row?.model, leader: row?.leader }, 'ovsdb server usable');
      }
      serverUpdates.release();
      const schema = parseDatabaseSchema(schemaJson);
      const monitored = monitoredColumns(schema, options.tables, (missing) =>
        logger.warn({ remote, database, missing }, 'ovsdb schema lacks monitored tables or columns; skipping them'),
      );
      const requests = Object.fromEntries([...monitored].map(([table, columns]) => [table, { columns }]));
      const snapshot = await connection.request('monitor_cond', [database, DATABASE_MONITOR, requests]);
      const session = new Session(connection, schema, ended);
      handlers.onSnapshot(session, monitored, snapshot);
      databaseUpdates.release();
      return session;
    } catch (error) {
      fail(error);
      await connection.socketClosed;
      throw error;
    }
  }
}

/**
 * The tables and columns to monitor, as far as the server's schema has them: an older or newer
 * OVN may lack a column we know, and a replica without it beats no replica at all.
 */
export function monitoredColumns(
  schema: DatabaseSchema,
  tables: MonitoredTables,
  reportMissing: (missing: string[]) => void = () => {},
): MonitoredColumns {
  const monitored = new Map<string, string[]>();
  const missing: string[] = [];
  for (const [name, wanted] of Object.entries(tables)) {
    const table = schema.tables.get(name);
    if (!table) {
      missing.push(name);
      continue;
    }
    const available = declaredColumns(table);
    if (wanted === 'all') monitored.set(name, available);
    else {
      for (const column of wanted) if (!table.columns.has(column)) missing.push(`${name}.${column}`);
      monitored.set(
        name,
        wanted.filter((column) => available.includes(column)),
      );
    }
  }
  if (missing.length > 0) reportMissing(missing);
  return monitored;
}
