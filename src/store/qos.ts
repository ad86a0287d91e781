/**
 * QoS policies with their rules, tags and default flag; the ports and networks they are attached
 * to. Rules of every type share `qos_rules` (see migration 0006).
 */
import { sql } from 'kysely';
import type { Db, Store, Tx } from './database.js';
import { chunks, listRows, type Condition, type FilterEnv, type ListTable } from './list.js';
import type { ListQuery } from '../core/list-query.js';
import type { QosPolicyTable, QosRuleTable } from './schema.js';
import { loadTags } from './tags.js';

export interface QosPolicyRecord {
  readonly row: QosPolicyTable;
  readonly rules: QosRuleTable[];
  readonly isDefault: boolean;
  readonly tags: string[];
  /** The projects (or `*`) its `access_as_shared` RBAC entries share it with. */
  readonly sharedWith: string[];
}

/** Neutron lists a policy's rules per rule class in this order, each in creation order. */
const RULE_TYPE_ORDER = ['bandwidth_limit', 'dscp_marking', 'minimum_bandwidth'];

export const QOS_POLICIES_TABLE: ListTable = {
  table: 'qos_policies',
  tagType: 'policy',
  columns: {
    id: { column: 'qos_policies.id', type: 'text' },
    name: { column: 'qos_policies.name', type: 'text' },
    tenant_id: { column: 'qos_policies.project_id', type: 'text' },
    project_id: { column: 'qos_policies.project_id', type: 'text' },
    shared: { column: 'qos_policies.shared', type: 'bool' },
    description: { column: 'qos_policies.description', type: 'text' },
    revision_number: { column: 'qos_policies.revision_number', type: 'int' },
    created_at: { column: 'qos_policies.created_at', type: 'text' },
    updated_at: { column: 'qos_policies.updated_at', type: 'text' },
  },
  customFilters: {
    is_default: (values) => {
      const isDefault = sql`exists (select 1 from qos_policy_defaults d where d.qos_policy_id = qos_policies.id)`;
      const wanted = new Set(values.map((v) => v === true));
      if (wanted.size === 2) return sql`1 = 1`;
      return wanted.has(true) ? isDefault : sql`not ${isDefault}`;
    },
  },
};

/** Policies a project sees: its own and the shared ones. */
export function qosPolicyVisibility(store: Store, projectId: string | null): Condition {
  const project = projectId ?? '';
  return sql`(qos_policies.project_id = ${project} or qos_policies.shared = ${store.bool(true)} or exists (select 1 from qos_policy_rbacs r where r.object_id = qos_policies.id and r.action = 'access_as_shared' and r.target_project in (${project}, '*')))`;
}

function sortRules(rules: QosRuleTable[]): QosRuleTable[] {
  const rank = (r: QosRuleTable) => RULE_TYPE_ORDER.indexOf(r.type);
  return rules.sort(
    (a, b) => rank(a) - rank(b) || a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id),
  );
}

/** Rules per policy id, in Neutron's order. */
export async function loadQosRules(db: Db, policyIds: readonly string[]): Promise<Map<string, QosRuleTable[]>> {
  const out = new Map<string, QosRuleTable[]>();
  for (const part of chunks([...new Set(policyIds)])) {
    for (const rule of await db.selectFrom('qos_rules').selectAll().where('qos_policy_id', 'in', part).execute()) {
      const list = out.get(rule.qos_policy_id);
      if (list) list.push(rule);
      else out.set(rule.qos_policy_id, [rule]);
    }
  }
  for (const list of out.values()) sortRules(list);
  return out;
}

async function loadRecords(db: Db, rows: readonly QosPolicyTable[]): Promise<QosPolicyRecord[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const [rules, tags, defaults, shares] = await Promise.all([
    loadQosRules(db, ids),
    loadTags(db, ids),
    db.selectFrom('qos_policy_defaults').select('qos_policy_id').where('qos_policy_id', 'in', ids).execute(),
    db
      .selectFrom('qos_policy_rbacs')
      .select(['object_id', 'target_project'])
      .where('object_id', 'in', ids)
      .where('action', '=', 'access_as_shared')
      .execute(),
  ]);
  const isDefault = new Set(defaults.map((d) => d.qos_policy_id));
  const sharedWith = new Map<string, string[]>();
  for (const share of shares)
    sharedWith.set(share.object_id, [...(sharedWith.get(share.object_id) ?? []), share.target_project]);
  return rows.map((row) => ({
    row,
    rules: rules.get(row.id) ?? [],
    isDefault: isDefault.has(row.id),
    tags: tags.get(row.id) ?? [],
    sharedWith: sharedWith.get(row.id) ?? [],
  }));
}

