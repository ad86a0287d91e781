/**
 * Neutron's subnet pools with their prefixes, address scopes, QoS policies with their rules,
 * defaults and bindings, and neutron-dynamic-routing's BGP speakers and peers → octonet's rows.
 */
import type { ImportPlan } from './plan.js';
import type { NeutronSnapshot } from './snapshot.js';
import type { SourceRow } from './source.js';
import { flag, int, intOrNull, text, textOrNull } from './values.js';

/** Objects an RBAC table shares with every project (`*`, access_as_shared): octonet's `shared` flag. */
function sharedWithAll(rows: readonly SourceRow[]): Set<string> {
  return new Set(
    rows
      .filter((r) => text(r, 'target_project') === '*' && text(r, 'action') === 'access_as_shared')
      .map((r) => text(r, 'object_id')),
  );
}

export function mapSubnetPools(snapshot: NeutronSnapshot, plan: ImportPlan): void {
  const scopesShared = sharedWithAll(snapshot.rows('addressscoperbacs'));
  for (const row of snapshot.rows('address_scopes')) {
    const id = text(row, 'id');
    plan.address_scopes.push({
      id,
      project_id: text(row, 'project_id'),
      name: text(row, 'name'),
      shared: flag(row, 'shared') || scopesShared.has(id),
      ip_version: int(row, 'ip_version'),
    });
  }
  const poolsShared = sharedWithAll(snapshot.rows('subnetpoolrbacs'));
  for (const row of snapshot.rows('subnetpools')) {
    const id = text(row, 'id');
    plan.subnetpools.push({
      id,
      project_id: text(row, 'project_id'),
      name: text(row, 'name'),
      ip_version: int(row, 'ip_version'),
      default_prefixlen: int(row, 'default_prefixlen'),
      min_prefixlen: int(row, 'min_prefixlen'),
      max_prefixlen: int(row, 'max_prefixlen'),
      default_quota: intOrNull(row, 'default_quota'),
      is_default: flag(row, 'is_default'),
      shared: flag(row, 'shared') || poolsShared.has(id),
      address_scope_id: textOrNull(row, 'address_scope_id'),
      ...snapshot.standard(row),
    });
  }
  for (const row of snapshot.rows('subnetpoolprefixes')) {
    plan.subnetpool_prefixes.push({ subnetpool_id: text(row, 'subnetpool_id'), cidr: text(row, 'cidr') });
  }
}

export function mapQos(snapshot: NeutronSnapshot, plan: ImportPlan): void {
  const rbacs = snapshot.rows('qospolicyrbacs');
  const shared = sharedWithAll(rbacs);
  const created = new Map<string, string>();
  for (const row of snapshot.rows('qos_policies')) {
    const id = text(row, 'id');
    const standard = snapshot.standard(row);
    created.set(id, standard.created_at);
    plan.qos_policies.push({
      id,
      project_id: text(row, 'project_id'),
      name: text(row, 'name'),
      shared: shared.has(id),
      ...standard,
    });
  }
  // Every entry, with its id: octonet keeps QoS RBAC as Neutron does (the wildcard one is `shared`).
  for (const row of rbacs) {
    plan.qos_policy_rbacs.push({
      id: text(row, 'id'),
      project_id: text(row, 'project_id'),
      object_id: text(row, 'object_id'),
      target_project: text(row, 'target_project'),
      action: text(row, 'action'),
    });
  }
  const rule = (row: SourceRow, type: string) => ({
    id: text(row, 'id'),
    qos_policy_id: text(row, 'qos_policy_id'),
    type,
    direction: text(row, 'direction'),
    max_kbps: null,
    max_burst_kbps: null,
    dscp_mark: null,
    min_kbps: null,
    // Neutron's rules have no timestamps; the policy's creation orders them among its rules.
    created_at: created.get(text(row, 'qos_policy_id')) ?? '',
  });
  for (const row of snapshot.rows('qos_bandwidth_limit_rules')) {
    plan.qos_rules.push({
      ...rule(row, 'bandwidth_limit'),
      max_kbps: intOrNull(row, 'max_kbps'),
      max_burst_kbps: intOrNull(row, 'max_burst_kbps'),
    });
  }
  for (const row of snapshot.rows('qos_dscp_marking_rules')) {
    plan.qos_rules.push({ ...rule(row, 'dscp_marking'), direction: '', dscp_mark: intOrNull(row, 'dscp_mark') });
  }
  for (const row of snapshot.rows('qos_minimum_bandwidth_rules')) {
    plan.qos_rules.push({ ...rule(row, 'minimum_bandwidth'), min_kbps: intOrNull(row, 'min_kbps') });
  }
  for (const row of snapshot.rows('qos_policies_default')) {
    plan.qos_policy_defaults.push({ project_id: text(row, 'project_id'), qos_policy_id: text(row, 'qos_policy_id') });
  }
  for (const row of snapshot.rows('qos_port_policy_bindings')) {
    plan.qos_port_policy_bindings.push({ port_id: text(row, 'port_id'), policy_id: text(row, 'policy_id') });
  }
  for (const row of snapshot.rows('qos_network_policy_bindings')) {
    plan.qos_network_policy_bindings.push({ network_id: text(row, 'network_id'), policy_id: text(row, 'policy_id') });
  }
}

export function mapBgp(snapshot: NeutronSnapshot, plan: ImportPlan): void {
  for (const row of snapshot.rows('bgp_speakers')) {
    plan.bgp_speakers.push({
      id: text(row, 'id'),
      project_id: text(row, 'tenant_id') || text(row, 'project_id'),
      name: text(row, 'name'),
      local_as: int(row, 'local_as'),
      ip_version: int(row, 'ip_version'),
      advertise_floating_ip_host_routes: flag(row, 'advertise_floating_ip_host_routes'),
      advertise_tenant_networks: flag(row, 'advertise_tenant_networks'),
    });
  }
  for (const row of snapshot.rows('bgp_peers')) {
    plan.bgp_peers.push({
      id: text(row, 'id'),
      project_id: text(row, 'tenant_id') || text(row, 'project_id'),
      name: text(row, 'name'),
      peer_ip: text(row, 'peer_ip'),
      remote_as: int(row, 'remote_as'),
      auth_type: text(row, 'auth_type'),
      password: textOrNull(row, 'password'),
    });
  }
  for (const row of snapshot.rows('bgp_speaker_peer_bindings')) {
    plan.bgp_speaker_peer_bindings.push({
      bgp_speaker_id: text(row, 'bgp_speaker_id'),
      bgp_peer_id: text(row, 'bgp_peer_id'),
    });
  }
  for (const row of snapshot.rows('bgp_speaker_network_bindings')) {
    plan.bgp_speaker_network_bindings.push({
      bgp_speaker_id: text(row, 'bgp_speaker_id'),
      network_id: text(row, 'network_id'),
      ip_version: int(row, 'ip_version'),
    });
  }
}
