/**
 * Security groups, their rules, each project's default group, and the port bindings to groups.
 *
 * Records carry what the API shows besides the row itself: a group's rules, tags and default flag;
 * a rule's group owner (policy decides on it) and whether that group is a default one. Visibility
 * is the caller's to pass in as a scope; nothing here knows about policy.
 */
import { sql } from 'kysely';
import type { Db, Store, Tx } from './database.js';
import { chunks, FALSE, listRows, type Condition, type FilterEnv, type ListTable } from './list.js';
import type { ListQuery } from '../core/list-query.js';
import type { SecurityGroupRuleTable, SecurityGroupTable } from './schema.js';
import { lockRow } from './rows.js';
import { loadTags } from './tags.js';

export interface SecurityGroupRuleRecord {
  readonly row: SecurityGroupRuleTable;
  /** The project owning the rule's group: policy reads and deletes rules on its behalf. */
  readonly groupProjectId: string;
  /** The rule's group is some project's default group (`belongs_to_default_sg`). */
  readonly inDefaultGroup: boolean;
}

export interface SecurityGroupRecord {
  readonly row: SecurityGroupTable;
  readonly isDefault: boolean;
  readonly rules: SecurityGroupRuleRecord[];
  readonly tags: string[];
}

export const SECURITY_GROUPS_TABLE: ListTable = {
  table: 'security_groups',
  tagType: 'security_group',
  columns: {
    id: { column: 'security_groups.id', type: 'text' },
    name: { column: 'security_groups.name', type: 'text' },
    tenant_id: { column: 'security_groups.project_id', type: 'text' },
    project_id: { column: 'security_groups.project_id', type: 'text' },
    description: { column: 'security_groups.description', type: 'text' },
    stateful: { column: 'security_groups.stateful', type: 'bool' },
    revision_number: { column: 'security_groups.revision_number', type: 'int' },
  },
};

const ruleColumn = (name: string, type: 'text' | 'int' = 'text', nullable = false) => ({
  column: `security_group_rules.${name}`,
  type,
  nullable,
});

export const SECURITY_GROUP_RULES_TABLE: ListTable = {
  table: 'security_group_rules',
  columns: {
    id: ruleColumn('id'),
    security_group_id: ruleColumn('security_group_id'),
    remote_group_id: ruleColumn('remote_group_id', 'text', true),
    direction: ruleColumn('direction'),
    protocol: ruleColumn('protocol', 'text', true),
    port_range_min: ruleColumn('port_range_min', 'int', true),
    port_range_max: ruleColumn('port_range_max', 'int', true),
    ethertype: ruleColumn('ethertype'),
    remote_ip_prefix: ruleColumn('remote_ip_prefix', 'text', true),
    tenant_id: ruleColumn('project_id'),
    project_id: ruleColumn('project_id'),
    description: ruleColumn('description', 'text', true),
    revision_number: ruleColumn('revision_number', 'int'),
  },
  customFilters: {
    // No rule references an address group (octonet serves none), so any value matches nothing.
    remote_address_group_id: () => FALSE,
  },
};

/** The groups a non-admin may see: its project's own (octonet does not share groups). */
export function groupsOfProject(projectId: string | null): Condition {
  return projectId ? sql`security_groups.project_id = ${projectId}` : FALSE;
}

/** The rules a non-admin may see: those in its project's groups, whoever created them. */
export function rulesInGroupsOfProject(projectId: string | null): Condition {
  if (!projectId) return FALSE;
  return sql`exists (select 1 from security_groups g where g.id = security_group_rules.security_group_id and g.project_id = ${projectId})`;
}

/** Owner and default flag of each group, for rule records. */
async function groupFacts(
  db: Db,
  groupIds: readonly string[],
): Promise<Map<string, { projectId: string; isDefault: boolean }>> {
  const facts = new Map<string, { projectId: string; isDefault: boolean }>();
  for (const part of chunks([...new Set(groupIds)])) {
    const rows = await db
      .selectFrom('security_groups')
      .leftJoin('default_security_groups', 'default_security_groups.security_group_id', 'security_groups.id')
      .select(['security_groups.id', 'security_groups.project_id', 'default_security_groups.project_id as default_of'])
      .where('security_groups.id', 'in', part)
      .execute();
    for (const r of rows) facts.set(r.id, { projectId: r.project_id, isDefault: r.default_of !== null });
  }
  return facts;
}

export async function loadRuleRecords(db: Db, rows: SecurityGroupRuleTable[]): Promise<SecurityGroupRuleRecord[]> {
  const facts = await groupFacts(
    db,
    rows.map((r) => r.security_group_id),
  );
  return rows.map((row) => {
    const group = facts.get(row.security_group_id);
    return { row, groupProjectId: group?.projectId ?? row.project_id, inDefaultGroup: group?.isDefault ?? false };
  });
}

/**
 * The rules of the given groups, in creation order. Rules created together share a timestamp;
 * for those the order is IPv4 before IPv6, ingress before egress, which is the order Neutron
 * creates a default group's rules in.
 */
async function rulesOfGroups(db: Db, groupIds: readonly string[]): Promise<SecurityGroupRuleTable[]> {
  const rows: SecurityGroupRuleTable[] = [];
  for (const part of chunks(groupIds)) {
    rows.push(
      ...(await db
        .selectFrom('security_group_rules')
        .selectAll()
        .where('security_group_id', 'in', part)
        .orderBy('created_at')
        .orderBy('ethertype')
        .orderBy('direction', 'desc')
        .orderBy('id')
        .execute()),
    );
  }
  return rows;
}