export async function listQosPolicyRecords(
  env: FilterEnv,
  query: ListQuery,
  scope: Condition,
): Promise<{ records: QosPolicyRecord[]; markerFound: boolean }> {
  const { rows, markerFound } = await listRows<QosPolicyTable>(env, QOS_POLICIES_TABLE, query, scope);
  return { records: await loadRecords(env.store.db, rows), markerFound };
}

export async function getQosPolicyRecord(db: Db, id: string): Promise<QosPolicyRecord | undefined> {
  const row = await db.selectFrom('qos_policies').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? (await loadRecords(db, [row]))[0] : undefined;
}

/** The id of the project's default policy, if it has one. */
export async function defaultQosPolicyId(db: Db, projectId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('qos_policy_defaults')
    .select('qos_policy_id')
    .where('project_id', '=', projectId)
    .executeTakeFirst();
  return row?.qos_policy_id;
}

export async function setDefaultQosPolicy(tx: Tx, projectId: string, policyId: string | null): Promise<void> {
  await tx.deleteFrom('qos_policy_defaults').where('project_id', '=', projectId).execute();
  if (policyId)
    await tx.insertInto('qos_policy_defaults').values({ project_id: projectId, qos_policy_id: policyId }).execute();
}

/** The first binding of a policy, in Neutron's order (network, port): what keeps it from being deleted. */
export async function firstQosBinding(
  db: Db,
  policyId: string,
): Promise<{ objectType: 'network' | 'port'; objectId: string } | undefined> {
  const network = await db
    .selectFrom('qos_network_policy_bindings')
    .select('network_id')
    .where('policy_id', '=', policyId)
    .executeTakeFirst();
  if (network) return { objectType: 'network', objectId: network.network_id };
  const port = await db
    .selectFrom('qos_port_policy_bindings')
    .select('port_id')
    .where('policy_id', '=', policyId)
    .executeTakeFirst();
  return port ? { objectType: 'port', objectId: port.port_id } : undefined;
}

export type QosBindingKind = 'port' | 'network';

/** Attaches `policyId` to the port or network (null detaches), replacing what was there. */
export async function bindQosPolicy(tx: Tx, kind: QosBindingKind, id: string, policyId: string | null): Promise<void> {
  if (kind === 'port') {
    await tx.deleteFrom('qos_port_policy_bindings').where('port_id', '=', id).execute();
    if (policyId)
      await tx.insertInto('qos_port_policy_bindings').values({ port_id: id, policy_id: policyId }).execute();
  } else {
    await tx.deleteFrom('qos_network_policy_bindings').where('network_id', '=', id).execute();
    if (policyId)
      await tx.insertInto('qos_network_policy_bindings').values({ network_id: id, policy_id: policyId }).execute();
  }
}

/** The policy attached to each of the ports or networks (absent: none). */
export async function boundQosPolicies(
  db: Db,
  kind: QosBindingKind,
  ids: readonly string[],
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const part of chunks([...new Set(ids)])) {
    const rows =
      kind === 'port'
        ? await db
            .selectFrom('qos_port_policy_bindings')
            .select(['port_id as id', 'policy_id'])
            .where('port_id', 'in', part)
            .execute()
        : await db
            .selectFrom('qos_network_policy_bindings')
            .select(['network_id as id', 'policy_id'])
            .where('network_id', 'in', part)
            .execute();
    for (const r of rows) out.set(r.id, r.policy_id);
  }
  return out;
}

/** Ids of the ports that use the policy, directly or through their network. */
export async function portIdsUsingQosPolicy(db: Db, policyId: string): Promise<string[]> {
  const direct = await db
    .selectFrom('qos_port_policy_bindings')
    .select('port_id')
    .where('policy_id', '=', policyId)
    .execute();
  const viaNetwork = await db
    .selectFrom('ports')
    .innerJoin('qos_network_policy_bindings as b', 'b.network_id', 'ports.network_id')
    .select('ports.id')
    .where('b.policy_id', '=', policyId)
    .execute();
  return [...new Set([...direct.map((r) => r.port_id), ...viaNetwork.map((r) => r.id)])];
}

/** `QosPolicy.get_bound_project_ids`: the projects whose ports or networks use the policy. */
export async function projectsUsingQosPolicy(db: Db, policyId: string): Promise<Set<string>> {
  const [ports, networks] = await Promise.all([
    db
      .selectFrom('qos_port_policy_bindings as b')
      .innerJoin('ports', 'ports.id', 'b.port_id')
      .select('ports.project_id')
      .where('b.policy_id', '=', policyId)
      .execute(),
    db
      .selectFrom('qos_network_policy_bindings as b')
      .innerJoin('networks', 'networks.id', 'b.network_id')
      .select('networks.project_id')
      .where('b.policy_id', '=', policyId)
      .execute(),
  ]);
  return new Set([...ports, ...networks].map((r) => r.project_id));
}
