/**
 * Query strings of list and show requests, as Neutron's `api_common` reads them: filters (with the
 * attribute's converter and `filter-validation`), `fields`, `sort_key`/`sort_dir`, `limit`,
 * `marker`, `page_reverse`; and the `<collection>_links` of a page.
 */
import type { ResourceSpec } from '../core/attributes.js';
import { BadRequest, HTTPBadRequest, InvalidInput, pythonRepr } from '../core/errors.js';
import type { ListQuery, SortKey } from '../core/list-query.js';
import { convertToInt } from '../core/converters.js';
import { intColumnRangeError } from '../core/validators.js';

export type RawQuery = Record<string, string | string[] | undefined>;

/** Keys that steer the list rather than filter it. */
const CONTROL_KEYS = new Set(['fields', 'sort_key', 'sort_dir', 'limit', 'marker', 'page_reverse']);

export function valuesOf(query: RawQuery, key: string): string[] {
  const v = query[key];
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

/**
 * Requested `fields`, or undefined for all. Empty values are ignored, as Neutron's legacy
 * controllers do; its pecan ones (core resources) keep them, so there `fields=` selects nothing.
 */
export function parseFields(query: RawQuery, keepEmpty = false): string[] | undefined {
  const all = valuesOf(query, 'fields');
  const fields = keepEmpty ? all : all.filter((f) => f !== '');
  return fields.length ? fields : undefined;
}

/** Keeps only the requested `fields` of each item (all when none), in the item's own key order. */
export function selectFields<T extends object>(
  items: readonly T[],
  fields: readonly string[] | undefined,
): Partial<T>[] {
  if (!fields) return [...items];
  return items.map(
    (item) => Object.fromEntries(Object.entries(item).filter(([key]) => fields.includes(key))) as Partial<T>,
  );
}

/** An integer filter on an Integer column: a value beyond it fails on PostgreSQL and matches nothing on SQLite. */
function refuseBeyondIntColumn(value: unknown): void {
  const outOfRange = intColumnRangeError(value as number);
  if (outOfRange) throw InvalidInput({ error_message: outOfRange });
}

/** Filters on 64-bit integer columns that carry no converter in Neutron's attribute map. */
const BIGINT_FILTERS = new Set(['revision_number']);
const BIGINT_MAX = 2n ** 63n - 1n;

/**
 * A filter value for a bigint column: compared as a string it is a type error on PostgreSQL and
 * no match on SQLite, so it is refused alike on both (as `convert_to_int` would refuse it).
 */
function bigintFilterValue(value: unknown): number {
  const text = String(value).trim();
  if (!/^[-+]?\d+$/.test(text)) throw InvalidInput({ error_message: `'${text}' is not an integer` });
  const n = BigInt(text);
  if (n > BIGINT_MAX || n < -BIGINT_MAX - 1n) {
    throw InvalidInput({ error_message: `'${text}' is too large - must be no larger than '${BIGINT_MAX}'` });
  }
  return Number(n);
}

/** Filters of a list request: converted with the attribute's converter; unknown keys refused. */
export function parseFilters(
  spec: ResourceSpec,
  query: RawQuery,
  extraFilters: readonly string[] = [],
): Record<string, unknown[]> {
  const filters: Record<string, unknown[]> = {};
  const invalid: string[] = [];
  for (const key of Object.keys(query)) {
    if (CONTROL_KEYS.has(key)) continue;
    // empty-string-filtering: an empty value filters for the empty string.
    const values: unknown[] = valuesOf(query, key);
    const attr = spec.attributes[key];
    if (!attr?.filter && !extraFilters.includes(key)) {
      invalid.push(key);
      continue;
    }
    if (attr?.convertList) filters[key] = [attr.convertList(values)];
    else if (attr?.convert) filters[key] = values.map((v) => attr.convert!(v));
    else filters[key] = values;
    if (attr?.convert === convertToInt) filters[key]!.forEach(refuseBeyondIntColumn);
    if (BIGINT_FILTERS.has(key)) filters[key] = values.map(bigintFilterValue);
  }
  if (invalid.length) throw HTTPBadRequest(`${pythonRepr(invalid)} is invalid attribute for filtering`);
  return filters;
}

export function parseSorts(spec: ResourceSpec, query: RawQuery): SortKey[] {
  const keys = valuesOf(query, 'sort_key').filter((k) => k !== '');
  const dirs = valuesOf(query, 'sort_dir').filter((d) => d !== '');
  if (keys.length !== dirs.length) throw HTTPBadRequest('The number of sort_keys and sort_dirs must be same');
  const invalidKeys = keys.filter((k) => !spec.attributes[k]?.sort);
  if (invalidKeys.length) throw HTTPBadRequest(`${pythonRepr(invalidKeys)} is invalid attribute for sort_keys`);
  const invalidDirs = dirs.filter((d) => d !== 'asc' && d !== 'desc');
  if (invalidDirs.length) {
    throw HTTPBadRequest(`${pythonRepr(invalidDirs)} is invalid value for sort_dirs, valid value is 'asc' and 'desc'`);
  }
  return keys.map((key, i) => ({ key, ascending: dirs[i] === 'asc' }));
}

/** A single-valued parameter: when repeated, the last one counts (webob's `params.get`). */
function lastValue(query: RawQuery, key: string): string | undefined {
  return valuesOf(query, key).at(-1);
}

function parseLimit(query: RawQuery, maxLimit: number): number | undefined {
  const raw = lastValue(query, 'limit');
  if (raw === undefined) return maxLimit > 0 ? maxLimit : undefined;
  if (!/^\s*\+?\d+\s*$/.test(raw)) {
    throw BadRequest({ resource: 'limit', msg: `Limit must be an integer 0 or greater and not '${raw}'` });
  }
  // Python's int() has no ceiling; a database's LIMIT has. Beyond any row count is "all of them".
  const limit = Math.min(Number(raw), Number.MAX_SAFE_INTEGER);
  if (limit === 0) return maxLimit > 0 ? maxLimit : undefined;
  return maxLimit > 0 ? Math.min(limit, maxLimit) : limit;
}

function isTrue(text: string | undefined): boolean {
  return text !== undefined && ['1', 't', 'true', 'on', 'y', 'yes'].includes(text.trim().toLowerCase());
}

export function parseListQuery(
  spec: ResourceSpec,
  query: RawQuery,
  options: { maxLimit: number; extraFilters?: readonly string[] },
): ListQuery {
  const filters = parseFilters(spec, query, options.extraFilters);
  const sorts = parseSorts(spec, query);
  const limit = parseLimit(query, options.maxLimit);
  const marker = lastValue(query, 'marker') || undefined;
  return { filters, sorts, limit, marker, pageReverse: isTrue(lastValue(query, 'page_reverse')) };
}

/**
 * Neutron's `get_pagination_links`: `next` unless a forward page came back short, `previous`
 * unless a backward page came back short; none without a limit.
 */
export function paginationLinks(
  baseUrl: string,
  path: string,
  query: RawQuery,
  list: ListQuery,
  items: readonly { id?: unknown }[],
): { rel: string; href: string }[] {
  if (list.limit === undefined) return [];
  const links: { rel: string; href: string }[] = [];
  // The request's parameters keep their order (limit included); marker and page_reverse go last.
  const keep = Object.entries(query).filter(([k]) => k !== 'marker' && k !== 'page_reverse');
  const href = (marker: unknown, reverse: boolean) => {
    const params = new URLSearchParams();
    for (const [k, v] of keep) for (const value of Array.isArray(v) ? v : [v ?? '']) params.append(k, value);
    if (!params.has('limit')) params.set('limit', String(list.limit));
    if (marker !== undefined) params.set('marker', String(marker));
    if (reverse) params.set('page_reverse', 'True');
    return `${baseUrl}${path}?${params.toString()}`;
  };
  // An empty page still links back (without a marker), as Neutron does.
  const short = items.length < list.limit;
  if (!(short && !list.pageReverse)) links.push({ rel: 'next', href: href(items[items.length - 1]?.id, false) });
  if (!(short && list.pageReverse)) links.push({ rel: 'previous', href: href(items[0]?.id, true) });
  return links;
}
