/**
 * The row writes every resource table shares: insert, update by id, delete by id together with
 * the resource's tags (tags have no foreign key: they belong to any resource type), a row locked
 * for the rest of a transaction, and a revision bump.
 *
 * This module owns column encoding: callers hand in booleans as booleans and JSON columns as
 * values (`RowValues`); the store writes them as its dialect needs (0/1 or real booleans, JSON
 * text). Nothing outside the store calls `JSON.stringify` or `store.bool` for a column.
 */
import type { Insertable, Updateable } from 'kysely';
import type { Store, Tx } from './database.js';
import type { DbBool, Schema } from './schema.js';

/** Tables whose rows are API resources, keyed by a text `id`. */
export type ResourceTable =
  | 'networks'
  | 'subnets'
  | 'ports'
  | 'security_groups'
  | 'security_group_rules'
  | 'routers'
  | 'floatingips'
  | 'subnetpools'
  | 'address_scopes'
  | 'bgp_speakers'
  | 'bgp_peers'
  | 'qos_policies';

/**
 * Columns stored as JSON text (short lists that are never filtered on), with the value a caller
 * hands in. Each is written with `JSON.stringify`, whatever the value.
 */
interface JsonColumnValues {
  networks: { availability_zone_hints: readonly unknown[] };
  routers: { availability_zone_hints: readonly unknown[] };
  subnets: {
    allocation_pools: readonly unknown[];
    dns_nameservers: readonly unknown[];
    host_routes: readonly unknown[];
    service_types: readonly unknown[];
  };
  ports: { binding_profile: Readonly<Record<string, unknown>>; binding_vif_details: Readonly<Record<string, unknown>> };
}

const JSON_COLUMNS: {
  readonly [T in ResourceTable]?: readonly (keyof JsonColumnValues[T & keyof JsonColumnValues])[];
} = {
  networks: ['availability_zone_hints'],
  routers: ['availability_zone_hints'],
  subnets: ['allocation_pools', 'dns_nameservers', 'host_routes', 'service_types'],
  ports: ['binding_profile', 'binding_vif_details'],
};

type ColumnValue<T extends ResourceTable, K, V> = T extends keyof JsonColumnValues
  ? K extends keyof JsonColumnValues[T]
    ? JsonColumnValues[T][K]
    : BoolOr<V>
  : BoolOr<V>;
/** A `DbBool` column takes a boolean. */
type BoolOr<V> = [DbBool] extends [V] ? boolean | Exclude<V, DbBool> : V;

/** A row of `T` as callers write it: booleans as booleans, JSON columns as values. */
export type RowValues<T extends ResourceTable> = {
  [K in keyof Insertable<Schema[T]>]: ColumnValue<T, K, Insertable<Schema[T]>[K]>;
};

/** Some columns of a row of `T`, as callers write them. */
export type RowPatch<T extends ResourceTable> = {
  [K in keyof Updateable<Schema[T]>]?: ColumnValue<T, K, Updateable<Schema[T]>[K]>;
};

/** The row as the database stores it. */
function encodeColumns(store: Store, table: ResourceTable, values: object): Record<string, unknown> {
  const json = new Set<string>((JSON_COLUMNS[table] ?? []) as readonly string[]);
  const encoded: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(values)) {
    if (value === undefined) continue;
    encoded[column] = json.has(column) ? JSON.stringify(value) : typeof value === 'boolean' ? store.bool(value) : value;
  }
  return encoded;
}

/** The row as the database stores it, and as a read of it returns it. */
export function storedRow<T extends ResourceTable>(store: Store, table: T, row: RowValues<T>): Schema[T] {
  // Every column of `row`, each encoded as the table declares: the row `Schema[T]` describes.
  return encodeColumns(store, table, row) as unknown as Schema[T];
}

/** Inserts the row; returns it as stored. */
export async function insertRow<T extends ResourceTable>(
  store: Store,
  tx: Tx,
  table: T,
  row: RowValues<T>,
): Promise<Schema[T]> {
  const stored = storedRow(store, table, row);
  await tx
    .insertInto(table)
    .values(stored as never)
    .execute();
  return stored;
}

export async function updateRow<T extends ResourceTable>(
  store: Store,
  tx: Tx,
  table: T,
  id: string,
  patch: RowPatch<T>,
): Promise<void> {
  await tx
    .updateTable(table as 'networks')
    .set(encodeColumns(store, table, patch) as Updateable<Schema['networks']>)
    .where('id', '=', id)
    .execute();
}

export async function deleteRowWithTags(tx: Tx, table: ResourceTable, id: string): Promise<void> {
  await tx.deleteFrom('tags').where('resource_id', '=', id).execute();
  await tx
    .deleteFrom(table as 'networks')
    .where('id', '=', id)
    .execute();
}

/**
 * The row, locked against concurrent writers for the rest of the transaction where the database
 * has row locks (`SELECT ... FOR UPDATE`); where it has none (SQLite), writers are serialised
 * already and this is a plain read.
 */
export async function lockRow<T extends ResourceTable>(
  store: Store,
  tx: Tx,
  table: T,
  id: string,
): Promise<Schema[T] | undefined> {
  let q = tx
    .selectFrom(table as 'networks')
    .selectAll()
    .where('id', '=', id);
  if (store.dialect.capabilities.supportsRowLocks) q = q.forUpdate();
  return (await q.executeTakeFirst()) as Schema[T] | undefined;
}

/** Adds one to a resource's revision and stamps `updated_at` (a change that writes no column of its own, e.g. tags). */
export async function bumpRevision(tx: Tx, table: ResourceTable, id: string, now: string): Promise<void> {
  await tx
    .updateTable(table as 'networks')
    .set((eb) => ({ revision_number: eb('revision_number', '+', 1), updated_at: now }))
    .where('id', '=', id)
    .execute();
}

/**
 * A JSON column that holds a list of strings (availability zone hints, service types, name servers)
 * read back; anything else in it is octonet's bug (only validated string lists are written there).
 */
export function decodeStringList(text: string): string[] {
  const value: unknown = JSON.parse(text);
  if (Array.isArray(value) && value.every((item): item is string => typeof item === 'string')) return value;
  throw new Error(`a JSON column holds ${text}, not a list of strings`);
}
