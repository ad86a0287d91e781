/**
 * Security groups and rules as the API shows them (Neutron master's key order), and the policy
 * target of a rule, which carries its group's owner since rule policies are about the group.
 */
import type { PolicyTarget } from '../authorizer.js';
import type { View } from '../resource.js';
import { toBool } from '../../store/schema.js';
import type { SecurityGroupRecord, SecurityGroupRuleRecord } from '../../store/security-groups.js';
import { normalizedCidr } from './rule-validation.js';

/**
 * A rule, at the top level and embedded in its group alike. `remote_address_group_id` is always
 * null: octonet serves no address groups, and master's ML2/OVN always shows the key.
 */
export function ruleView(record: SecurityGroupRuleRecord): View {
  const { row } = record;
  return {
    id: row.id,
    tenant_id: row.project_id,
    project_id: row.project_id,
    security_group_id: row.security_group_id,
    ethertype: row.ethertype,
    direction: row.direction,
    protocol: row.protocol,
    port_range_min: row.port_range_min,
    port_range_max: row.port_range_max,
    remote_ip_prefix: row.remote_ip_prefix,
    remote_address_group_id: null,
    normalized_cidr: normalizedCidr(row.remote_ip_prefix),
    remote_group_id: row.remote_group_id,
    belongs_to_default_sg: record.inDefaultGroup,
    description: row.description,
    created_at: row.created_at,
    updated_at: row.updated_at,
    revision_number: row.revision_number,
  };
}

/** `create/get/delete_security_group_rule` look at the group's project, not the rule's. */
export function ruleTarget(record: SecurityGroupRuleRecord): PolicyTarget {
  return { ...ruleView(record), 'security_group:project_id': record.groupProjectId };
}

export function securityGroupView(record: SecurityGroupRecord): View {
  const { row } = record;
  return {
    id: row.id,
    name: row.name,
    stateful: toBool(row.stateful),
    tenant_id: row.project_id,
    project_id: row.project_id,
    description: row.description,
    security_group_rules: record.rules.map(ruleView),
    tags: record.tags,
    created_at: row.created_at,
    updated_at: row.updated_at,
    revision_number: row.revision_number,
  };
}
