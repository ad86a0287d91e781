/**
 * The errors an OVSDB client raises, each carrying what a caller needs to decide what to do next:
 * whether the request reached the server, which operation of a transaction failed and why.
 *
 * This module owns the error classes only; it must not import the rest of the client.
 */

/** Base class, so callers can tell OVSDB failures from their own bugs with one `instanceof`. */
export class OvsdbError extends Error {
  override name = 'OvsdbError';
}

/** `transact` while no synced session exists; nothing was sent (callers repair later, we do not queue). */
export class OvsdbNotConnected extends OvsdbError {
  override name = 'OvsdbNotConnected';
  constructor(database: string) {
    super(`not connected to ${database}`);
  }
}

/**
 * The connection closed while a request was in flight. For a transaction the outcome is unknown:
 * it may have committed, so the caller must re-read the replica rather than assume either way.
 */
export class OvsdbConnectionClosed extends OvsdbError {
  override name = 'OvsdbConnectionClosed';
  constructor(
    readonly remote: string,
    reason?: Error,
  ) {
    super(`connection to ${remote} closed${reason ? `: ${reason.message}` : ''}`, { cause: reason });
  }
}

/** A request got no answer in time; for a transaction the outcome is unknown, as when the connection closes. */
export class OvsdbCallTimeout extends OvsdbError {
  override name = 'OvsdbCallTimeout';
  constructor(
    readonly method: string,
    timeoutMs: number,
  ) {
    super(`${method} got no answer within ${timeoutMs} ms`);
  }
}

/** A remote string we cannot use (`ssl:`, a malformed `tcp:` address). */
export class OvsdbUnsupportedRemote extends OvsdbError {
  override name = 'OvsdbUnsupportedRemote';
}

/** The peer sent bytes that are not JSON-RPC: the connection cannot be trusted any more. */
export class OvsdbProtocolError extends OvsdbError {
  override name = 'OvsdbProtocolError';
}

/** A JSON-RPC request answered with `error` (e.g. `unknown database` for `get_schema`). */
export class OvsdbRpcError extends OvsdbError {
  override name = 'OvsdbRpcError';
  constructor(
    readonly method: string,
    readonly error: unknown,
  ) {
    super(`${method} failed: ${typeof error === 'string' ? error : JSON.stringify(error)}`);
  }
}

/**
 * A value or operation that does not fit the schema, found before anything is sent
 * (unknown table or column, a string in an integer column, a named-uuid outside a uuid column).
 */
export class OvsdbEncodeError extends OvsdbError {
  override name = 'OvsdbEncodeError';
}

/** A server's schema we cannot read, or an index asked of a column that cannot have one. */
export class OvsdbSchemaError extends OvsdbError {
  override name = 'OvsdbSchemaError';
}

/**
 * The server refused a transaction. `index` is the failed operation's position in the list that
 * was passed to `transact`; an index equal to that list's length means the commit itself failed
 * (ovsdb-server appends one extra result for referential-integrity or constraint violations).
 */
export class OvsdbTransactionError extends OvsdbError {
  override name = 'OvsdbTransactionError';
  constructor(
    readonly index: number,
    readonly operation: string,
    readonly error: string,
    readonly details: string | undefined,
  ) {
    super(`transaction failed at operation ${index} (${operation}): ${error}${details ? `: ${details}` : ''}`);
  }
}

/**
 * A server we reached but must not use: a clustered database that is not connected to its
 * cluster (its data may be stale), or not the leader when the client wants the leader only.
 */
export class OvsdbServerNotUsable extends OvsdbError {
  override name = 'OvsdbServerNotUsable';
}
