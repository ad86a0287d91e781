/**
 * The in-memory copy of the monitored tables: applies `update2` notifications (ovsdb-server(7)
 * §4.1.14) row by row, swaps in a fresh snapshot after a reconnect while reporting exactly the
 * rows that changed meanwhile, and keeps the per-column indexes callers ask for.
 *
 * Rows are immutable: a change builds a new row object, so the `old` row of a change event stays
 * valid. This module owns replica state; it never talks to a server.
 *
 * At 100,000 ports the replica is most of the OVN driver's memory, so it is kept compact: strings
 * are interned (a project id, a network's name or a referenced row's uuid is held once, not once
 * per row that mentions it), and an index entry holding one row is that row's uuid, not a set.
 */
import { OvsdbProtocolError, OvsdbSchemaError } from './errors.js';
import type { ColumnSchema, DatabaseSchema, TableSchema } from './schema.js';
import { decodeRow, decodeValue, type AtomValue, type GenericRow, type Row, type RowValue } from './wire.js';

/** Table name → row type; `NbTables` and `SbTables` are the typed ones. */
export type TableRowTypes = { [table: string]: Row };
export type DefaultTables = Record<string, GenericRow>;
export type TableName<T extends TableRowTypes> = keyof T & string;
export type ColumnName<R> = Exclude<keyof R, '_uuid'> & string;

export type ChangeKind = 'insert' | 'modify' | 'delete';

interface TableRowChange<K extends string, R> {
  readonly table: K;
  readonly uuid: string;
  readonly kind: ChangeKind;
  /** The row after the change; absent for a delete. */
  readonly row?: R;
  /** The row before the change; absent for an insert. */
  readonly old?: R;
}

/** One row-level change; with typed tables, narrowing on `table` types `row` and `old`. */
export type RowChange<T extends TableRowTypes = DefaultTables> = {
  [K in TableName<T>]: TableRowChange<K, T[K]>;
}[TableName<T>];

/** What callers may do with a replica: read. */
export type ReplicaView<T extends TableRowTypes = DefaultTables> = Pick<
  Replica<T>,
  'table' | 'get' | 'findBy' | 'findOne' | 'findByKey' | 'counts'
>;

type Rows = Map<string, GenericRow>;
/**
 * Column value → the uuid of the one row holding it, or the uuids of several: an array while they
 * are few (a port is in two or three groups), a set beyond.
 */
type IndexEntry = string | string[] | Set<string>;
type ColumnIndex = Map<AtomValue, IndexEntry>;
/** Uuids an index entry holds in an array before it becomes a set. */
const SMALL_ENTRY = 8;
/** What an index is over: a column's values, or the values one key has in a map column. */
type IndexOf = (row: GenericRow) => readonly AtomValue[];
/**
 * An index with what it is over. `elementsOf` is set for an index of a set column's own elements:
 * a `modify` of that column names the elements it toggles, so only those are re-indexed.
 */
interface BuiltIndex {
  readonly index: ColumnIndex;
  readonly keysOf: IndexOf;
  readonly column: string;
  readonly elementsOf?: ColumnSchema;
}

/** Which columns of which tables a replica holds, as resolved against the server's schema. */
export type MonitoredColumns = ReadonlyMap<string, readonly string[]>;

const NO_ROWS: ReadonlyMap<string, GenericRow> = new Map();

function setsEqual(a: readonly AtomValue[], b: readonly AtomValue[]): boolean {
  if (a.length !== b.length) return false;
  const elements = new Set(a);
  return b.every((element) => elements.has(element));
}

export function valuesEqual(a: RowValue | undefined, b: RowValue | undefined): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && setsEqual(a as AtomValue[], b as AtomValue[]);
  }
  const aKeys = Object.keys(a);
  const bRecord = b as Record<string, AtomValue>;
  return (
    aKeys.length === Object.keys(b).length &&
    aKeys.every((key) => (a as Record<string, AtomValue>)[key] === bRecord[key])
  );
}

export function rowsEqual(a: GenericRow, b: GenericRow): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => valuesEqual(a[key], b[key]));
}

/**
 * Applies a `modify` row diff. Columns holding at most one value carry the new value; sets carry
 * the elements to toggle; maps carry pairs to insert (new key), delete (same value) or replace.
 * ovsdb's own IDL decides the same way (`Datum.diff` in python-ovs): toggle when the column may
 * hold several values or was empty, otherwise take the new value.
 */
