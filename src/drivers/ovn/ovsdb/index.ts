/**
 * The OVSDB client (RFC 7047) the OVN driver uses: import from here, not from the modules.
 * `OvsdbClient` keeps one database replicated and writes with `transact`; `op`/`operationsFor`
 * build operations; nb-types.ts and sb-types.ts type the OVN rows.
 */
export { OvsdbClient, backoffDelay, type ChangeListener, type OvsdbClientOptions } from './client.js';
export { parseRemote, type OvsdbRemote } from './connection.js';
export {
  OvsdbConnectionClosed,
  OvsdbEncodeError,
  OvsdbError,
  OvsdbNotConnected,
  OvsdbProtocolError,
  OvsdbRpcError,
  OvsdbSchemaError,
  OvsdbServerNotUsable,
  OvsdbTransactionError,
  OvsdbUnsupportedRemote,
} from './errors.js';
export * from './nb-types.js';
export {
  byUuid,
  eq,
  op,
  operationsFor,
  type Condition,
  type Mutation,
  type Operation,
  type OperationBuilder,
  type OperationResult,
  type WriteRow,
} from './operations.js';
export { valuesEqual, type ChangeKind, type ReplicaView, type RowChange, type TableRowTypes } from './replica.js';
export type { ColumnSchema, DatabaseSchema, TableSchema } from './schema.js';
export * from './sb-types.js';
export type { OvsdbLogger } from './session.js';
export { namedUuid, NamedUuid, type AtomValue, type GenericRow, type Row, type RowValue } from './wire.js';