export async function loadSecurityGroupRecords(db: Db, rows: SecurityGroupTable[]): Promise<SecurityGroupRecord[]> {
  const ids = rows.map((r) => r.id);
  const defaults = new Set<string>();
  for (const part of chunks(ids)) {
    const found = await db
      .selectFrom('default_security_groups')
      .select('security_group_id')
      .where('security_group_id', 'in', part)
      .execute();
    for (const d of found) defaults.add(d.security_group_id);
  }
  const owners = new Map(rows.map((r) => [r.id, r.project_id]));
  const rules = new Map<string, SecurityGroupRuleRecord[]>();
  for (const rule of await rulesOfGroups(db, ids)) {
    const list = rules.get(rule.security_group_id) ?? [];
    const owner = owners.get(rule.security_group_id)!;
    list.push({ row: rule, groupProjectId: owner, inDefaultGroup: defaults.has(rule.security_group_id) });
    rules.set(rule.security_group_id, list);
  }
  const tags = await loadTags(db, ids);
  return rows.map((row) => ({
    row,
    isDefault: defaults.has(row.id),
    rules: rules.get(row.id) ?? [],
    tags: tags.get(row.id) ?? [],
  }));
}

/** A list page; an unknown marker is ignored (Neutron pages these from the start then). */
async function listFromStart<Row>(
  env: FilterEnv,
  table: ListTable,
  query: ListQuery,
  scope: Condition,
): Promise<Row[]> {
  const page = await listRows<Row>(env, table, query, scope);
  return page.markerFound ? page.rows : (await listRows<Row>(env, table, { ...query, marker: undefined }, scope)).rows;
}

export async function listSecurityGroupRecords(
  env: FilterEnv,
  query: ListQuery,
  scope: Condition,
): Promise<SecurityGroupRecord[]> {
  return loadSecurityGroupRecords(env.store.db, await listFromStart(env, SECURITY_GROUPS_TABLE, query, scope));
}

export async function listRuleRecords(
  env: FilterEnv,
  query: ListQuery,
  scope: Condition,
): Promise<SecurityGroupRuleRecord[]> {
  return loadRuleRecords(env.store.db, await listFromStart(env, SECURITY_GROUP_RULES_TABLE, query, scope));
}

export async function getSecurityGroupRecord(db: Db, id: string): Promise<SecurityGroupRecord | undefined> {
  const row = await db.selectFrom('security_groups').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? (await loadSecurityGroupRecords(db, [row]))[0] : undefined;
}

/** The group row, locked until commit where the database has row locks (rule writes serialise on it). */
export async function lockSecurityGroupRow(store: Store, tx: Tx, id: string): Promise<SecurityGroupTable | undefined> {
  return lockRow(store, tx, 'security_groups', id);
}

/** Adds `by` to a group's revision (one per rule written or removed) and stamps `updated_at`. */
export async function bumpSecurityGroupRevision(tx: Tx, id: string, by: number, now: string): Promise<void> {
  await tx
    .updateTable('security_groups')
    .set((eb) => ({ revision_number: eb('revision_number', '+', by), updated_at: now }))
    .where('id', '=', id)
    .execute();
}

/** Whether any port is bound to the group. */
export async function securityGroupInUse(db: Db, id: string): Promise<boolean> {
  const row = await db
    .selectFrom('port_security_groups')
    .select('port_id')
    .where('security_group_id', '=', id)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Deletes a group with its rules, its default-group mark and its tags, and the rules of other
 * groups that name it as remote group. Returns those other groups, whose revision the caller bumps.
 */
export async function deleteSecurityGroup(tx: Tx, id: string): Promise<string[]> {
  const referencing = await tx
    .selectFrom('security_group_rules')
    .select('security_group_id')
    .distinct()
    .where('remote_group_id', '=', id)
    .where('security_group_id', '!=', id)
    .execute();
  await tx
    .deleteFrom('security_group_rules')
    .where((eb) => eb.or([eb('security_group_id', '=', id), eb('remote_group_id', '=', id)]))
    .execute();
  await tx.deleteFrom('default_security_groups').where('security_group_id', '=', id).execute();
  await tx.deleteFrom('tags').where('resource_id', '=', id).execute();
  await tx.deleteFrom('security_groups').where('id', '=', id).execute();
  return referencing.map((r) => r.security_group_id);
}

export async function insertSecurityGroupRules(tx: Tx, rows: SecurityGroupRuleTable[]): Promise<void> {
  if (rows.length) await tx.insertInto('security_group_rules').values(rows).execute();
}

export async function getRuleRecord(db: Db, id: string): Promise<SecurityGroupRuleRecord | undefined> {
  const row = await db.selectFrom('security_group_rules').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? (await loadRuleRecords(db, [row]))[0] : undefined;
}

export async function rulesOfGroup(db: Db, groupId: string): Promise<SecurityGroupRuleTable[]> {
  return rulesOfGroups(db, [groupId]);
}

export async function deleteRuleRow(tx: Tx, id: string): Promise<void> {
  await tx.deleteFrom('security_group_rules').where('id', '=', id).execute();
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
  await tx
    .insertInto('default_security_groups')
    .values({ project_id: projectId, security_group_id: securityGroupId })
    .execute();
}

/** Which of `ids` exist, with their project (for visibility checks). */
export async function securityGroupOwners(db: Db, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('security_groups').select(['id', 'project_id']).where('id', 'in', ids).execute();
  return new Map(rows.map((r) => [r.id, r.project_id]));
}