function applyColumnDiff(column: ColumnSchema, old: RowValue | undefined, diff: unknown): RowValue {
  if (column.kind === 'set') {
    // Built from the few toggled elements, not from the old set: a port group holding every port
    // (100,000 of them) gains one member per port created, and a set of the old members each time
    // made every create cost as much as all the ports before it.
    const toggled = new Set(decodeValue(column, diff) as AtomValue[]);
    const kept = (old as readonly AtomValue[]).filter((element) => !toggled.delete(element));
    return toggled.size > 0 ? [...kept, ...toggled] : kept;
  }
  if (column.kind === 'map') {
    const entries = { ...(old as Record<string, AtomValue>) };
    for (const [key, value] of Object.entries(decodeValue(column, diff) as Record<string, AtomValue>)) {
      if (key in entries && entries[key] === value) delete entries[key];
      else entries[key] = value;
    }
    return entries;
  }
  return decodeValue(column, diff);
}

function indexKeys(value: RowValue | undefined): readonly AtomValue[] {
  if (value === null || value === undefined) return [];
  return Array.isArray(value) ? (value as AtomValue[]) : [value as AtomValue];
}

/** Whether an index entry holds this uuid. */
function entryHas(entry: IndexEntry | undefined, uuid: string): boolean {
  if (entry === undefined) return false;
  if (typeof entry === 'string') return entry === uuid;
  return Array.isArray(entry) ? entry.includes(uuid) : entry.has(uuid);
}

/** The uuids an index entry holds. */
function entryUuids(entry: IndexEntry | undefined): Iterable<string> {
  return entry === undefined ? [] : typeof entry === 'string' ? [entry] : entry;
}

/** How often a column's (or a map key's) strings were found already pooled. */
interface Sharing {
  seen: number;
  hits: number;
}

/** Strings a column must show before its sharing is judged, and the share of hits that keeps it pooled. */
const SHARING_SAMPLE = 512;
const SHARING_MIN_HITS = 0.25;

/**
 * One copy of each string the rows share. uuids that refer to rows are always pooled (a port's
 * uuid is also in its switch's and its groups' `ports`); a map's values only while that key shows
 * repeats: a project id repeats, a device id is unique, and pooling it would only add an entry. The pool forgets everything once it holds many more strings than there are rows
 * (deleted rows' strings would otherwise stay forever); rows decoded before keep their shared
 * copies, later ones start sharing again.
 */
class StringPool {
  private readonly strings = new Map<string, string>();
  /** column → map key (`''` for a column's own values) → how well its strings share. */
  private readonly sharing = new Map<ColumnSchema, Map<string, Sharing>>();

  /** A uuid (or any string that should be shared whatever its column shows). */
  intern(value: string): string {
    const held = this.strings.get(value);
    if (held !== undefined) return held;
    this.strings.set(value, value);
    return value;
  }

  /** A value of map `column` under `key`, pooled while that key's values repeat. */
  share(column: ColumnSchema, key: string, value: string): string {
    let byKey = this.sharing.get(column);
    if (!byKey) this.sharing.set(column, (byKey = new Map()));
    let sharing = byKey.get(key);
    if (!sharing) byKey.set(key, (sharing = { seen: 0, hits: 0 }));
    if (sharing.seen >= SHARING_SAMPLE && sharing.hits < sharing.seen * SHARING_MIN_HITS) return value;
    sharing.seen++;
    const held = this.strings.get(value);
    if (held !== undefined) {
      sharing.hits++;
      return held;
    }
    this.strings.set(value, value);
    return value;
  }

  /** Forgets every string (and what was learned about sharing) once the pool outgrew `limit`. */
  trim(limit: number): void {
    if (this.strings.size <= limit) return;
    this.strings.clear();
    this.sharing.clear();
  }
}

export class Replica<T extends TableRowTypes = DefaultTables> {
  private tables = new Map<string, Rows>();
  private schema: DatabaseSchema | undefined;
  private monitored: MonitoredColumns = new Map();
  /** table → column (or `column:key` of a map) → index, for what someone asked `findBy` about. */
  private readonly indexes = new Map<string, Map<string, BuiltIndex>>();
  private readonly pool = new StringPool();
  private rowCount = 0;
  /** Tables whose rows monitored columns refer to: their uuids are pooled. */
  private referenced = new Set<string>();

  /** The rows of a table by uuid; an empty map for a table that is not monitored. */
  table<K extends TableName<T>>(name: K): ReadonlyMap<string, T[K]>;
  table<R extends Row = GenericRow>(name: string): ReadonlyMap<string, R>;
  table(name: string): ReadonlyMap<string, Row> {
    return this.tables.get(name) ?? NO_ROWS;
  }

