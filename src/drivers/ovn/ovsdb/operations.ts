/**
 * Transaction operations (RFC 7047 §5.2) as plain JS: a small typed builder (`op.insert`,
 * `op.update`, ...), their encoding against the schema, and the decoding of results.
 *
 * Values in rows, conditions and mutations are written as in decoded rows (uuids as strings,
 * sets as arrays, maps as records) plus `namedUuid(name)` for a row inserted in the same
 * transaction. This module owns operation shapes; it does not send anything.
 */
import { OvsdbEncodeError, OvsdbProtocolError } from './errors.js';
import type { ColumnName, DefaultTables, TableName, TableRowTypes } from './replica.js';
import type { DatabaseSchema, TableSchema } from './schema.js';
import {
  decodeRow,
  decodeAtom,
  encodeOperand,
  encodeRow,
  NamedUuid,
  type GenericRow,
  type RowValue,
  type WireValue,
} from './wire.js';

export type ConditionFunction = '==' | '!=' | 'includes' | 'excludes' | '<' | '<=' | '>' | '>=';
export type Mutator = '+=' | '-=' | '*=' | '/=' | '%=' | 'insert' | 'delete';

/** `[column, function, value]`, e.g. `['name', '==', 'sw0']` or `['ports', 'includes', portUuid]`. */
export type Condition = readonly [column: string, fn: ConditionFunction, value: unknown];
/** `[column, mutator, value]`, e.g. `['ports', 'insert', [namedUuid('p')]]`. */
export type Mutation = readonly [column: string, mutator: Mutator, value: unknown];

/** A value as written: decoded-row shapes, where any uuid may also be a `NamedUuid`. */
export type Writable<V> = V extends string
  ? V | NamedUuid
  : V extends readonly (infer E)[]
    ? readonly Writable<E>[]
    : V extends null
      ? null | undefined
      : V;
/** The columns of a typed row that a write may set, all optional. */
export type WriteRow<R> = { readonly [K in ColumnName<R>]?: Writable<R[K]> };

export interface InsertOperation {
  readonly op: 'insert';
  readonly table: string;
  readonly row: object;
  readonly uuidName?: string;
}
export interface UpdateOperation {
  readonly op: 'update';
  readonly table: string;
  readonly where: readonly Condition[];
  readonly row: object;
}
export interface MutateOperation {
  readonly op: 'mutate';
  readonly table: string;
  readonly where: readonly Condition[];
  readonly mutations: readonly Mutation[];
}
export interface DeleteOperation {
  readonly op: 'delete';
  readonly table: string;
  readonly where: readonly Condition[];
}
export interface SelectOperation {
  readonly op: 'select';
  readonly table: string;
  readonly where: readonly Condition[];
  readonly columns?: readonly string[];
}
export interface WaitOperation {
  readonly op: 'wait';
  readonly table: string;
  readonly where: readonly Condition[];
  readonly columns: readonly string[];
  /** `==`: go on only while the selected rows equal `rows`; `!=`: only once they differ. */
  readonly until: '==' | '!=';
  readonly rows: readonly object[];
  /** How long the server may wait for the condition; 0 (the default) fails at once. */
  readonly timeoutMs?: number;
}
export interface CommentOperation {
  readonly op: 'comment';
  readonly comment: string;
}

export type Operation =
  | InsertOperation
  | UpdateOperation
  | MutateOperation
  | DeleteOperation
  | SelectOperation
  | WaitOperation
  | CommentOperation;

/** One result per operation; `null` for operations the server skipped after an earlier failure. */
export interface OperationResult {
  /** insert: the new row's uuid. */
  readonly uuid?: string;
  /** update, mutate, delete: how many rows matched. */
  readonly count?: number;
  /** select: the rows, with the selected columns (all, including `_uuid`, when none were named). */
  readonly rows?: readonly Partial<GenericRow>[];
  readonly error?: string;
  readonly details?: string;
}

