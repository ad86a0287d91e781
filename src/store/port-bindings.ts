/**
 * The `port_bindings` table: a port's INACTIVE bindings (one per host), read and written with
 * their JSON columns encoded here. The active binding is the port row's `binding_*` columns.
 */
import type { Db, Tx } from './database.js';
import type { PortBindingTable } from './schema.js';

/** A binding as core handles it: JSON columns decoded. */
export interface StoredBinding {
  readonly host: string;
  readonly vnic_type: string;
  readonly profile: Readonly<Record<string, unknown>>;
  readonly vif_type: string;
  readonly vif_details: Readonly<Record<string, unknown>>;
}

function decode(row: PortBindingTable): StoredBinding {
  return {
    host: row.host,
    vnic_type: row.vnic_type,
    profile: JSON.parse(row.profile) as Record<string, unknown>,
    vif_type: row.vif_type,
    vif_details: JSON.parse(row.vif_details) as Record<string, unknown>,
  };
}

function encode(portId: string, binding: StoredBinding): PortBindingTable {
  return {
    port_id: portId,
    host: binding.host,
    vnic_type: binding.vnic_type,
    profile: JSON.stringify(binding.profile),
    vif_type: binding.vif_type,
    vif_details: JSON.stringify(binding.vif_details),
  };
}

/** The port's inactive bindings, by host. */
export async function inactiveBindings(db: Db, portId: string): Promise<StoredBinding[]> {
  const rows = await db.selectFrom('port_bindings').selectAll().where('port_id', '=', portId).orderBy('host').execute();
  return rows.map(decode);
}

/** Inserts or replaces the port's inactive binding on `binding.host`. */
export async function putInactiveBinding(tx: Tx, portId: string, binding: StoredBinding): Promise<void> {
  await deleteInactiveBinding(tx, portId, binding.host);
  await tx.insertInto('port_bindings').values(encode(portId, binding)).execute();
}

/** Deletes the port's inactive binding on `host`; false when there was none. */
export async function deleteInactiveBinding(tx: Tx, portId: string, host: string): Promise<boolean> {
  const result = await tx
    .deleteFrom('port_bindings')
    .where('port_id', '=', portId)
    .where('host', '=', host)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
