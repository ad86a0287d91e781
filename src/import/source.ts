/**
 * Where a Neutron database is read from: Neutron's own `[database] connection` URL forms
 * (`postgresql[+psycopg2]://`, `mysql[+pymysql|+mysqldb]://`, `mariadb://`, with oslo.db's
 * `?charset=`/`?unix_socket=`) opened read-only, in one consistent snapshot, behind one small
 * interface, so the mappers never see a driver. Both readers hand rows over in the same shapes:
 * timestamps as UTC text, BIGINTs as strings, JSON as text, booleans as the driver has them (values.ts).
 *
 * This module owns the source connection; it never writes to the source.
 */
import { parseMysqlUrl } from '../store/mysql/url.js';

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

/**
 * `postgresql+psycopg2://u:p@h:5432/db?x=y` → the scheme without its driver and the URL for `pg`;
 * MySQL URLs stay as given (store/mysql/url.ts reads their driver suffix and parameters).
 */
export function parseSourceUrl(url: string): { kind: 'postgresql' | 'mysql'; url: string } {
  const match = /^([a-z]+)(\+[a-z0-9_]+)?:\/\//i.exec(url);
  const scheme = match?.[1]?.toLowerCase();
  const rest = match ? url.slice(match[0].length) : '';
  if (scheme === 'postgresql' || scheme === 'postgres') return { kind: 'postgresql', url: `postgresql://${rest}` };
  if (scheme === 'mysql' || scheme === 'mariadb') {
    try {
      parseMysqlUrl(url);
    } catch (error) {
      throw new UnsupportedSourceUrl((error as Error).message);
    }
    return { kind: 'mysql', url };
  }
  throw new UnsupportedSourceUrl(
    `unsupported source URL (use Neutron's [database] connection: postgresql://... or mysql+pymysql://...): ${url.split(':')[0]}:...`,
  );
}

const TABLE_NAME = /^[a-z0-9_]+$/;

/** A table name as the readers put it into SQL: only Neutron's lower-case names pass. */
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
 * A mysql2 value as the PostgreSQL reader would hand it over: JSON columns (MySQL's JSON type,
 * which mysql2 parses) back to their text, BINARY/BLOB bytes as UTF-8 text (Neutron stores text
 * in them where a deployment's schema made them binary).
 */
function mysqlValue(value: unknown): unknown {
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  if (typeof value === 'object' && value !== null) return JSON.stringify(value);
  return value;
}

async function openMysqlSource(url: string): Promise<NeutronSource> {
  const { default: mysql } = await import('mysql2/promise');
  const connection = await mysql.createConnection({
    ...parseMysqlUrl(url),
    // utf8mb4 reads Neutron's utf8 (3-byte) tables and any 4-byte text a deployment put in them.
    charset: 'UTF8MB4_GENERAL_CI',
    // DATETIME has no zone and holds Neutron's UTC: text, never through this process's local time.
    dateStrings: true,
    // BIGINT (standard attribute ids) as strings, as pg hands them over: never rounded.
    supportBigNumbers: true,
    bigNumberStrings: true,
  });
  try {
    // One snapshot for every read, as InnoDB gives it at REPEATABLE READ (MySQL's and MariaDB's default).
    await connection.query('SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    await connection.query('START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY');
  } catch (error) {
    await connection.end();
    throw error;
  }
  return {
    kind: 'mysql',
    async tables() {
      const [rows] = await connection.query(
        "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_type = 'BASE TABLE'",
      );
      return new Set((rows as { name: string }[]).map((r) => r.name));
    },
    async rows(table) {
      const [rows] = await connection.query(`SELECT * FROM \`${checkedName(table)}\``);
      return (rows as SourceRow[]).map((row) =>
        Object.fromEntries(Object.entries(row).map(([column, value]) => [column, mysqlValue(value)])),
      );
    },
    async close() {
      await connection.query('ROLLBACK').catch(() => undefined);
      await connection.end();
    },
  };
}

export async function openNeutronSource(url: string): Promise<NeutronSource> {
  const parsed = parseSourceUrl(url);
  return parsed.kind === 'postgresql' ? openPostgresSource(parsed.url) : openMysqlSource(parsed.url);
}