/** Builds operations; with a table type map, table and column names and row values are checked. */
export interface OperationBuilder<T extends TableRowTypes = DefaultTables> {
  insert<K extends TableName<T>>(table: K, row: WriteRow<T[K]>, options?: { uuidName?: string }): InsertOperation;
  update<K extends TableName<T>>(table: K, where: readonly Condition[], row: WriteRow<T[K]>): UpdateOperation;
  mutate<K extends TableName<T>>(
    table: K,
    where: readonly Condition[],
    mutations: readonly Mutation[],
  ): MutateOperation;
  delete<K extends TableName<T>>(table: K, where: readonly Condition[]): DeleteOperation;
  select<K extends TableName<T>>(table: K, where?: readonly Condition[], columns?: ColumnName<T[K]>[]): SelectOperation;
  wait<K extends TableName<T>>(
    table: K,
    where: readonly Condition[],
    options: {
      columns: readonly ColumnName<T[K]>[];
      rows: readonly WriteRow<T[K]>[];
      until?: '==' | '!=';
      timeoutMs?: number;
    },
  ): WaitOperation;
  /**
   * Optimistic concurrency: the transaction goes on only if `row` still holds, for `columns`,
   * the values it has in the replica (the usual guard before a read-modify-write).
   */
  waitUnchanged<K extends TableName<T>>(table: K, row: T[K], columns: readonly ColumnName<T[K]>[]): WaitOperation;
  comment(text: string): CommentOperation;
}

export const op: OperationBuilder = {
  insert: (table, row, options = {}) => ({
    op: 'insert',
    table,
    row,
    ...(options.uuidName && { uuidName: options.uuidName }),
  }),
  update: (table, where, row) => ({ op: 'update', table, where, row }),
  mutate: (table, where, mutations) => ({ op: 'mutate', table, where, mutations }),
  delete: (table, where) => ({ op: 'delete', table, where }),
  select: (table, where = [], columns) => ({ op: 'select', table, where, ...(columns && { columns }) }),
  wait: (table, where, { columns, rows, until = '==', timeoutMs }) => ({
    op: 'wait',
    table,
    where,
    columns,
    rows,
    until,
    ...(timeoutMs !== undefined && { timeoutMs }),
  }),
  waitUnchanged: (table, row, columns) => {
    const expected: Record<string, unknown> = {};
    for (const column of columns) expected[column] = (row as GenericRow)[column];
    return { op: 'wait', table, where: [byUuid(row._uuid)], columns, rows: [expected], until: '==' };
  },
  comment: (text) => ({ op: 'comment', comment: text }),
};

/** The same builder, typed by a table map: `const nb = operationsFor<NbTables>()`. */
export function operationsFor<T extends TableRowTypes>(): OperationBuilder<T> {
  // One untyped builder serves every schema; the table map only narrows what callers may name.
  return op as unknown as OperationBuilder<T>;
}

/** `['_uuid', '==', uuid]`. */
export function byUuid(uuid: string | NamedUuid): Condition {
  return ['_uuid', '==', uuid];
}

/** `[column, '==', value]`. */
export function eq(column: string, value: unknown): Condition {
  return [column, '==', value];
}

// ---- encoding ---------------------------------------------------------------------------

function tableFor(schema: DatabaseSchema, table: string, index: number): TableSchema {
  const found = schema.tables.get(table);
  if (!found) throw new OvsdbEncodeError(`operation ${index}: ${schema.name} has no table ${table}`);
  return found;
}

function encodeTriples(
  table: TableSchema,
  triples: readonly (readonly [string, string, unknown])[],
  index: number,
): [string, string, WireValue][] {
  return triples.map(([name, fn, value]) => {
    const column = table.columns.get(name);
    if (!column) throw new OvsdbEncodeError(`operation ${index}: ${table.name} has no column ${name}`);
    return [name, fn, encodeOperand(column, value, `${table.name}.${name}`)];
  });
}

function withIndex<R>(index: number, encode: () => R): R {
  try {
    return encode();
  } catch (error) {
    if (error instanceof OvsdbEncodeError && !error.message.startsWith('operation ')) {
      throw new OvsdbEncodeError(`operation ${index}: ${error.message}`);
    }
    throw error;
  }
}

