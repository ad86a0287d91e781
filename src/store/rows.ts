/**
 * The row writes every resource table shares: insert, update by id, and delete by id together
 * with the resource's tags (tags have no foreign key: they belong to any resource type).
 */
import type { Insertable, Updateable } from 'kysely';
import type { Tx } from './database.js';
import type { Schema } from './schema.js';

/** Tables whose rows are API resources, keyed by a text `id`. */
export type ResourceTable =
  | 'networks'
  | 'subnets'
  | 'ports'
  | 'security_groups'
  | 'security_group_rules'
  | 'routers'
  | 'floatingips'
  | 'subnetpools';

export async function insertRow<T extends ResourceTable>(tx: Tx, table: T, row: Insertable<Schema[T]>): Promise<void> {
  await tx
    .insertInto(table)
    .values(row as never)
    .execute();
}

export async function updateRow<T extends ResourceTable>(
  tx: Tx,
  table: T,
  id: string,
  patch: Updateable<Schema[T]>,
): Promise<void> {
  await tx
    .updateTable(table as 'networks')
    .set(patch as Updateable<Schema['networks']>)
    .where('id', '=', id)
    .execute();
}

export async function deleteRowWithTags(tx: Tx, table: ResourceTable, id: string): Promise<void> {
  await tx.deleteFrom('tags').where('resource_id', '=', id).execute();
  await tx
    .deleteFrom(table as 'networks')
    .where('id', '=', id)
    .execute();
}
