/**
 * Where a Neutron database is read from: Neutron's own `[database] connection` URL forms
 * (`postgresql://`, `postgresql+psycopg2://`; `mysql+pymysql://` once the MySQL driver is in) opened
 * read-only behind one small interface, so the mappers never see a driver.
 *
 * This module owns the source connection; it never writes to the source.
 */

/** One table's rows as plain objects; booleans and numbers as the driver returns them. */
export type SourceRow = Record<string, unknown>;

export interface NeutronSource {
  /** Which database kind the URL named (for messages). */
  readonly kind: 'postgresql' | 'mysql';
  /** The names of the tables the source database holds. */
  tables(): Promise<Set<string>>;
  /** Every row of a table (`SELECT * FROM table`), in one consistent snapshot with the other reads. */
  rows(table: string): Promise<SourceRow[]>;
  close(): Promise<void>;
}

export class UnsupportedSourceUrl extends Error {}

/** `postgresql+psycopg2://u:p@h:5432/db?x=y` → the scheme without its driver and the URL for `pg`. */
export function parseSourceUrl(url: string): { kind: 'postgresql' | 'mysql'; url: string } {
  const match = /^([a-z]+)(\+[a-z0-9_]+)?:\/\//i.exec(url);
  const scheme = match?.[1]?.toLowerCase();
  const rest = match ? url.slice(match[0].length) : '';
  if (scheme === 'postgresql' || scheme === 'postgres') return { kind: 'postgresql', url: `postgresql://${rest}` };
  if (scheme === 'mysql' || scheme === 'mariadb') {
    // PyMySQL's `?charset=utf8` is not a mysql2 option: drop the query string.
    return { kind: 'mysql', url: `mysql://${rest.split('?')[0] ?? ''}` };
  }
  throw new UnsupportedSourceUrl(
    `unsupported source URL (use Neutron's [database] connection: postgresql://... or mysql+pymysql://...): ${url.split(':')[0]}:...`,
  );
}

const TABLE_NAME = /^[a-z0-9_]+$/;

function checkedName(table: string): string {
  if (!TABLE_NAME.test(table)) throw new Error(`not a Neutron table name: ${table}`);
  return table;
}

async function openPostgresSource(url: string): Promise<NeutronSource> {
  const { default: pg } = await import('pg');
  // timestamps without time zone are Neutron's UTC: read them as text, never through local time.
  const types = {
    getTypeParser: (oid: number, format?: 'text' | 'binary') =>
      oid === 1114 || oid === 1184 ? (v: string) => v : pg.types.getTypeParser(oid, format),
  };
  const client = new pg.Client({ connectionString: url, types });
  await client.connect();
  // One snapshot for every read: a Neutron still running cannot hand us a torn cloud.
  await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  return {
    kind: 'postgresql',
    async tables() {
      const result = await client.query<{ table_name: string }>(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
      );
      return new Set(result.rows.map((r) => r.table_name));
    },
    async rows(table) {
      const result = await client.query<SourceRow>(`SELECT * FROM "${checkedName(table)}"`);
      return result.rows;
    },
    async close() {
      await client.query('ROLLBACK').catch(() => undefined);
      await client.end();
    },
  };
}

/**
 * MySQL/MariaDB sources: the `mysql2` driver is here (octonet's MariaDB backend), the reader of
 * Neutron's schema through it is not yet (its column types differ from PostgreSQL's), so such a
 * URL is refused with this message.
 */
function openMysqlSource(): Promise<NeutronSource> {
  throw new UnsupportedSourceUrl(
    "mysql+pymysql:// sources are not read yet (the MySQL reader of Neutron's schema is not written); " +
      'copy the database into PostgreSQL first',
  );
}

export async function openNeutronSource(url: string): Promise<NeutronSource> {
  const parsed = parseSourceUrl(url);
  return parsed.kind === 'postgresql' ? openPostgresSource(parsed.url) : openMysqlSource();
}
