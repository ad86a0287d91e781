/**
 * What a list request asks for, after the API parsed and converted its query string: filters per
 * attribute, sort keys, and the page. Core services and the store read this shape; only `api/`
 * builds it from a URL.
 */

export interface SortKey {
  readonly key: string;
  readonly ascending: boolean;
}

export interface ListQuery {
  /** Attribute → accepted values (OR within an attribute, AND across attributes), already converted. */
  readonly filters: Readonly<Record<string, readonly unknown[]>>;
  readonly sorts: readonly SortKey[];
  /** Page size; undefined for everything. */
  readonly limit?: number;
  /** Id of the last item of the previous page. */
  readonly marker?: string;
  /** Page backwards from the marker. */
  readonly pageReverse: boolean;
}

export const EMPTY_LIST_QUERY: ListQuery = { filters: {}, sorts: [], pageReverse: false };
