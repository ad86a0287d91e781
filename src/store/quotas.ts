/** Per-project quota overrides and the usage counts they are checked against. */
import { sql } from 'kysely';
import type { Db } from './database.js';

/** The table whose rows a quota resource counts. Resources without a table yet count zero. */
const USAGE_TABLES: Record<string, string | undefined> = {
  network: 'networks',
  subnet: 'subnets',
  port: 'ports',
  security_group: 'security_groups',
  security_group_rule: 'security_group_rules',
  // Neutron counts every RBAC policy the project owns, including the one a shared network gets.
  rbac_policy: 'network_rbacs',
  router: 'routers',
  floatingip: 'floatingips',
};

export async function loadQuotaOverrides(db: Db, projectId: string): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('quotas')
    .select(['resource', 'limit'])
    .where('project_id', '=', projectId)
    .execute();
  return new Map(rows.map((r) => [r.resource, r.limit]));
}

/** Projects that have at least one override, with their overrides. */
export async function loadAllQuotaOverrides(db: Db): Promise<Map<string, Map<string, number>>> {
  const rows = await db.selectFrom('quotas').selectAll().orderBy('project_id').execute();
  const result = new Map<string, Map<string, number>>();
  for (const row of rows) {
    const project = result.get(row.project_id) ?? new Map<string, number>();
    project.set(row.resource, row.limit);
    result.set(row.project_id, project);
  }
  return result;
}

export async function countUsage(db: Db, projectId: string, resource: string): Promise<number> {
  const table = USAGE_TABLES[resource];
  if (!table) return 0;
  const result = await sql<{
    n: number;
  }>`select count(*) as n from ${sql.table(table)} where project_id = ${projectId}`.execute(db);
  return Number(result.rows[0]?.n ?? 0);
}

/** Sets several limits of a project in one statement. */
export async function upsertQuotas(
  db: Db,
  projectId: string,
  limits: readonly (readonly [string, number])[],
): Promise<void> {
  if (limits.length === 0) return;
  await db
    .insertInto('quotas')
    .values(limits.map(([resource, limit]) => ({ project_id: projectId, resource, limit })))
    .onConflict((oc) =>
      oc.columns(['project_id', 'resource']).doUpdateSet((eb) => ({ limit: eb.ref('excluded.limit') })),
    )
    .execute();
}

export async function deleteQuotas(db: Db, projectId: string): Promise<number> {
  const result = await db.deleteFrom('quotas').where('project_id', '=', projectId).executeTakeFirst();
  return Number(result.numDeletedRows);
}
