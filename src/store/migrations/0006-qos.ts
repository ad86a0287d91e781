/**
 * Quality of Service (`qos` service plugin): policies, their rules (bandwidth limit, DSCP marking,
 * minimum bandwidth: one table, a `type` column, since they share a policy, an id space and the
 * duplicate check), the project's default policy (`qos-default`) and which ports and networks a
 * policy is attached to (Neutron's `qos_port_policy_bindings` / `qos_network_policy_bindings`).
 * A bound policy cannot be deleted: the binding's reference has no cascade.
 */
import type { Kysely } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's advice for migrations: no schema type to drift from
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('qos_policies')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('project_id', 'varchar(255)', (c) => c.notNull())
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('shared', 'boolean', (c) => c.notNull())
    .addColumn('description', 'varchar(255)', (c) => c.notNull().defaultTo(''))
    .addColumn('revision_number', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'varchar(20)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(20)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('qos_policies_project_id').on('qos_policies').column('project_id').execute();
  await db.schema
    .createTable('qos_rules')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('qos_policy_id', 'varchar(36)', (c) => c.notNull().references('qos_policies.id').onDelete('cascade'))
    .addColumn('type', 'varchar(36)', (c) => c.notNull())
    // '' for rule types without a direction (DSCP marking).
    .addColumn('direction', 'varchar(16)', (c) => c.notNull())
    .addColumn('max_kbps', 'integer')
    .addColumn('max_burst_kbps', 'integer')
    .addColumn('dscp_mark', 'integer')
    .addColumn('min_kbps', 'integer')
    .addColumn('created_at', 'varchar(24)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('qos_rules_policy').on('qos_rules').column('qos_policy_id').execute();
  await db.schema
    .createTable('qos_policy_defaults')
    .addColumn('project_id', 'varchar(255)', (c) => c.primaryKey())
    .addColumn('qos_policy_id', 'varchar(36)', (c) => c.notNull().references('qos_policies.id').onDelete('cascade'))
    .execute();
  await db.schema
    .createTable('qos_port_policy_bindings')
    .addColumn('port_id', 'varchar(36)', (c) => c.primaryKey().references('ports.id').onDelete('cascade'))
    .addColumn('policy_id', 'varchar(36)', (c) => c.notNull().references('qos_policies.id'))
    .execute();
  await db.schema.createIndex('qos_port_bindings_policy').on('qos_port_policy_bindings').column('policy_id').execute();
  await db.schema
    .createTable('qos_network_policy_bindings')
    .addColumn('network_id', 'varchar(36)', (c) => c.primaryKey().references('networks.id').onDelete('cascade'))
    .addColumn('policy_id', 'varchar(36)', (c) => c.notNull().references('qos_policies.id'))
    .execute();
  await db.schema
    .createIndex('qos_network_bindings_policy')
    .on('qos_network_policy_bindings')
    .column('policy_id')
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable('qos_network_policy_bindings').execute();
  await db.schema.dropTable('qos_port_policy_bindings').execute();
  await db.schema.dropTable('qos_policy_defaults').execute();
  await db.schema.dropTable('qos_rules').execute();
  await db.schema.dropTable('qos_policies').execute();
}
