/**
 * MySQL/MariaDB connection URLs as octonet and Neutron write them, read into mysql2's connection
 * options: `mysql://user:password@host:port/db`, SQLAlchemy's driver forms (`mysql+pymysql://`,
 * `mysql+mysqldb://`, ...) and `mariadb://`, with the query parameters oslo.db deployments put
 * there (`charset`, `unix_socket`). A parameter it does not know is refused, not dropped.
 */
import { UnsupportedDatabaseUrl } from '../dialect.js';

export interface MysqlConnectionTarget {
  readonly host?: string;
  readonly port?: number;
  readonly socketPath?: string;
  readonly user?: string;
  readonly password?: string;
  readonly database: string;
}

/** `mysql`, `mariadb`, each with or without a SQLAlchemy `+driver` suffix. */
const MYSQL_SCHEME = /^(mysql|mariadb)(\+[a-z0-9_]+)?:\/\//i;

export function isMysqlUrl(url: string): boolean {
  return MYSQL_SCHEME.test(url);
}

/**
 * Query parameters accepted and what they mean here. `charset` is always utf8mb4 in octonet
 * (Neutron's `charset=utf8` is its 3-byte alias, a subset), so it is read and not followed.
 */
const KNOWN_PARAMETERS = new Set(['charset', 'unix_socket', 'socket']);

/** `[user[:password]@]host[:port]/database[?params]`, the part after the scheme. */
const AUTHORITY_AND_PATH = /^(?:([^:@/]*)(?::([^@/]*))?@)?(\[[^\]]*\]|[^:/?]*)(?::(\d+))?(?:\/([^?]*))?(?:\?(.*))?$/;

export function parseMysqlUrl(url: string): MysqlConnectionTarget {
  const scheme = MYSQL_SCHEME.exec(url);
  if (!scheme) throw new UnsupportedDatabaseUrl(`not a MySQL/MariaDB URL: ${url.split(':')[0]}:...`);
  const prefix = scheme[0];
  const parts = AUTHORITY_AND_PATH.exec(url.slice(prefix.length));
  if (!parts) throw new UnsupportedDatabaseUrl(`${prefix}...: not a valid URL`);
  const [, user, password, host, port, path, query] = parts;
  const database = decodeURIComponent(path ?? '');
  if (!database || database.includes('/'))
    throw new UnsupportedDatabaseUrl(`${prefix}...: the URL must name a database, e.g. ${prefix}user:pw@host/neutron`);
  const params = new URLSearchParams(query ?? '');
  const unknown = [...new Set(params.keys())].filter((k) => !KNOWN_PARAMETERS.has(k));
  if (unknown.length > 0)
    throw new UnsupportedDatabaseUrl(`${prefix}...: unsupported URL parameters: ${unknown.join(', ')}`);
  const socketPath = params.get('unix_socket') ?? params.get('socket') ?? undefined;
  return {
    // A socket wins over the host (oslo.db's `mysql+pymysql://u:p@localhost/db?unix_socket=...`).
    ...(socketPath ? { socketPath } : { host: host ? host.replace(/^\[(.*)\]$/, '$1') : 'localhost' }),
    ...(port && !socketPath && { port: Number(port) }),
    ...(user && { user: decodeURIComponent(user) }),
    ...(password !== undefined && { password: decodeURIComponent(password) }),
    database,
  };
}

/** The URL with any password masked, for logs. */
export function describeMysqlUrl(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}
