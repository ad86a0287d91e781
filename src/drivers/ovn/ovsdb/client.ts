/**
 * `OvsdbClient`: one database (OVN_Northbound, OVN_Southbound) kept in an in-memory replica,
 * across reconnects. It tries the remotes round-robin with capped, jittered exponential backoff and
 * never gives up until `close()`; after every reconnect it diffs the fresh snapshot against the
 * replica, so listeners see exactly the rows inserted, changed and deleted while it was away.
 * `transact` encodes operations against the live schema and fails fast when not connected.
 *
 * This module owns the reconnect loop, events and counters; one session's protocol steps live in
 * session.ts, replica state in replica.ts.
 */
import { EventEmitter } from 'node:events';
import { OvsdbError, OvsdbNotConnected, OvsdbProtocolError, OvsdbTransactionError } from './errors.js';
import {
  decodeResults,
  describeOperation,
  encodeOperation,
  type Operation,
  type OperationResult,
} from './operations.js';
import {
  Replica,
  type ColumnName,
  type DefaultTables,
  type ReplicaView,
  type RowChange,
  type TableName,
  type TableRowTypes,
} from './replica.js';
import type { DatabaseSchema } from './schema.js';
import { Session, silentLogger, type MonitoredTables, type OvsdbLogger } from './session.js';

export interface OvsdbClientOptions<T extends TableRowTypes = DefaultTables> {
  /** ovsdb remotes (`tcp:HOST:PORT`, `unix:PATH`), tried round-robin. */
  remotes: readonly string[];
  /** The database to replicate, e.g. `OVN_Northbound`. */
  database: string;
  /**
   * Table → columns to monitor (`'all'` for every column). Tables and columns the server's schema
   * lacks are skipped with a warning (an older OVN), not treated as an error.
   */
  tables: NoInfer<{ readonly [K in TableName<T>]?: readonly ColumnName<T[K]>[] | 'all' }>;
  /**
   * For a clustered (RAFT) database, use only the leader, and move when leadership moves. Default
   * true, as ovn-nbctl does: writes then go straight to the leader and reads are never stale. A
   * clustered server that has lost its cluster is refused either way; a standalone one always accepted.
   */
  leaderOnly?: boolean;
  /**
   * Interval of our `echo` keep-alive. The connection is closed when an echo went unanswered and
   * nothing at all arrived for six intervals while no other request of ours was waiting
   * (`JsonRpcConnection`). 0 disables it. Default 5000.
   */
  echoIntervalMs?: number;
  /**
   * Reconnect delay bounds: every remote is tried once, then the wait doubles per failed round
   * from `initialMs` up to `maxMs`, with jitter (half to all of it). Default 250 / 8000.
   */
  backoff?: { initialMs: number; maxMs: number };
  /** Time allowed to open a TCP connection. Default 10000. */
  connectTimeoutMs?: number;
  /**
   * Time a request (transact, echo, monitor) may wait for its answer; then it rejects with
   * `OvsdbCallTimeout` (a transaction's outcome is unknown), and an unanswered echo drops the
   * connection. Default 60000.
   */
  callTimeoutMs?: number;
  /** pino-shaped logger. Default silent. */
  logger?: OvsdbLogger;
}

interface OvsdbClientEvents {
  /** A session is up and its first snapshot is in the replica (change events for it follow). */
  connected: [remote: string];
  disconnected: [reason: Error | undefined];
  /** The replica equals the server's content as of the snapshot; the changes leading here were emitted. */
  synced: [];
}

export type ChangeListener<T extends TableRowTypes> = (changes: readonly RowChange<T>[]) => void;

