/**
 * The database schema as `get_schema` returns it (RFC 7047 §3.2), normalised so the rest of the
 * client never meets the shorthands (`"type": "string"`, `"max": "unlimited"`, enums written as a
 * bare atom) and can ask one question per column: what kind of JS value does it hold.
 *
 * This module owns reading schemas; it does not encode or decode values (see wire.ts).
 */
import { OvsdbSchemaError } from './errors.js';

export type AtomicType = 'integer' | 'real' | 'boolean' | 'string' | 'uuid';

export interface BaseType {
  readonly type: AtomicType;
  /** Allowed values, when the schema restricts them. */
  readonly enum?: readonly (string | number | boolean)[];
  /** For uuid atoms: the table the uuid points into. */
  readonly refTable?: string;
}

/**
 * How a column appears in decoded rows:
 * - `scalar` (min 1, max 1): the value itself;
 * - `optional` (min 0, max 1): the value or `null`;
 * - `set` (any other cardinality without a value type): an array;
 * - `map` (a value type): a record keyed by the stringified key.
 */
export type ColumnKind = 'scalar' | 'optional' | 'set' | 'map';

export interface ColumnSchema {
  readonly name: string;
  readonly kind: ColumnKind;
  readonly key: BaseType;
  readonly value?: BaseType;
  readonly min: number;
  /** `Infinity` for "unlimited". */
  readonly max: number;
}

export interface TableSchema {
  readonly name: string;
  /** Includes the implicit `_uuid` and `_version` columns. */
  readonly columns: ReadonlyMap<string, ColumnSchema>;
  readonly isRoot: boolean;
  readonly indexes: readonly (readonly string[])[];
}

export interface DatabaseSchema {
  readonly name: string;
  readonly version: string;
  readonly tables: ReadonlyMap<string, TableSchema>;
}

/** Every row has these; the schema file leaves them out (RFC 7047 §3.1). */
const IMPLICIT_COLUMNS = ['_uuid', '_version'] as const;

const ATOMIC_TYPES: ReadonlySet<string> = new Set(['integer', 'real', 'boolean', 'string', 'uuid']);

function fail(where: string, message: string): never {
  throw new OvsdbSchemaError(`schema ${where}: ${message}`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseBaseType(json: unknown, where: string): BaseType {
  if (typeof json === 'string') {
    if (!ATOMIC_TYPES.has(json)) fail(where, `unknown atomic type ${json}`);
    return { type: json as AtomicType };
  }
  if (!isObject(json) || typeof json.type !== 'string' || !ATOMIC_TYPES.has(json.type)) {
    fail(where, `malformed base type ${JSON.stringify(json)}`);
  }
  const base: { type: AtomicType; enum?: (string | number | boolean)[]; refTable?: string } = {
    type: json.type as AtomicType,
  };
  if (json.enum !== undefined) {
    // An enum is a set of atoms: ["set", [...]] or, for a single value, the atom alone.
    const values = Array.isArray(json.enum) && json.enum[0] === 'set' ? json.enum[1] : [json.enum];
    if (!Array.isArray(values)) fail(where, 'malformed enum');
    base.enum = values as (string | number | boolean)[];
  }
  if (typeof json.refTable === 'string') base.refTable = json.refTable;
  return base;
}

function kindOf(min: number, max: number, hasValue: boolean): ColumnKind {
  if (hasValue) return 'map';
  if (max === 1) return min === 1 ? 'scalar' : 'optional';
  return 'set';
}

/** Parses a column's `type` member (RFC 7047 §3.2 `<type>`). */
export function parseColumnType(name: string, json: unknown, where = name): ColumnSchema {
  if (typeof json === 'string') return { name, kind: 'scalar', key: parseBaseType(json, where), min: 1, max: 1 };
  if (!isObject(json)) fail(where, `malformed column type ${JSON.stringify(json)}`);
  const key = parseBaseType(json.key, where);
  const value = json.value === undefined ? undefined : parseBaseType(json.value, where);
  const min = json.min === undefined ? 1 : Number(json.min);
  const max = json.max === undefined ? 1 : json.max === 'unlimited' ? Infinity : Number(json.max);
  if (!(min === 0 || min === 1) || !(max >= 1)) fail(where, `bad cardinality min=${json.min} max=${json.max}`);
  return { name, kind: kindOf(min, max, value !== undefined), key, ...(value && { value }), min, max };
}

/** Normalises a `get_schema` result (or a `.ovsschema` file's content). */
export function parseDatabaseSchema(json: unknown): DatabaseSchema {
  if (!isObject(json) || typeof json.name !== 'string' || !isObject(json.tables)) {
    fail('', 'not a database schema');
  }
  const tables = new Map<string, TableSchema>();
  for (const [tableName, tableJson] of Object.entries(json.tables)) {
    if (!isObject(tableJson) || !isObject(tableJson.columns)) fail(tableName, 'table has no columns');
    const columns = new Map<string, ColumnSchema>();
    for (const implicit of IMPLICIT_COLUMNS) {
      columns.set(implicit, { name: implicit, kind: 'scalar', key: { type: 'uuid' }, min: 1, max: 1 });
    }
    for (const [columnName, columnJson] of Object.entries(tableJson.columns)) {
      const where = `${tableName}.${columnName}`;
      if (!isObject(columnJson)) fail(where, 'malformed column');
      columns.set(columnName, parseColumnType(columnName, columnJson.type, where));
    }
    // The server's own schema (RFC 7047 §3.2: a list of column-name lists); trusted as it is sent.
    const indexes = Array.isArray(tableJson.indexes) ? (tableJson.indexes as string[][]) : [];
    tables.set(tableName, { name: tableName, columns, isRoot: tableJson.isRoot === true, indexes });
  }
  return { name: json.name, version: typeof json.version === 'string' ? json.version : '', tables };
}

export function tableSchema(schema: DatabaseSchema, table: string): TableSchema {
  const found = schema.tables.get(table);
  if (!found) throw new OvsdbSchemaError(`${schema.name} has no table ${table}`);
  return found;
}

export function columnSchema(table: TableSchema, column: string): ColumnSchema {
  const found = table.columns.get(column);
  if (!found) throw new OvsdbSchemaError(`${table.name} has no column ${column}`);
  return found;
}

/** The columns a client may ask for: every declared column, without `_uuid` and `_version`. */
export function declaredColumns(table: TableSchema): string[] {
  return [...table.columns.keys()].filter((name) => name !== '_uuid' && name !== '_version');
}
