/**
 * Port bindings other than the active one (`binding-extended`): during a live migration Nova
 * binds the port on the target host too, INACTIVE until it activates it. The active binding stays
 * in the port's own `binding_*` columns, so only the extra bindings live here (ML2's
 * `ml2_port_bindings` rows with status INACTIVE).
 */
import type { Kysely } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's advice for migrations: no schema type to drift from
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('port_bindings')
    .addColumn('port_id', 'varchar(36)', (c) => c.notNull().references('ports.id').onDelete('cascade'))
    .addColumn('host', 'varchar(255)', (c) => c.notNull())
    .addColumn('vnic_type', 'varchar(64)', (c) => c.notNull())
    .addColumn('profile', 'text', (c) => c.notNull())
    .addColumn('vif_type', 'varchar(64)', (c) => c.notNull())
    .addColumn('vif_details', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('port_bindings_pk', ['port_id', 'host'])
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable('port_bindings').execute();
}