/** Delay before reconnect attempt `round` (0-based): exponential, capped, with equal jitter. */
export function backoffDelay(round: number, initialMs: number, maxMs: number): number {
  const ceiling = Math.min(maxMs, initialMs * 2 ** Math.min(round, 30));
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

export class OvsdbClient<T extends TableRowTypes = DefaultTables> extends EventEmitter<OvsdbClientEvents> {
  private readonly replicaStore = new Replica<T>();
  private readonly changeListeners = new Set<ChangeListener<T>>();
  private readonly options: Required<OvsdbClientOptions<T>>;
  private session: Session | undefined;
  private isConnected = false;
  private isClosed = false;
  private loop: Promise<void> | undefined;
  private readonly lifetime = new AbortController();
  private wakeUp: (() => void) | undefined;
  private sleepTimer: NodeJS.Timeout | undefined;
  private started: Promise<void> | undefined;
  private firstSync: { resolve(): void; reject(error: Error): void } | undefined;
  private readonly counters = { transactionsSent: 0, transactionsFailed: 0, reconnects: 0, syncs: 0 };
  private lastSync: Date | undefined;

  constructor(options: OvsdbClientOptions<T>) {
    super();
    if (options.remotes.length === 0) throw new OvsdbError('OvsdbClient needs at least one remote');
    this.options = {
      ...options,
      leaderOnly: options.leaderOnly ?? true,
      echoIntervalMs: options.echoIntervalMs ?? 5000,
      backoff: options.backoff ?? { initialMs: 250, maxMs: 8000 },
      connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
      callTimeoutMs: options.callTimeoutMs ?? 60_000,
      logger: options.logger ?? silentLogger,
    };
  }

  /** The replicated tables. Read-only; it changes only when the client applies server updates. */
  get replica(): ReplicaView<T> {
    return this.replicaStore;
  }

  /** True while a session is up and synced (`transact` is accepted). */
  get connected(): boolean {
    return this.isConnected;
  }

  /** The remote of the current session, if any. */
  get currentRemote(): string | undefined {
    return this.isConnected ? this.session?.remote : undefined;
  }

  /** The schema of the current (or last) session. */
  get schema(): DatabaseSchema | undefined {
    return this.session?.schema;
  }

  get transactionsSent(): number {
    return this.counters.transactionsSent;
  }
  /** Transactions refused by the server or cut off by a lost connection. */
  get transactionsFailed(): number {
    return this.counters.transactionsFailed;
  }
  /** Sessions re-established after the first one. */
  get reconnects(): number {
    return this.counters.reconnects;
  }
  get lastSyncAt(): Date | undefined {
    return this.lastSync;
  }
  /** Echo keep-alives answered by the current session's server. */
  get echoRepliesReceived(): number {
    return this.session?.connection.echoRepliesReceived ?? 0;
  }
  /** Echo probes from the current session's server that we answered. */
  get serverEchoesAnswered(): number {
    return this.session?.connection.serverEchoesAnswered ?? 0;
  }

  /** Calls `listener` with each batch of row changes, in order. Returns the unsubscribe function. */
  onChange(listener: ChangeListener<T>): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** Resolves once connected with the first full replica loaded; keeps reconnecting until `close()`. */
  start(): Promise<void> {
    if (this.isClosed) return Promise.reject(new OvsdbError('client is closed'));
    this.started ??= new Promise<void>((resolve, reject) => {
      this.firstSync = { resolve, reject };
      this.loop = this.run();
    });
    return this.started;
  }

  /** Stops reconnecting, closes the connection and clears every timer. */
  async close(): Promise<void> {
    if (this.isClosed) return;
    this.isClosed = true;
    this.lifetime.abort();
    clearTimeout(this.sleepTimer);
    this.wakeUp?.();
    this.firstSync?.reject(new OvsdbError('client closed before the first sync'));
    this.firstSync = undefined;
    await this.loop;
  }

  /**
   * Runs one transaction. Rejects with `OvsdbNotConnected` at once when no synced session exists,
   * `OvsdbEncodeError` when an operation does not fit the schema (nothing sent), and
   * `OvsdbTransactionError` naming the failed operation when the server refuses. When the
   * connection drops mid-way it rejects with `OvsdbConnectionClosed`: the outcome is then unknown.
   * On success, the replica already holds the transaction's effect when the promise resolves
   * (ovsdb-server sends the monitor update before the reply).
   */
  async transact(operations: readonly Operation[]): Promise<OperationResult[]> {
    const session = this.session;
    if (!this.isConnected || !session) throw new OvsdbNotConnected(this.options.database);
    const encoded = operations.map((operation, index) => encodeOperation(session.schema, operation, index));
    this.counters.transactionsSent++;
    let results: (OperationResult | null)[];
    try {
      const reply = await session.connection.request('transact', [this.options.database, ...encoded]);
      results = decodeResults(session.schema, operations, reply);
    } catch (error) {
      this.counters.transactionsFailed++;
      throw error;
    }
    const failed = results.findIndex((result) => result?.error !== undefined);
    if (failed >= 0) {
      this.counters.transactionsFailed++;
      const { error, details } = results[failed]!;
      throw new OvsdbTransactionError(failed, describeOperation(operations[failed]), error!, details);
    }
    if (results.length < operations.length) {
      this.counters.transactionsFailed++;
      throw new OvsdbProtocolError(`transact returned ${results.length} results for ${operations.length} operations`);
    }
    return results.slice(0, operations.length) as OperationResult[];
  }

  private async run(): Promise<void> {
    const { remotes, backoff } = this.options;
    let next = 0;
    let failedRounds = 0;
    let failuresThisRound = 0;
    let shortSessions = 0;
    while (!this.isClosed) {
      const remote = remotes[next++ % remotes.length]!;
      try {
        const session = await Session.open(this.sessionOptions(remote), {
          onSnapshot: (opened, monitored, snapshot) => {
            this.session = opened;
            const changes = this.replicaStore.replace(opened.schema, monitored, snapshot);
            this.markSynced(remote, changes);
          },
          onUpdate: (updates) => this.emitChanges(this.replicaStore.applyUpdate2(updates)),
        });
        const openedAt = Date.now();
        failedRounds = 0;
        failuresThisRound = 0;
        const reason = await session.ended;
        this.isConnected = false;
        if (this.isClosed) {
          await session.connection.socketClosed;
          break;
        }
        this.options.logger.warn({ remote, reason: reason?.message }, 'ovsdb disconnected');
        this.notify('disconnected', reason);
        // The next remote is tried at once, unless sessions keep dying young (a crash loop, a
        // flapping leader): then each one waits longer, so we do not hammer the cluster with snapshots.
        if (Date.now() - openedAt >= backoff.maxMs) shortSessions = 0;
        else await this.sleep(backoffDelay(shortSessions++, backoff.initialMs, backoff.maxMs));
      } catch (error) {
        this.isConnected = false;
        if (this.isClosed) break;
        this.options.logger.info({ remote, reason: (error as Error).message }, 'ovsdb remote not usable');
        // Try every remote once before waiting: a cluster usually has a usable member.
        if (++failuresThisRound >= remotes.length) {
          failuresThisRound = 0;
          await this.sleep(backoffDelay(failedRounds++, backoff.initialMs, backoff.maxMs));
        }
      }
    }
  }

  private sessionOptions(remote: string) {
    const { database, tables, leaderOnly, echoIntervalMs, connectTimeoutMs, callTimeoutMs, logger } = this.options;
    const signal = this.lifetime.signal;
    return {
      remote,
      database,
      tables: tables as MonitoredTables,
      leaderOnly,
      echoIntervalMs,
      connectTimeoutMs,
      callTimeoutMs,
      logger,
      signal,
    };
  }

  private markSynced(remote: string, changes: RowChange<T>[]): void {
    if (this.isClosed) return;
    if (this.counters.syncs++ > 0) this.counters.reconnects++;
    this.isConnected = true;
    this.lastSync = new Date();
    this.options.logger.info({ remote, rows: this.replicaStore.counts(), changes: changes.length }, 'ovsdb synced');
    this.notify('connected', remote);
    this.emitChanges(changes);
    this.notify('synced');
    this.firstSync?.resolve();
    this.firstSync = undefined;
  }

  /** `emit`, except that a throwing listener is logged instead of breaking the session. */
  private notify<E extends keyof OvsdbClientEvents>(event: E, ...args: OvsdbClientEvents[E]): void {
    try {
      (this.emit as (event: E, ...args: OvsdbClientEvents[E]) => boolean)(event, ...args);
    } catch (error) {
      this.options.logger.warn({ event, error: (error as Error).message }, 'ovsdb event listener threw');
    }
  }

  private emitChanges(changes: readonly RowChange<T>[]): void {
    if (changes.length === 0) return;
    for (const listener of this.changeListeners) {
      try {
        listener(changes);
      } catch (error) {
        // A listener's bug must not tear the replica down; it is the listener's to fix.
        this.options.logger.warn({ error: (error as Error).message }, 'ovsdb change listener threw');
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.wakeUp = resolve;
      this.sleepTimer = setTimeout(resolve, ms);
    });
  }
}
