/**
 * Subnet pools (`/v2.0/subnetpools`, subnet_allocation): the pool with its prefix bounds and its
 * prefixes, and the pool a subnet was allocated from.
 */
import type { Kysely } from 'kysely';

// The migration must not depend on the evolving Schema type.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's advice for migrations: no schema type to drift from
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('subnetpools')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('project_id', 'varchar(255)', (c) => c.notNull())
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('ip_version', 'integer', (c) => c.notNull())
    .addColumn('default_prefixlen', 'integer', (c) => c.notNull())
    .addColumn('min_prefixlen', 'integer', (c) => c.notNull())
    .addColumn('max_prefixlen', 'integer', (c) => c.notNull())
    .addColumn('default_quota', 'integer')
    .addColumn('is_default', 'boolean', (c) => c.notNull())
    .addColumn('shared', 'boolean', (c) => c.notNull())
    .addColumn('description', 'varchar(255)', (c) => c.notNull().defaultTo(''))
    .addColumn('revision_number', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'varchar(20)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(20)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('subnetpools_project_id').on('subnetpools').column('project_id').execute();
  await db.schema
    .createTable('subnetpool_prefixes')
    .addColumn('subnetpool_id', 'varchar(36)', (c) => c.notNull().references('subnetpools.id').onDelete('cascade'))
    .addColumn('cidr', 'varchar(64)', (c) => c.notNull())
    .addPrimaryKeyConstraint('subnetpool_prefixes_pk', ['subnetpool_id', 'cidr'])
    .execute();
  // A pool in use cannot go (SubnetPoolInUse is checked first; the reference is the backstop).
  await db.schema
    .alterTable('subnets')
    .addColumn('subnetpool_id', 'varchar(36)', (c) => c.references('subnetpools.id'))
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.alterTable('subnets').dropColumn('subnetpool_id').execute();
  await db.schema.dropTable('subnetpool_prefixes').execute();
  await db.schema.dropTable('subnetpools').execute();
}
