/**
 * Server-side prepared statements for the reads every request repeats.
 *
 * An unnamed statement is parsed, analysed and planned by PostgreSQL on every run; for the one-row
 * reads of a show that costs the server more than running them. A `select` is sent under a name
 * from its first run on, so each connection prepares it once and then only binds and executes it.
 * Only `select`s are named, and only the first `MAX_NAMED` distinct texts (a query with an
 * `in (...)` list has a text per list length; texts past the bound, writes and DDL stay unnamed),
 * so the server keeps a bounded number of statements per connection.
 */

/** Distinct statement texts given a name, per process. */
const MAX_NAMED = 256;

const SELECT = /^\s*select\b/i;

/**
 * The PostgreSQL error when a prepared statement's result columns changed under it (another
 * replica's migration added a column to a `select *`): the statement is prepared afresh.
 */
export function isStalePreparedStatement(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  return (
    e?.code === '0A000' &&
    typeof e.message === 'string' &&
    e.message.includes('cached plan must not change result type')
  );
}

/** Names for statement texts; undefined for a text that is sent unnamed. */
export class StatementNames {
  readonly #names = new Map<string, string>();

  nameOf(text: string): string | undefined {
    const known = this.#names.get(text);
    if (known !== undefined || this.#names.size >= MAX_NAMED || !SELECT.test(text)) return known;
    const name = `octonet_${this.#names.size}`;
    this.#names.set(text, name);
    return name;
  }
}
