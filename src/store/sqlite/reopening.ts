/**
 * The one SQLite connection of the process, reopened after the file stopped being writable or
 * readable (a read-only remount after disk errors, a replaced mount, an I/O error): a connection
 * opened while the file was read-only stays read-only, and one whose file system was unmounted
 * keeps writing into the old one, so only a fresh open sees the repaired file.
 *
 * The reopen happens before the next statement that runs outside a transaction, never inside
 * one. It never creates the file: if it is not there (the disk is not mounted again yet), the
 * statement fails as unavailable and the next one tries again.
 */
import type Database from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';
import type { DbErrorKind } from '../dialect.js';

/** After these, the connection may be stuck with the file as it was: open it afresh. */
const REOPEN_AFTER: ReadonlySet<DbErrorKind> = new Set(['read-only', 'unavailable']);

const CHANGE_TOKEN_SQL = 'SELECT total_changes() AS t, (SELECT data_version FROM pragma_data_version) AS d';

export class ReopeningDatabase implements SqliteDatabase {
  private current: Database.Database | undefined;
  private reopen = false;
  /** Opens so far: a reopened connection counts its changes from zero again. */
  private opens = 1;

  constructor(
    /** Opens the file; `mustExist` for every open after the first. */
    private readonly open: (mustExist: boolean, onError: (error: unknown) => void) => Database.Database,
    private readonly classify: (error: unknown) => { kind: DbErrorKind } | null,
    /** False for `:memory:`: opening it again would give a new, empty database. */
    private readonly reopenable = true,
  ) {
    this.current = open(false, this.onError);
  }

  /** Told about every failed statement (by the statement wrappers `open` installs). */
  private readonly onError = (error: unknown) => {
    const kind = this.classify(error)?.kind;
    if (kind && REOPEN_AFTER.has(kind) && this.reopenable) this.reopen = true;
  };

  get inTransaction(): boolean {
    return this.current?.inTransaction === true;
  }

  prepare(sql: string): SqliteStatement {
    if (!this.current || (this.reopen && !this.current.inTransaction)) this.reconnect();
    try {
      return this.current!.prepare(sql);
    } catch (error) {
      // Preparing reads the schema: a replaced or unreadable file fails here first.
      this.onError(error);
      throw error;
    }
  }

  /**
   * A text that differs after any write to the file: by this connection (`total_changes()`, which
   * grows with every row a statement changed, committed or not) or by another connection or process
   * (`data_version`, which changes when one commits). Undefined while the connection is being
   * replaced or the read fails (the caller's own statements then meet the failure, classified).
   * Read outside Kysely's turn, it may count rows of a transaction still open: that only makes the
   * token change sooner, never later.
   */
  changeToken(): string | undefined {
    if (!this.current || this.reopen) return undefined;
    try {
      const row = this.current.prepare(CHANGE_TOKEN_SQL).get() as { t: number; d: number };
      return `${this.opens}:${row.t}:${row.d}`;
    } catch (error) {
      this.onError(error);
      return undefined;
    }
  }

  close(): void {
    this.current?.close();
    this.current = undefined;
  }

  private reconnect(): void {
    try {
      this.current?.close();
    } catch {
      // A connection on a dead file system may fail to close; it is dropped either way.
    }
    this.current = undefined;
    this.reopen = false;
    try {
      this.current = this.open(true, this.onError);
      this.opens++;
    } catch (error) {
      this.onError(error);
      this.reopen = true;
      throw error;
    }
  }
}
