/** Security groups, their rules, each project's default group, and the port bindings to groups. */
import type { Db, Tx } from './database.js';
import type { SecurityGroupRuleTable, SecurityGroupTable } from './schema.js';

export async function insertSecurityGroup(tx: Tx, row: SecurityGroupTable): Promise<void> {
  await tx.insertInto('security_groups').values(row).execute();
}

export async function insertSecurityGroupRules(tx: Tx, rows: SecurityGroupRuleTable[]): Promise<void> {
  if (rows.length) await tx.insertInto('security_group_rules').values(rows).execute();
}

export async function defaultSecurityGroupId(db: Db, projectId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('default_security_groups')
    .select('security_group_id')
    .where('project_id', '=', projectId)
    .executeTakeFirst();
  return row?.security_group_id;
}

/** Records `securityGroupId` as the project's default; the primary key refuses a second one. */
export async function insertDefaultSecurityGroup(tx: Tx, projectId: string, securityGroupId: string): Promise<void> {
  await tx.insertInto('default_security_groups').values({ project_id: projectId, security_group_id: securityGroupId }).execute();
}

/** Which of `ids` exist, with their project (for visibility checks). */
export async function securityGroupOwners(db: Db, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('security_groups').select(['id', 'project_id']).where('id', 'in', ids).execute();
  return new Map(rows.map((r) => [r.id, r.project_id]));
}
