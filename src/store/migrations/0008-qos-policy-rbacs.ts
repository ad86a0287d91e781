/**
 * RBAC entries on QoS policies (`qospolicyrbacs`): a policy shared with one project or with all
 * (`*`), as `/v2.0/rbac-policies` with `object_type: qos_policy` writes them. The policy's `shared`
 * column stays, as the "has a wildcard entry" flag; every shared policy gets its wildcard entry here.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's advice for migrations: no schema type to drift from
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('qos_policy_rbacs')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('project_id', 'varchar(255)', (c) => c.notNull())
    .addColumn('object_id', 'varchar(36)', (c) => c.notNull().references('qos_policies.id').onDelete('cascade'))
    .addColumn('target_project', 'varchar(255)', (c) => c.notNull())
    .addColumn('action', 'varchar(255)', (c) => c.notNull())
    .addUniqueConstraint('qos_policy_rbacs_object_target_action', ['object_id', 'target_project', 'action'])
    .execute();
  await db.schema
    .createIndex('qos_policy_rbacs_target')
    .on('qos_policy_rbacs')
    .columns(['target_project', 'action'])
    .execute();
  const shared = (await db.selectFrom('qos_policies').select(['id', 'project_id', 'shared']).execute()) as {
    id: string;
    project_id: string;
    shared: unknown;
  }[];
  for (const policy of shared.filter((p) => Boolean(p.shared))) {
    await db
      .insertInto('qos_policy_rbacs')
      .values({
        id: randomUUID(),
        project_id: policy.project_id,
        object_id: policy.id,
        target_project: '*',
        action: 'access_as_shared',
      })
      .execute();
  }
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable('qos_policy_rbacs').execute();
}