  get<K extends TableName<T>>(table: K, uuid: string): T[K] | undefined;
  get<R extends Row = GenericRow>(table: string, uuid: string): R | undefined;
  get(table: string, uuid: string): Row | undefined {
    return this.tables.get(table)?.get(uuid);
  }

  /**
   * Rows whose `column` holds `value` (for a set column: contains it), through an index built on
   * the first call for that column and kept up to date from then on.
   */
  findBy<K extends TableName<T>>(table: K, column: ColumnName<T[K]>, value: AtomValue): readonly T[K][];
  findBy<R extends Row = GenericRow>(table: string, column: string, value: AtomValue): readonly R[];
  findBy(table: string, column: string, value: AtomValue): readonly Row[] {
    return this.rowsOf(table, this.columnIndex(table, column).get(value));
  }

  /** Rows whose map `column` holds `key` → `value` (e.g. `external_ids:port_id`), through an index as `findBy`'s. */
  findByKey<K extends TableName<T>>(table: K, column: ColumnName<T[K]>, key: string, value: string): readonly T[K][];
  findByKey(table: string, column: string, key: string, value: string): readonly Row[] {
    return this.rowsOf(table, this.mapKeyIndex(table, column, key).get(value));
  }

  private rowsOf(table: string, entry: IndexEntry | undefined): readonly Row[] {
    if (entry === undefined) return [];
    const rows = this.tables.get(table)!;
    return typeof entry === 'string' ? [rows.get(entry)!] : [...entry].map((uuid) => rows.get(uuid)!);
  }

  /** The first row `findBy` returns, for columns the schema keeps unique (e.g. `name`). */
  findOne<K extends TableName<T>>(table: K, column: ColumnName<T[K]>, value: AtomValue): T[K] | undefined;
  findOne<R extends Row = GenericRow>(table: string, column: string, value: AtomValue): R | undefined;
  findOne(table: string, column: string, value: AtomValue): Row | undefined {
    for (const uuid of entryUuids(this.columnIndex(table, column).get(value))) return this.tables.get(table)!.get(uuid);
    return undefined;
  }

  /** Row count per table (for logs and tests). */
  counts(): Record<string, number> {
    return Object.fromEntries([...this.tables].map(([name, rows]) => [name, rows.size]));
  }

  /**
   * Replaces the whole content with a snapshot (the `initial` rows of a monitor reply) and returns
   * the changes between the two: rows that vanished, appeared, or differ. Unchanged rows keep their
   * old objects, so references callers hold stay valid.
   */
  replace(schema: DatabaseSchema, monitored: MonitoredColumns, snapshot: unknown): RowChange<T>[] {
    const fresh = new Map<string, Rows>();
    for (const name of monitored.keys()) fresh.set(name, new Map());
    this.schema = schema;
    this.monitored = monitored;
    this.referenced = referencedTables(schema, monitored);
    this.forEachRowUpdate(snapshot, (table, uuid, update) => {
      const row = update.initial ?? update.insert;
      if (row === undefined) throw new OvsdbProtocolError(`monitor reply row ${uuid} is not initial`);
      fresh.get(table.name)?.set(uuid, this.decode(table, uuid, row));
    });
    const changes: RowChange<DefaultTables>[] = [];
    for (const [name, rows] of this.tables) {
      if (fresh.has(name)) continue; // a table no longer monitored: its rows are gone for callers
      for (const [uuid, old] of rows) changes.push({ table: name, uuid, kind: 'delete', old });
    }
    for (const [name, rows] of fresh) {
      const before = this.tables.get(name) ?? new Map<string, GenericRow>();
      for (const [uuid, old] of before) {
        if (!rows.has(uuid)) changes.push({ table: name, uuid, kind: 'delete', old });
      }
      for (const [uuid, row] of rows) {
        const old = before.get(uuid);
        if (!old) changes.push({ table: name, uuid, kind: 'insert', row });
        else if (rowsEqual(old, row)) rows.set(uuid, old);
        else changes.push({ table: name, uuid, kind: 'modify', row, old });
      }
    }
    this.tables = fresh;
    this.rowCount = [...fresh.values()].reduce((sum, rows) => sum + rows.size, 0);
    this.pool.trim(4 * this.rowCount + 10_000);
    // Rebuilt lazily; cheaper than patching after a full swap.
    for (const byColumn of this.indexes.values()) for (const built of byColumn.values()) built.index.clear();
    this.indexes.clear();
    // Rows are decoded against the server's schema at run time; T is the compile-time view of it.
    return changes as unknown as RowChange<T>[];
  }

