/**
 * Turns a `ListQuery` into SQL for any resource table: attribute filters, tag filters, sorting with
 * `id` as the tie-breaker, and keyset pagination from a marker.
 *
 * Each repository describes its table once (`ListTable`): which attributes are plain columns and
 * which need a subquery. Everything Neutron-specific about parsing stays in `api/`; everything
 * about visibility stays with the caller, which passes it in as `scope`.
 */
import { sql, type AliasedRawBuilder, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import type { ListQuery, SortKey } from '../core/list-query.js';
import type { Store } from './database.js';
import type { Schema } from './schema.js';

export type Condition = RawBuilder<unknown>;

export interface ListColumn {
  /** Qualified column, e.g. `networks.name`. */
  readonly column: string;
  /** How filter values are bound: booleans become 0/1 on SQLite. */
  readonly type: 'text' | 'int' | 'bool';
  /**
   * The column holds NULLs. They sort first ascending and last descending on both databases (as
   * on MySQL, Neutron's usual one), and markers on a NULL value page correctly.
   */
  readonly nullable?: boolean;
}

export interface ListTable {
  readonly table: keyof Schema & string;
  /** Attributes that map to a column of the table (filterable and sortable). */
  readonly columns: Readonly<Record<string, ListColumn>>;
  /** Attributes whose filter needs more than a column comparison. */
  readonly customFilters?: Readonly<Record<string, CustomFilter>>;
  /** The `resource_type` of the table's rows in the tags table; omit when the resource has no tags. */
  readonly tagType?: string;
}

/** What a custom filter may depend on besides its values. */
export interface FilterEnv {
  readonly store: Store;
  /** The caller's project (`shared` means "shared with me"). */
  readonly projectId: string | null;
}

export type CustomFilter = (values: readonly unknown[], env: FilterEnv) => Condition;

export const TRUE: Condition = sql`1 = 1`;
export const FALSE: Condition = sql`1 = 0`;

export function and(conditions: Condition[]): Condition {
  if (conditions.length === 0) return TRUE;
  return conditions.length === 1 ? conditions[0]! : sql`(${sql.join(conditions, sql` and `)})`;
}

export function or(conditions: Condition[]): Condition {
  if (conditions.length === 0) return FALSE;
  return conditions.length === 1 ? conditions[0]! : sql`(${sql.join(conditions, sql` or `)})`;
}

export function inList(column: string, values: readonly unknown[]): Condition {
  if (values.length === 0) return FALSE;
  if (values.length === 1) return sql`${sql.ref(column)} = ${values[0]}`;
  return sql`${sql.ref(column)} in (${sql.join(values.map((v) => sql`${v}`))})`;
}

function bindValue(store: Store, type: ListColumn['type'], value: unknown): unknown {
  if (type === 'bool') return store.bool(value === true);
  return value;
}

function tagCondition(table: ListTable, filter: string, tags: readonly string[]): Condition {
  const idColumn = sql.ref(`${table.table}.id`);
  // (resource_type, tag) is indexed: the lookup starts from the tag.
  const hasTag = (tag: string) =>
    sql`${idColumn} in (select t.resource_id from tags t where t.resource_type = ${table.tagType} and t.tag = ${tag})`;
  switch (filter) {
    case 'tags':
      return and(tags.map(hasTag));
    case 'tags-any':
      return or(tags.map(hasTag));
    case 'not-tags':
      return sql`not ${and(tags.map(hasTag))}`;
    default: // not-tags-any
      return sql`not ${or(tags.map(hasTag))}`;
  }
}

/**
 * Splits comma lists of the tag filters: `tags=a,b&tags=c` means a, b and c. Empty pieces stay:
 * as in Neutron, `tags=a,,b` (and an empty `tags=`) asks for the tag "".
 */
export function tagValues(values: readonly unknown[]): string[] {
  return values.flatMap((v) => String(v).split(','));
}

/** The WHERE conditions for a query's filters. Unknown attributes were refused by the API already. */
export function filterConditions(table: ListTable, query: ListQuery, env: FilterEnv): Condition[] {
  const { store } = env;
  const conditions: Condition[] = [];
  for (const [attr, values] of Object.entries(query.filters)) {
    if (attr === 'tags' || attr === 'tags-any' || attr === 'not-tags' || attr === 'not-tags-any') {
      if (table.tagType) conditions.push(tagCondition(table, attr, tagValues(values)));
      continue;
    }
    const custom = table.customFilters?.[attr];
    if (custom) {
      conditions.push(custom(values, env));
      continue;
    }
    const column = table.columns[attr];
    if (!column) continue; // accepted by the API but meaningless here (Neutron ignores these too)
    conditions.push(
      inList(
        column.column,
        values.map((v) => bindValue(store, column.type, v)),
      ),
    );
  }
  return conditions;
}

/** Sort keys with `id ASC` appended as the tie-breaker: every Neutron list is ordered, by id at least. */
export function effectiveSorts(sorts: readonly SortKey[]): SortKey[] {
  return sorts.some((s) => s.key === 'id') ? [...sorts] : [...sorts, { key: 'id', ascending: true }];
}

/**
 * The keyset condition "after the marker row" for the given sort order:
 * (k1 > m1) or (k1 = m1 and k2 > m2) or ...
 */
function afterMarker(table: ListTable, sorts: SortKey[], marker: Record<string, unknown>, reverse: boolean): Condition {
  const branches: Condition[] = [];
  for (let i = 0; i < sorts.length; i++) {
    const equalities = sorts.slice(0, i).map((s) => sameAs(table.columns[s.key]!, marker[s.key]));
    const s = sorts[i]!;
    const column = table.columns[s.key]!;
    equalities.push(s.ascending !== reverse ? above(column, marker[s.key]) : below(column, marker[s.key]));
    branches.push(and(equalities));
  }
  return or(branches);
}

// The keyset comparisons treat NULL as the smallest value, matching the ORDER BY in listRows.
function sameAs(column: ListColumn, value: unknown): Condition {
  const ref = sql.ref(column.column);
  return value === null || value === undefined ? sql`${ref} is null` : sql`${ref} = ${value}`;
}

function above(column: ListColumn, value: unknown): Condition {
  const ref = sql.ref(column.column);
  return value === null || value === undefined ? sql`${ref} is not null` : sql`${ref} > ${value}`;
}

function below(column: ListColumn, value: unknown): Condition {
  const ref = sql.ref(column.column);
  if (value === null || value === undefined) return FALSE;
  return column.nullable ? sql`(${ref} < ${value} or ${ref} is null)` : sql`${ref} < ${value}`;
}

/**
 * Runs the list: the table's rows that match `scope`, the filters and the page, in order. The
 * caller loads their children (fixed IPs, tags, ...) by id. `columns` (expressions with their
 * aliases) reads less than the whole row, e.g. only the ids and revisions of a cached view; with
 * `wholeRow` they are read besides the whole row.
 */
export async function listRows<Row>(
  env: FilterEnv,
  table: ListTable,
  query: ListQuery,
  scope: Condition,
  columns?: readonly AliasedRawBuilder<unknown, string>[],
  wholeRow = false,
): Promise<{ rows: Row[]; markerFound: boolean }> {
  const { store } = env;
  const conditions = [scope, ...filterConditions(table, query, env)];
  const sorts = effectiveSorts(query.sorts);
  // page_reverse flips the order; a page is flipped back, a whole list (no limit) is not (as Neutron).
  const reverse = query.pageReverse;
  if (query.marker !== undefined && query.limit !== undefined) {
    // The marker is looked up within the caller's scope: another project's row is "not found",
    // never a position to page from (which would leak its sort values).
    const markerRow = await loadSortValues(store, table, sorts, query.marker, scope);
    if (!markerRow) return { markerFound: false, rows: [] };
    conditions.push(afterMarker(table, sorts, markerRow, reverse));
  }
  const from = store.db.selectFrom(table.table as 'networks');
  const all = () => from.selectAll(table.table as 'networks');
  const selected = (columns
    ? wholeRow
      ? all().select(columns)
      : from.select(columns)
    : all()) as unknown as SelectQueryBuilder<Schema, 'networks', Row>;
  let qb = selected.where(and(conditions) as RawBuilder<boolean>);
  for (const s of sorts) {
    const column = table.columns[s.key]!;
    const ascending = s.ascending !== reverse;
    if (!column.nullable) qb = qb.orderBy(sql.ref(column.column), ascending ? 'asc' : 'desc');
    else qb = qb.orderBy(sql.ref(column.column), (ob) => (ascending ? ob.asc().nullsFirst() : ob.desc().nullsLast()));
  }
  if (query.limit !== undefined) qb = qb.limit(query.limit);
  const rows = (await qb.execute()) as Row[];
  return { markerFound: true, rows: reverse && query.limit !== undefined ? rows.reverse() : rows };
}

async function loadSortValues(
  store: Store,
  table: ListTable,
  sorts: SortKey[],
  markerId: string,
  scope: Condition,
): Promise<Record<string, unknown> | undefined> {
  const selections = sorts.map((s) => sql`${sql.ref(table.columns[s.key]!.column)}`.as(s.key));
  const row = await store.db
    .selectFrom(table.table as 'networks')
    .select(selections)
    .where(sql<boolean>`${sql.ref(`${table.table}.id`)} = ${markerId} and ${scope}`)
    .executeTakeFirst();
  return row as Record<string, unknown> | undefined;
}

/** Splits a long id list into chunks that stay under the database's bound-parameter limit. */
export function chunks<T>(items: readonly T[], size = 500): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
