/**
 * OVSDB wire values (RFC 7047 §5.1) to plain JS and back, driven by the column's schema:
 * a scalar column decodes to its value, an optional one to the value or `null`, a set to an array,
 * a map to a record keyed by the stringified key; uuids are bare strings. Encoding goes the other
 * way and wraps uuids (`["uuid", x]`) and rows inserted in the same transaction
 * (`["named-uuid", name]`, written `namedUuid(name)`).
 *
 * This module owns value conversion only; it knows nothing about connections or replicas.
 */
import { OvsdbEncodeError, OvsdbProtocolError } from './errors.js';
import type { BaseType, ColumnSchema, TableSchema } from './schema.js';

export type AtomValue = string | number | boolean;
export type RowValue = AtomValue | null | readonly AtomValue[] | Readonly<Record<string, AtomValue>>;

/** Every replica row carries its uuid; typed rows (nb-types.ts, sb-types.ts) extend this. */
export interface Row {
  readonly _uuid: string;
}

/** A row of a table we have no type for. */
export type GenericRow = Row & { readonly [column: string]: RowValue };

export type WireAtom = string | number | boolean | readonly ['uuid' | 'named-uuid', string];
export type WireValue =
  WireAtom | readonly ['set', readonly WireAtom[]] | readonly ['map', readonly (readonly [WireAtom, WireAtom])[]];

/** Refers, inside one transaction, to the row an `insert` with this `uuid-name` creates. */
export class NamedUuid {
  constructor(readonly name: string) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      throw new OvsdbEncodeError(`uuid-name ${JSON.stringify(name)} must be an identifier ([A-Za-z_][A-Za-z0-9_]*)`);
    }
  }
}

export function namedUuid(name: string): NamedUuid {
  return new NamedUuid(name);
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ZERO_UUID = '00000000-0000-0000-0000-000000000000';

// ---- decoding ---------------------------------------------------------------------------

function badWire(base: BaseType, wire: unknown): never {
  throw new OvsdbProtocolError(`cannot decode ${JSON.stringify(wire)} as ${base.type}`);
}

export function decodeAtom(base: BaseType, wire: unknown): AtomValue {
  switch (base.type) {
    case 'uuid':
      if (Array.isArray(wire) && wire[0] === 'uuid' && typeof wire[1] === 'string') return wire[1];
      return badWire(base, wire);
    case 'integer':
    case 'real':
      return typeof wire === 'number' ? wire : badWire(base, wire);
    case 'boolean':
      return typeof wire === 'boolean' ? wire : badWire(base, wire);
    case 'string':
      return typeof wire === 'string' ? wire : badWire(base, wire);
  }
}

/** A set on the wire is `["set", [...]]`, or the lone atom when it has exactly one element. */
function wireSetElements(wire: unknown): readonly unknown[] {
  return Array.isArray(wire) && wire[0] === 'set' && Array.isArray(wire[1]) ? wire[1] : [wire];
}

function decodeMap(column: ColumnSchema, wire: unknown): Record<string, AtomValue> {
  if (!Array.isArray(wire) || wire[0] !== 'map' || !Array.isArray(wire[1])) {
    throw new OvsdbProtocolError(`column ${column.name}: expected a map, got ${JSON.stringify(wire)}`);
  }
  const record: Record<string, AtomValue> = {};
  for (const pair of wire[1] as unknown[][]) {
    record[String(decodeAtom(column.key, pair[0]))] = decodeAtom(column.value!, pair[1]);
  }
  return record;
}

export function decodeValue(column: ColumnSchema, wire: unknown): RowValue {
  switch (column.kind) {
    case 'scalar':
      return decodeAtom(column.key, wire);
    case 'optional': {
      const elements = wireSetElements(wire);
      return elements.length === 0 ? null : decodeAtom(column.key, elements[0]);
    }
    case 'set':
      return wireSetElements(wire).map((element) => decodeAtom(column.key, element));
    case 'map':
      return decodeMap(column, wire);
  }
}

function defaultAtom(base: BaseType): AtomValue {
  switch (base.type) {
    case 'integer':
    case 'real':
      return 0;
    case 'boolean':
      return false;
    case 'string':
      return '';
    case 'uuid':
      return ZERO_UUID;
  }
}

/**
 * The value of a column the server left out: `update2` omits columns equal to their type's
 * default (ovsdb-server(7) §4.1.14), which ovsdb computes from the atomic type alone, ignoring enums.
 */
export function defaultValue(column: ColumnSchema): RowValue {
  switch (column.kind) {
    case 'scalar':
      return defaultAtom(column.key);
    case 'optional':
      return null;
    case 'set':
      return column.min === 0 ? [] : [defaultAtom(column.key)];
    case 'map':
      return {};
  }
}

/** Decodes a wire row; `columns` present in the schema but absent from `wire` get their default. */
export function decodeRow(
  table: TableSchema,
  uuid: string,
  wire: Readonly<Record<string, unknown>>,
  columns: readonly string[],
): GenericRow {
  const row: Record<string, RowValue> = { _uuid: uuid };
  for (const name of columns) {
    const column = table.columns.get(name);
    if (!column) continue;
    row[name] = name in wire ? decodeValue(column, wire[name]) : defaultValue(column);
  }
  return row as GenericRow;
}

// ---- encoding ---------------------------------------------------------------------------

function describe(value: unknown): string {
  return value instanceof NamedUuid ? `namedUuid(${value.name})` : JSON.stringify(value);
}

/** `where` names the column in error messages, e.g. `Logical_Switch.ports`. */
export function encodeAtom(base: BaseType, value: unknown, where: string): WireAtom {
  const wrong = (): never => {
    throw new OvsdbEncodeError(`${where}: ${describe(value)} is not a valid ${base.type}`);
  };
  switch (base.type) {
    case 'uuid':
      if (value instanceof NamedUuid) return ['named-uuid', value.name];
      return typeof value === 'string' && UUID_PATTERN.test(value) ? ['uuid', value] : wrong();
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value) ? value : wrong();
    case 'real':
      return typeof value === 'number' && Number.isFinite(value) ? value : wrong();
    case 'boolean':
      return typeof value === 'boolean' ? value : wrong();
    case 'string':
      return typeof value === 'string' ? value : wrong();
  }
}