  /** Applies the `<table-updates2>` of one `update2` notification; returns what changed. */
  applyUpdate2(tableUpdates: unknown): RowChange<T>[] {
    const changes: RowChange<DefaultTables>[] = [];
    this.forEachRowUpdate(tableUpdates, (table, uuid, update) => {
      const rows = this.tables.get(table.name);
      if (!rows) return;
      const old = rows.get(uuid);
      let row: GenericRow | undefined;
      if (update.insert !== undefined || update.initial !== undefined) {
        row = this.decode(table, uuid, (update.insert ?? update.initial)!);
      } else if (update.modify !== undefined) {
        if (!old) throw new OvsdbProtocolError(`modify of unknown row ${table.name} ${uuid}`);
        row = this.applyRowDiff(table, old, update.modify);
      } else if (!('delete' in update)) {
        throw new OvsdbProtocolError(`row update for ${table.name} ${uuid} has no known member`);
      }
      if (row) rows.set(uuid, row);
      else if (old) rows.delete(uuid);
      else return;
      this.rowCount += (row ? 1 : 0) - (old ? 1 : 0);
      this.reindex(table.name, uuid, old, row, update.modify);
      if (!old) changes.push({ table: table.name, uuid, kind: 'insert', row: row! });
      else if (!row) changes.push({ table: table.name, uuid, kind: 'delete', old });
      else changes.push({ table: table.name, uuid, kind: 'modify', row, old });
    });
    this.pool.trim(4 * this.rowCount + 10_000);
    // Rows are decoded against the server's schema at run time; T is the compile-time view of it.
    return changes as unknown as RowChange<T>[];
  }

  private forEachRowUpdate(
    tableUpdates: unknown,
    visit: (table: TableSchema, uuid: string, update: Record<string, Record<string, unknown> | undefined>) => void,
  ): void {
    if (typeof tableUpdates !== 'object' || tableUpdates === null) {
      throw new OvsdbProtocolError('table updates are not an object');
    }
    for (const [tableName, rowUpdates] of Object.entries(tableUpdates)) {
      const table = this.schema?.tables.get(tableName);
      if (!table || !this.monitored.has(tableName)) continue;
      for (const [uuid, update] of Object.entries(rowUpdates as Record<string, unknown>)) {
        visit(table, uuid, update as Record<string, Record<string, unknown> | undefined>);
      }
    }
  }

  private decode(table: TableSchema, uuid: string, wire: Record<string, unknown>): GenericRow {
    const id = this.referenced.has(table.name) ? this.pool.intern(uuid) : uuid;
    const row = decodeRow(table, id, wire, this.monitored.get(table.name) ?? []) as Record<string, RowValue>;
    for (const name in row) {
      const column = table.columns.get(name);
      if (column) row[name] = this.internValue(column, row[name]!);
    }
    return row as GenericRow;
  }

  /**
   * The value with its strings taken from the pool (a fresh array or record is changed in place):
   * uuids, and the values of maps (`external_ids` repeat a project, a network, a group per row).
   * Other string columns (a name, an address) are left alone: they are each row's own.
   */
  private internValue(column: ColumnSchema, value: RowValue): RowValue {
    if (value === null || typeof value === 'number' || typeof value === 'boolean') return value;
    if (typeof value === 'string') return column.key.type === 'uuid' ? this.pool.intern(value) : value;
    if (Array.isArray(value)) {
      if (column.key.type !== 'uuid') return value;
      const elements = value as string[];
      for (let i = 0; i < elements.length; i++) elements[i] = this.pool.intern(elements[i]!);
      return elements;
    }
    const record = value as Record<string, AtomValue>;
    const uuids = column.value!.type === 'uuid';
    for (const key in record) {
      const element = record[key]!;
      if (typeof element === 'string')
        record[key] = uuids ? this.pool.intern(element) : this.pool.share(column, key, element);
    }
    return record;
  }

  private applyRowDiff(table: TableSchema, old: GenericRow, diff: Record<string, unknown>): GenericRow {
    const row: Record<string, RowValue> = { ...old };
    for (const [name, columnDiff] of Object.entries(diff)) {
      const column = table.columns.get(name);
      if (column && name in old) row[name] = this.internValue(column, applyColumnDiff(column, old[name], columnDiff));
    }
    return row as GenericRow;
  }

  private columnIndex(tableName: string, columnName: string): ColumnIndex {
    return this.index(tableName, columnName, columnName, (column) => {
      if (column.kind === 'map') throw new OvsdbSchemaError(`${tableName}.${columnName} is a map; it has no index`);
      return (row) => indexKeys(row[columnName]);
    });
  }