function checkColumns(table: TableSchema, columns: readonly string[], index: number): readonly string[] {
  for (const name of columns) {
    if (!table.columns.has(name)) throw new OvsdbEncodeError(`operation ${index}: ${table.name} has no column ${name}`);
  }
  return columns;
}

/** Encodes one operation for the `transact` params; throws `OvsdbEncodeError` naming its index. */
export function encodeOperation(schema: DatabaseSchema, operation: Operation, index: number): object {
  if (operation.op === 'comment') return { op: 'comment', comment: operation.comment };
  const table = tableFor(schema, operation.table, index);
  return withIndex(index, () => {
    const rowOf = (row: object) => encodeRow(table, row as Record<string, unknown>);
    const base = { op: operation.op, table: operation.table };
    switch (operation.op) {
      case 'insert':
        if (operation.uuidName !== undefined) new NamedUuid(operation.uuidName); // validates the name
        return { ...base, row: rowOf(operation.row), ...(operation.uuidName && { 'uuid-name': operation.uuidName }) };
      case 'update':
        return { ...base, where: encodeTriples(table, operation.where, index), row: rowOf(operation.row) };
      case 'mutate':
        return {
          ...base,
          where: encodeTriples(table, operation.where, index),
          mutations: encodeTriples(table, operation.mutations, index),
        };
      case 'delete':
        return { ...base, where: encodeTriples(table, operation.where, index) };
      case 'select':
        return {
          ...base,
          where: encodeTriples(table, operation.where, index),
          ...(operation.columns && { columns: checkColumns(table, operation.columns, index) }),
        };
      case 'wait':
        return {
          ...base,
          where: encodeTriples(table, operation.where, index),
          columns: checkColumns(table, operation.columns, index),
          until: operation.until,
          rows: operation.rows.map(rowOf),
          timeout: operation.timeoutMs ?? 0,
        };
      default:
        throw new OvsdbEncodeError(`operation ${index}: unknown op ${(operation as { op: unknown }).op}`);
    }
  });
}

// ---- results ----------------------------------------------------------------------------

function decodeSelectedRows(table: TableSchema, wireRows: unknown): Partial<GenericRow>[] {
  if (!Array.isArray(wireRows)) throw new OvsdbProtocolError('select result rows are not an array');
  return wireRows.map((wire: Record<string, unknown>) => {
    // decodeAtom of a `uuid` base returns a string or throws; its return type covers every base.
    const uuid = wire._uuid === undefined ? '' : (decodeAtom({ type: 'uuid' }, wire._uuid) as string);
    const row: Record<string, RowValue> = decodeRow(table, uuid, wire, Object.keys(wire));
    if (wire._uuid === undefined) delete row._uuid;
    return row as Partial<GenericRow>;
  });
}

/** Decodes the `transact` result array (uuids to strings, selected rows to decoded rows). */
export function decodeResults(
  schema: DatabaseSchema,
  operations: readonly Operation[],
  results: unknown,
): (OperationResult | null)[] {
  if (!Array.isArray(results)) throw new OvsdbProtocolError('transact result is not an array');
  return results.map((result: Record<string, unknown> | null, index) => {
    if (result === null || typeof result !== 'object') return null;
    const decoded: { -readonly [K in keyof OperationResult]: OperationResult[K] } = {};
    // A `uuid` base decodes to a string or throws (see decodeSelectedRows).
    if (result.uuid !== undefined) decoded.uuid = decodeAtom({ type: 'uuid' }, result.uuid) as string;
    if (typeof result.count === 'number') decoded.count = result.count;
    const operation = operations[index];
    if (result.rows !== undefined && operation && operation.op === 'select') {
      decoded.rows = decodeSelectedRows(schema.tables.get(operation.table)!, result.rows);
    }
    if (typeof result.error === 'string') decoded.error = result.error;
    if (typeof result.details === 'string') decoded.details = result.details;
    return decoded;
  });
}

/** For error messages: which operation failed, e.g. `insert Logical_Switch`. */
export function describeOperation(operation: Operation | undefined): string {
  if (!operation) return 'commit';
  return operation.op === 'comment' ? 'comment' : `${operation.op} ${operation.table}`;
}