/** Map keys arrive stringified in decoded rows; this turns one back into its atomic type. */
function encodeMapKey(base: BaseType, key: string, where: string): WireAtom {
  switch (base.type) {
    case 'integer':
    case 'real':
      return encodeAtom(base, key.trim() === '' ? NaN : Number(key), where);
    case 'boolean':
      return encodeAtom(base, key === 'true' ? true : key === 'false' ? false : key, where);
    default:
      return encodeAtom(base, key, where);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof NamedUuid);
}

// The encoders loop rather than spread, map or take `Object.entries`: a full OVN pass encodes
// every port's row (an LSP's `external_ids` holds ~15 pairs), and at 100,000 ports those
// intermediate arrays were ~270 MB of the pass's garbage.

function encodeElements(base: BaseType, values: Iterable<unknown>, where: string): WireAtom[] {
  const atoms: WireAtom[] = [];
  for (const element of values) atoms.push(encodeAtom(base, element, where));
  return atoms;
}

function encodeMapEntries(column: ColumnSchema, value: unknown, where: string): WireValue {
  const pairs: [WireAtom, WireAtom][] = [];
  const pair = (key: unknown, element: unknown) =>
    pairs.push([
      typeof key === 'string' ? encodeMapKey(column.key, key, where) : encodeAtom(column.key, key, where),
      encodeAtom(column.value!, element, where),
    ]);
  if (value instanceof Map) for (const [key, element] of value) pair(key, element);
  else if (isRecord(value)) for (const key in value) pair(key, value[key]);
  else throw new OvsdbEncodeError(`${where}: expected a record for a map column, got ${describe(value)}`);
  return ['map', pairs];
}

/** Encodes a whole column value, held to the column's kind (for rows of insert, update and wait). */
export function encodeValue(column: ColumnSchema, value: unknown, where = column.name): WireValue {
  switch (column.kind) {
    case 'scalar':
      return encodeAtom(column.key, value, where);
    case 'optional':
      return value === null || value === undefined ? ['set', []] : encodeAtom(column.key, value, where);
    case 'set':
      if (Array.isArray(value) || value instanceof Set) return ['set', encodeElements(column.key, value, where)];
      throw new OvsdbEncodeError(`${where}: expected an array for a set column, got ${describe(value)}`);
    case 'map':
      return encodeMapEntries(column, value, where);
  }
}

/**
 * Encodes the operand of a condition or mutation, whose shape follows the value rather than the
 * column: `includes` takes one element or several, a map's `delete` takes keys (an array) or
 * pairs (a record), `+=` takes an atom, `==` on an optional column may compare with `null`.
 */
export function encodeOperand(column: ColumnSchema, value: unknown, where = column.name): WireValue {
  if (value === null || value === undefined) return ['set', []];
  if (Array.isArray(value) || value instanceof Set) return ['set', encodeElements(column.key, value, where)];
  if (column.kind === 'map' && (isRecord(value) || value instanceof Map)) return encodeMapEntries(column, value, where);
  return encodeAtom(column.key, value, where);
}

/** Encodes a row for insert, update or wait; `_uuid` and unknown columns are refused by name. */
export function encodeRow(table: TableSchema, row: Readonly<Record<string, unknown>>): Record<string, WireValue> {
  const wire: Record<string, WireValue> = {};
  for (const name in row) {
    const value = row[name];
    if (value === undefined) continue;
    if (name === '_uuid' || name === '_version') {
      throw new OvsdbEncodeError(`${table.name}.${name} cannot be written`);
    }
    const column = table.columns.get(name);
    if (!column) throw new OvsdbEncodeError(`${table.name} has no column ${name}`);
    wire[name] = encodeValue(column, value, `${table.name}.${name}`);
  }
  return wire;
}
