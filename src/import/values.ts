/**
 * Neutron's column values as octonet stores them: NULL text as '', the drivers' booleans (real
 * booleans on PostgreSQL, 0/1 on MySQL) as booleans, timestamps as the API prints them.
 */
import type { SourceRow } from './source.js';

export function text(row: SourceRow, column: string): string {
  const value = row[column];
  return value === null || value === undefined ? '' : String(value);
}

export function textOrNull(row: SourceRow, column: string): string | null {
  const value = row[column];
  return value === null || value === undefined ? null : String(value);
}

export function flag(row: SourceRow, column: string, fallback = false): boolean {
  const value = row[column];
  if (value === null || value === undefined) return fallback;
  return value === true || value === 1 || value === '1' || value === 't';
}

export function int(row: SourceRow, column: string): number {
  return Number(row[column] ?? 0);
}

export function intOrNull(row: SourceRow, column: string): number | null {
  const value = row[column];
  return value === null || value === undefined ? null : Number(value);
}

/** `2026-11-26 00:42:01[.123456]` (UTC, as Neutron stores it) → `2026-11-26T00:42:01Z`. */
export function timestamp(value: unknown): string {
  if (value instanceof Date) return value.toISOString().slice(0, 19) + 'Z';
  const match = /^(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)/.exec(String(value ?? ''));
  if (!match) throw new Error(`a Neutron timestamp octonet cannot read: ${String(value)}`);
  return `${match[1]}T${match[2]}Z`;
}

/** A JSON text column (binding profile, vif details, availability zone hints); '' and NULL as `empty`. */
export function jsonColumn<T>(row: SourceRow, column: string, empty: T): T {
  const value = text(row, column);
  if (value === '') return empty;
  return JSON.parse(value) as T;
}

/** Rows grouped by one column's value. */
export function groupBy(rows: readonly SourceRow[], column: string): Map<string, SourceRow[]> {
  const groups = new Map<string, SourceRow[]>();
  for (const row of rows) {
    const key = text(row, column);
    const list = groups.get(key);
    if (list) list.push(row);
    else groups.set(key, [row]);
  }
  return groups;
}

/** Rows keyed by one (unique) column's value. */
export function indexBy(rows: readonly SourceRow[], column: string): Map<string, SourceRow> {
  return new Map(rows.map((row) => [text(row, column), row]));
}
