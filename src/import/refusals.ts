/**
 * What an import cannot carry, found before anything is written: rows of extensions octonet does
 * not implement, ports bound by another mechanism driver than OVN, and attributes octonet has no
 * column for. Each refusal names its rows, so an operator sees exactly what stands in the way, and
 * says what `--skip-unsupported` does with them: rows of a missing extension are left out; a resource
 * that only has an attribute octonet lacks (a VLAN-transparent network, an HA router, a subnet on a
 * segment) is carried as a plain one with that attribute dropped, which keeps its ports, addresses and
 * traffic, and the report says so loudly (the mappers carry them so: map-*.ts).
 */
import { TAGGED_TYPES } from './map-tags-quotas.js';
import type { NeutronSnapshot, NeutronTable } from './snapshot.js';
import type { SourceRow } from './source.js';
import { flag, text, textOrNull } from './values.js';

export interface Refusal {
  /** Why octonet cannot carry these rows. */
  reason: string;
  /** The Neutron table they are in. */
  table: string;
  /** Their ids (or another key where the table has no id). */
  keys: string[];
  /** What `--skip-unsupported` does with them: `left out`, or how they are carried instead. */
  whenSkipped: string;
}

const LEFT_OUT = 'left out';

/** Tables of extensions octonet does not implement: any row refuses the import. */
const UNSUPPORTED_TABLES: readonly [NeutronTable, string][] = [
  ['trunks', 'trunk ports (trunk) are not implemented'],
  ['portforwardings', 'floating IP port forwarding is not implemented'],
  ['local_ips', 'Local IPs are not implemented'],
  ['ndp_proxies', 'NDP proxies are not implemented'],
  ['conntrack_helpers', 'router conntrack helpers are not implemented'],
  ['logs', 'security group logging is not implemented'],
  ['address_groups', 'address groups are not implemented'],
  ['securitygrouprbacs', 'security group RBAC (rbac-security-groups) is not implemented'],
  ['addressgrouprbacs', 'address group RBAC is not implemented'],
  ['meteringlabels', 'metering is not implemented'],
  ['qos_packet_rate_limit_rules', 'QoS packet rate limit rules (qos-pps) are not implemented'],
  ['qos_minimum_packet_rate_rules', 'QoS minimum packet rate rules are not implemented'],
  ['qos_fip_policy_bindings', 'QoS policies on floating IPs (qos-fip) are not implemented'],
  ['qos_router_gw_policy_bindings', 'QoS policies on router gateways (qos-gateway-ip) are not implemented'],
  ['auto_allocated_topologies', 'auto-allocated topologies are not implemented'],
  [
    'bgp_speaker_dragent_bindings',
    'BGP speakers bound to Neutron DR agents: octonet schedules speakers on OVN chassis',
  ],
  ['firewall_rules', 'FWaaS is not implemented'],
  ['vpnservices', 'VPNaaS is not implemented'],
];

/** Mechanism drivers whose bindings octonet continues: ML2/OVN's own. */
const OVN_DRIVERS = new Set(['ovn']);

function keyOf(row: SourceRow): string {
  for (const column of ['id', 'port_id', 'router_id', 'network_id', 'object_id', 'fip_id']) {
    if (row[column] !== undefined && row[column] !== null) return text(row, column);
  }
  return JSON.stringify(row);
}

function refuse(
  refusals: Refusal[],
  table: string,
  reason: string,
  rows: readonly SourceRow[],
  whenSkipped = LEFT_OUT,
  key = keyOf,
): void {
  if (rows.length > 0) refusals.push({ reason, table, keys: rows.map(key), whenSkipped });
}

/** Ports bound by a mechanism driver other than OVN (or through DVR's distributed bindings). */
export function portsBoundElsewhere(snapshot: NeutronSnapshot): Set<string> {
  const ports = new Set<string>();
  for (const level of snapshot.rows('ml2_port_binding_levels')) {
    const driver = textOrNull(level, 'driver');
    if (driver !== null && !OVN_DRIVERS.has(driver)) ports.add(text(level, 'port_id'));
  }
  for (const row of snapshot.rows('ml2_distributed_port_bindings')) ports.add(text(row, 'port_id'));
  return ports;
}

