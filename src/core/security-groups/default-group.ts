/**
 * Each project's `default` security group, created the first time the project needs one (a network
 * or port create, a security group list or create), with Neutron's default rules: all egress, and
 * ingress from members of the same group, for IPv4 and IPv6.
 *
 * Creating it counts the four rules against the project's `security_group_rule` quota (as Neutron
 * does); the group itself is not counted. The `default_security_groups` primary key makes a
 * concurrent second creation fail, and the caller's transaction retries and finds the first.
 * Drivers hear of the new group with the write that made it (`emitInTransaction`), as Neutron's
 * ML2/OVN writes the group's Port_Group at once, not when its first port arrives.
 */
import { randomUUID } from 'node:crypto';
import type { Store, Tx } from '../../store/database.js';
import type { SecurityGroupRuleTable } from '../../store/schema.js';
import {
  defaultSecurityGroupId,
  getSecurityGroupRecord,
  insertDefaultSecurityGroup,
  insertSecurityGroupRules,
} from '../../store/security-groups.js';
import type { RequestContext } from '../context.js';
import { emitInTransaction, writeTransaction, type CoreDeps } from '../deps.js';
import { securityGroupState } from '../driver-states.js';
import { adminContext } from '../context.js';
import type { ListQuery } from '../list-query.js';
import type { QuotaEngine } from '../quotas/engine.js';
import { timestamp } from '../standard-attributes.js';
import { insertRow } from '../../store/rows.js';
import { securityGroupView } from './views.js';

export const DEFAULT_SECURITY_GROUP_NAME = 'default';
export const DEFAULT_SECURITY_GROUP_DESCRIPTION = 'Default security group';

/** The rule templates of a new group; `remoteGroup` rules reference the group itself. */
export const DEFAULT_RULE_TEMPLATES = [
  { direction: 'ingress', ethertype: 'IPv4', remoteGroup: true },
  { direction: 'egress', ethertype: 'IPv4', remoteGroup: false },
  { direction: 'ingress', ethertype: 'IPv6', remoteGroup: true },
  { direction: 'egress', ethertype: 'IPv6', remoteGroup: false },
] as const;

/** The rows of the rules a group starts with: every template for `default`, the egress ones otherwise. */
export function initialRules(
  securityGroupId: string,
  projectId: string,
  isDefault: boolean,
  now: string,
): SecurityGroupRuleTable[] {
  return DEFAULT_RULE_TEMPLATES.filter((t) => isDefault || !t.remoteGroup).map((t) => ({
    id: randomUUID(),
    project_id: projectId,
    security_group_id: securityGroupId,
    remote_group_id: t.remoteGroup ? securityGroupId : null,
    direction: t.direction,
    ethertype: t.ethertype,
    protocol: null,
    port_range_min: null,
    port_range_max: null,
    remote_ip_prefix: null,
    description: null,
    revision_number: 0,
    created_at: now,
    updated_at: now,
  }));
}

/** Returns the project's default group id, creating the group first when the project has none. */
export async function ensureDefaultSecurityGroup(
  store: Store,
  quotas: QuotaEngine,
  tx: Tx,
  projectId: string,
): Promise<string> {
  const existing = await defaultSecurityGroupId(tx, projectId);
  if (existing) return existing;
  const id = randomUUID();
  const now = timestamp();
  const rules = initialRules(id, projectId, true, now);
  await quotas.enforce(tx, projectId, { security_group_rule: rules.length });
  await insertRow(store, tx, 'security_groups', {
    id,
    project_id: projectId,
    name: DEFAULT_SECURITY_GROUP_NAME,
    description: DEFAULT_SECURITY_GROUP_DESCRIPTION,
    stateful: true,
    revision_number: 1,
    created_at: now,
    updated_at: now,
  });
  await insertDefaultSecurityGroup(tx, projectId, id);
  await insertSecurityGroupRules(tx, rules);
  const current = securityGroupState(securityGroupView((await getSecurityGroupRecord(tx, id))!));
  emitInTransaction(tx, { resource: 'security_group', operation: 'create', request: adminContext(), current });
  return id;
}

/**
 * Listing groups or rules creates the default group first, so a new project sees it in its first
 * list (Neutron's `get_security_groups` and `get_security_group_rules`). The project is the first
 * `project_id` filter, else the first `tenant_id` filter, else the caller's; only an admin
 * creates another project's. Runs in its own transaction, before the list reads.
 */
export async function ensureDefaultSecurityGroupBeforeList(
  deps: CoreDeps,
  ctx: RequestContext,
  query: ListQuery,
): Promise<void> {
  const projectId = query.filters.project_id?.[0] ?? query.filters.tenant_id?.[0] ?? ctx.projectId;
  if (typeof projectId !== 'string' || projectId === '') return;
  if (projectId !== ctx.projectId && !ctx.isAdmin) return;
  if (await defaultSecurityGroupId(deps.store.db, projectId)) return;
  await writeTransaction(deps, async (tx) => {
    await ensureDefaultSecurityGroup(deps.store, deps.quotas, tx, projectId);
    return { result: undefined, events: [] };
  });
}
