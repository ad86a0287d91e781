/** Neutron's tags (keyed by standard attribute) and per-project quota overrides → octonet's rows. */
import type { ImportPlan } from './plan.js';
import type { NeutronSnapshot, NeutronTable } from './snapshot.js';
import { int, text } from './values.js';

/** Neutron's `standardattributes.resource_type` → its table and octonet's tag resource type. */
export const TAGGED_TYPES: Readonly<Record<string, { table: NeutronTable; type: string }>> = {
  networks: { table: 'networks', type: 'network' },
  subnets: { table: 'subnets', type: 'subnet' },
  ports: { table: 'ports', type: 'port' },
  subnetpools: { table: 'subnetpools', type: 'subnetpool' },
  routers: { table: 'routers', type: 'router' },
  floatingips: { table: 'floatingips', type: 'floatingip' },
  securitygroups: { table: 'securitygroups', type: 'security_group' },
  qos_policies: { table: 'qos_policies', type: 'policy' },
};

export function mapTags(snapshot: NeutronSnapshot, plan: ImportPlan): void {
  const owners = new Map<string, { id: string; type: string }>();
  for (const { table, type } of Object.values(TAGGED_TYPES)) {
    for (const row of snapshot.rows(table)) owners.set(text(row, 'standard_attr_id'), { id: text(row, 'id'), type });
  }
  for (const row of snapshot.rows('tags')) {
    // Tags of a resource octonet does not carry are refused (refusals.ts) or left out with it.
    const owner = owners.get(text(row, 'standard_attr_id'));
    if (owner) plan.tags.push({ resource_type: owner.type, resource_id: owner.id, tag: text(row, 'tag') });
  }
}

export function mapQuotas(snapshot: NeutronSnapshot, plan: ImportPlan): void {
  for (const row of snapshot.rows('quotas')) {
    if (row.project_id === null || row.resource === null) continue;
    plan.quotas.push({
      project_id: text(row, 'project_id'),
      resource: text(row, 'resource'),
      limit: int(row, 'limit'),
    });
  }
}