export function findRefusals(snapshot: NeutronSnapshot): Refusal[] {
  const refusals: Refusal[] = [];
  for (const [table, reason] of UNSUPPORTED_TABLES) refuse(refusals, table, reason, snapshot.rows(table));
  const elsewhere = portsBoundElsewhere(snapshot);
  if (elsewhere.size > 0) {
    refusals.push({
      reason: 'ports bound by a mechanism driver other than OVN',
      table: 'ml2_port_binding_levels',
      keys: [...elsewhere],
      whenSkipped: 'carried unbound (binding:vif_type unbound), the next bind binds them through OVN',
    });
  }
  const rows = (table: NeutronTable, keep: (row: SourceRow) => boolean) => snapshot.rows(table).filter(keep);
  refuse(
    refusals,
    'networksegments',
    'dynamic segments (hierarchical port binding) are not implemented',
    rows('networksegments', (r) => flag(r, 'is_dynamic')),
  );
  refuse(
    refusals,
    'networksegments',
    'segment names and descriptions (the segments API) are not carried',
    rows('networksegments', (r) => text(r, 'name') !== ''),
    'carried as plain segments, name and description dropped',
  );
  refuse(
    refusals,
    'subnets',
    'subnets on a segment (routed provider networks) are not implemented',
    rows('subnets', (r) => textOrNull(r, 'segment_id') !== null),
    'carried as plain subnets of their network, segment_id dropped',
  );
  refuse(
    refusals,
    'networks',
    'VLAN-transparent networks are not implemented',
    rows('networks', (r) => flag(r, 'vlan_transparent')),
    'carried as plain networks, vlan_transparent dropped',
  );
  refuse(
    refusals,
    'router_extra_attributes',
    'distributed (DVR) or HA routers: ML2/OVN routers are neither',
    rows('router_extra_attributes', (r) => flag(r, 'distributed') || flag(r, 'ha')),
    'carried as plain routers (OVN gateway chassis, not DVR or HA agents), distributed and ha dropped',
  );
  refuse(
    refusals,
    'routers',
    'router flavors are not implemented',
    rows('routers', (r) => textOrNull(r, 'flavor_id') !== null),
    'carried as plain routers, flavor_id dropped',
  );
  refuse(
    refusals,
    'securitygrouprules',
    'rules with a remote address group (address groups are not implemented)',
    rows('securitygrouprules', (r) => textOrNull(r, 'remote_address_group_id') !== null),
  );
  // The ranges Neutron makes from its config at start (`default`) are config, not data.
  refuse(
    refusals,
    'network_segment_ranges',
    'project network segment ranges (network-segment-range) are not implemented',
    rows('network_segment_ranges', (r) => !flag(r, 'default')),
  );
  refuse(
    refusals,
    'portnumaaffinitypolicies',
    'port NUMA affinity policies are not implemented',
    rows('portnumaaffinitypolicies', (r) => textOrNull(r, 'numa_affinity_policy') !== null),
    'ports carried, numa_affinity_policy dropped',
  );
  refuse(
    refusals,
    'portdeviceprofiles',
    'port device profiles are not implemented',
    rows('portdeviceprofiles', (r) => textOrNull(r, 'device_profile') !== null),
    'ports carried, device_profile dropped',
  );
  refuse(
    refusals,
    'portuplinkstatuspropagation',
    'uplink status propagation is not implemented',
    rows('portuplinkstatuspropagation', (r) => flag(r, 'propagate_uplink_status')),
    'ports carried, propagate_uplink_status dropped',
  );
  refuse(
    refusals,
    'portdataplanestatuses',
    'data plane status is not implemented',
    rows('portdataplanestatuses', (r) => textOrNull(r, 'data_plane_status') !== null),
    'ports carried, data_plane_status dropped',
  );
  for (const table of ['subnetpoolrbacs', 'addressscoperbacs'] as const) {
    refuse(
      refusals,
      table,
      'RBAC entries for one project: octonet shares subnet pools and address scopes with all or none',
      rows(table, (r) => text(r, 'target_project') !== '*'),
    );
  }
  refuse(
    refusals,
    'tags',
    'tags on resources octonet does not tag',
    rows('tags', (r) => !((snapshot.standardType(text(r, 'standard_attr_id')) ?? '') in TAGGED_TYPES)),
    LEFT_OUT,
    (r) => `${snapshot.standardType(text(r, 'standard_attr_id')) ?? '?'}:${text(r, 'tag')}`,
  );
  return refusals;
}

function rowsOf(r: Refusal): string {
  const shown = r.keys.slice(0, 10).join(', ');
  const more = r.keys.length > 10 ? ` and ${r.keys.length - 10} more` : '';
  return `${r.table}: ${r.keys.length} row${r.keys.length === 1 ? '' : 's'}: ${shown}${more}`;
}

/** The refusals as an operator reads them: one line per reason, with the rows' keys. */
export function describeRefusals(refusals: readonly Refusal[]): string {
  return refusals.map((r) => `- ${r.reason} (${rowsOf(r)})`).join('\n');
}

/** What `--skip-unsupported` did, one line per reason: left out, or carried with what dropped. */
export function describeSkipped(refusals: readonly Refusal[]): string {
  return refusals.map((r) => `- ${r.reason}: ${r.whenSkipped} (${rowsOf(r)})`).join('\n');
}
