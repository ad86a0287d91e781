/**
 * The deployment's identity: one row holding a UUID made when the database is created. An OVN NB
 * is marked with it (`NB_Global.external_ids`), so an octonet whose database has another identity
 * knows the NB belongs to someone else and leaves it alone. Replicas sharing the database share it.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's advice for migrations: no schema type to drift from
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('octonet_deployment')
    // Always 1: the table holds one row, and the primary key keeps it so.
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('deployment_id', 'varchar(36)', (c) => c.notNull())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db
    .insertInto('octonet_deployment')
    .values({ id: 1, deployment_id: randomUUID(), created_at: new Date().toISOString() })
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable('octonet_deployment').execute();
}
