/** Neutron's security groups, their rules and each project's default group → octonet's rows. */
import type { ImportPlan } from './plan.js';
import type { NeutronSnapshot } from './snapshot.js';
import { flag, intOrNull, text, textOrNull } from './values.js';

export function mapSecurityGroups(snapshot: NeutronSnapshot, plan: ImportPlan): void {
  for (const row of snapshot.rows('securitygroups')) {
    plan.security_groups.push({
      id: text(row, 'id'),
      project_id: text(row, 'project_id'),
      name: text(row, 'name'),
      stateful: flag(row, 'stateful', true),
      ...snapshot.standard(row),
    });
  }
  for (const row of snapshot.rows('default_security_group')) {
    plan.default_security_groups.push({
      project_id: text(row, 'project_id'),
      security_group_id: text(row, 'security_group_id'),
    });
  }
  for (const row of snapshot.rows('securitygrouprules')) {
    // A rule naming an address group would, without it, let in everyone: it is refused, never widened.
    if (textOrNull(row, 'remote_address_group_id') !== null) continue;
    plan.security_group_rules.push({
      id: text(row, 'id'),
      project_id: text(row, 'project_id'),
      security_group_id: text(row, 'security_group_id'),
      remote_group_id: textOrNull(row, 'remote_group_id'),
      direction: text(row, 'direction'),
      ethertype: text(row, 'ethertype'),
      protocol: textOrNull(row, 'protocol'),
      port_range_min: intOrNull(row, 'port_range_min'),
      port_range_max: intOrNull(row, 'port_range_max'),
      remote_ip_prefix: textOrNull(row, 'remote_ip_prefix'),
      ...snapshot.standard(row),
      // The rules Neutron makes with a group have a NULL description, which its API prints as null.
      description: snapshot.description(row),
    });
  }
}