  private mapKeyIndex(tableName: string, columnName: string, key: string): ColumnIndex {
    return this.index(tableName, `${columnName}:${key}`, columnName, (column) => {
      if (column.kind !== 'map') throw new OvsdbSchemaError(`${tableName}.${columnName} is not a map`);
      return (row) => {
        const value = (row[columnName] as Readonly<Record<string, AtomValue>>)[key];
        return value === undefined ? [] : [value];
      };
    });
  }

  /** The index `name` of a table, built on first use from `keysOf` (given the column's schema). */
  private index(
    tableName: string,
    name: string,
    columnName: string,
    keysOf: (column: ColumnSchema) => IndexOf,
  ): ColumnIndex {
    let byColumn = this.indexes.get(tableName);
    const existing = byColumn?.get(name);
    if (existing) return existing.index;
    const column = this.schema?.tables.get(tableName)?.columns.get(columnName);
    const monitored = columnName === '_uuid' || this.monitored.get(tableName)?.includes(columnName);
    if (!column || !monitored) throw new OvsdbSchemaError(`${tableName}.${columnName} is not monitored`);
    const built: BuiltIndex = {
      index: new Map(),
      keysOf: keysOf(column),
      column: columnName,
      ...(name === columnName && column.kind === 'set' ? { elementsOf: column } : {}),
    };
    for (const [uuid, row] of this.tables.get(tableName) ?? []) addToIndex(built.index, built.keysOf(row), uuid);
    if (!byColumn) this.indexes.set(tableName, (byColumn = new Map()));
    byColumn.set(name, built);
    return built.index;
  }

  /**
   * Moves the row's entries in the table's indexes. A `modify` (`changed`: its row diff) touches
   * only the indexes of the columns it changed, and a set column's index only at the elements it
   * toggled: a port group holding every port (100,000) gains thousands in one transaction, and
   * comparing its whole old and new member lists cost ~230 MB of garbage and ~1 s of CPU over a
   * full pass into an empty NB.
   */
  private reindex(
    tableName: string,
    uuid: string,
    old: GenericRow | undefined,
    row: GenericRow | undefined,
    changed?: Record<string, unknown>,
  ): void {
    const byColumn = this.indexes.get(tableName);
    if (!byColumn) return;
    for (const { index, keysOf, column, elementsOf } of byColumn.values()) {
      if (changed && old && row) {
        if (!(column in changed)) continue;
        if (elementsOf) {
          // An element is in the old set exactly when the index lists this row under it.
          for (const element of new Set(decodeValue(elementsOf, changed[column]) as AtomValue[])) {
            if (entryHas(index.get(element), uuid)) removeFromIndex(index, element, uuid);
            else addToIndex(index, [element], uuid);
          }
          continue;
        }
      }
      const before = old ? keysOf(old) : [];
      const after = row ? keysOf(row) : [];
      if (before.length === 1 && after.length === 1 && before[0] === after[0]) continue;
      // Only the keys that came or went are touched (a large set column changes one element at a time).
      const added = new Set(after);
      for (const key of before) {
        if (!added.delete(key)) removeFromIndex(index, key, uuid);
      }
      addToIndex(index, [...added], uuid);
    }
  }
}

function referencedTables(schema: DatabaseSchema, monitored: MonitoredColumns): Set<string> {
  const tables = new Set<string>();
  for (const [name, columns] of monitored) {
    for (const columnName of columns) {
      const column = schema.tables.get(name)?.columns.get(columnName);
      for (const base of [column?.key, column?.value]) if (base?.refTable) tables.add(base.refTable);
    }
  }
  return tables;
}

function addToIndex(index: ColumnIndex, keys: readonly AtomValue[], uuid: string): void {
  for (const key of keys) {
    const entry = index.get(key);
    if (entry === undefined) index.set(key, uuid);
    else if (typeof entry === 'string') {
      if (entry !== uuid) index.set(key, [entry, uuid]);
    } else if (Array.isArray(entry)) {
      if (entry.includes(uuid)) continue;
      if (entry.length < SMALL_ENTRY) entry.push(uuid);
      else index.set(key, new Set([...entry, uuid]));
    } else entry.add(uuid);
  }
}

function removeFromIndex(index: ColumnIndex, key: AtomValue, uuid: string): void {
  const entry = index.get(key);
  if (entry === uuid) index.delete(key);
  else if (Array.isArray(entry)) {
    const at = entry.indexOf(uuid);
    if (at >= 0) entry.splice(at, 1);
    if (entry.length === 1) index.set(key, entry[0]!);
  } else if (typeof entry === 'object') {
    entry.delete(uuid);
    if (entry.size <= SMALL_ENTRY) index.set(key, [...entry]);
  }
}
