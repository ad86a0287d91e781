/**
 * The Neutron tables an import reads, loaded once from a source into memory, and their standard
 * attributes (description, revision number, timestamps) looked up by `standard_attr_id`.
 *
 * Tables a Neutron release or a deployment does not have read as empty: a table that is not
 * there holds no rows octonet would have to carry.
 */
import type { NeutronSource, SourceRow } from './source.js';
import { int, text, textOrNull, timestamp } from './values.js';

/** Every table the mappers and the refusal checks read. */
export const NEUTRON_TABLES = [
  'standardattributes',
  'tags',
  'networks',
  'externalnetworks',
  'networkrbacs',
  'networksegments',
  'networksecuritybindings',
  'networkdnsdomains',
  'subnets',
  'ipallocationpools',
  'dnsnameservers',
  'subnetroutes',
  'subnet_service_types',
  'subnet_dns_publish_fixed_ips',
  'ports',
  'ipallocations',
  'ml2_port_bindings',
  'ml2_port_binding_levels',
  'ml2_distributed_port_bindings',
  'portsecuritybindings',
  'portdnses',
  'allowedaddresspairs',
  'extradhcpopts',
  'securitygroupportbindings',
  'securitygroups',
  'securitygrouprules',
  'default_security_group',
  'routers',
  'router_extra_attributes',
  'routerroutes',
  'floatingips',
  'floatingipdnses',
  'subnetpools',
  'subnetpoolprefixes',
  'address_scopes',
  'quotas',
  'qos_policies',
  'qos_bandwidth_limit_rules',
  'qos_dscp_marking_rules',
  'qos_minimum_bandwidth_rules',
  'qos_policies_default',
  'qos_port_policy_bindings',
  'qos_network_policy_bindings',
  'qospolicyrbacs',
  'subnetpoolrbacs',
  'addressscoperbacs',
  'bgp_speakers',
  'bgp_peers',
  'bgp_speaker_peer_bindings',
  'bgp_speaker_network_bindings',
  'network_segment_ranges',
  'portnumaaffinitypolicies',
  'portdeviceprofiles',
  'portuplinkstatuspropagation',
  'portdataplanestatuses',
  ...[
    // Extensions octonet does not implement: any row in them is refused (see refusals.ts).
    'trunks',
    'subports',
    'portforwardings',
    'local_ips',
    'ndp_proxies',
    'router_ndp_proxy_state',
    'conntrack_helpers',
    'logs',
    'address_groups',
    'securitygrouprbacs',
    'addressgrouprbacs',
    'meteringlabels',
    'qos_packet_rate_limit_rules',
    'qos_minimum_packet_rate_rules',
    'qos_fip_policy_bindings',
    'qos_router_gw_policy_bindings',
    'auto_allocated_topologies',
    'bgp_speaker_dragent_bindings',
    'firewall_rules',
    'vpnservices',
  ],
] as const;

export type NeutronTable = (typeof NEUTRON_TABLES)[number];

/** A standard attribute row as octonet stores its columns. */
export interface StandardAttributes {
  description: string;
  revision_number: number;
  created_at: string;
  updated_at: string;
}

export interface NeutronSnapshot {
  rows(table: NeutronTable): readonly SourceRow[];
  /** The standard attributes of a resource row (by its `standard_attr_id`). */
  standard(row: SourceRow): StandardAttributes;
  /** The description as stored: NULL stays null (security group rules print it so). */
  description(row: SourceRow): string | null;
  /** Neutron's `standardattributes.resource_type` of a row id ('networks', 'ports', ...). */
  standardType(standardAttrId: string): string | undefined;
}

export async function readSnapshot(source: NeutronSource): Promise<NeutronSnapshot> {
  const present = await source.tables();
  if (!present.has('standardattributes') || !present.has('networks')) {
    throw new Error('the source database holds no Neutron schema (no standardattributes/networks tables)');
  }
  const tables = new Map<NeutronTable, SourceRow[]>();
  for (const table of NEUTRON_TABLES) tables.set(table, present.has(table) ? await source.rows(table) : []);
  const standard = new Map<string, { row: SourceRow; attributes: StandardAttributes }>();
  for (const row of tables.get('standardattributes') ?? []) {
    const created = timestamp(row.created_at);
    standard.set(text(row, 'id'), {
      row,
      attributes: {
        // Neutron's description column is nullable; its API prints NULL as ''.
        description: textOrNull(row, 'description') ?? '',
        revision_number: int(row, 'revision_number'),
        created_at: created,
        updated_at: row.updated_at === null || row.updated_at === undefined ? created : timestamp(row.updated_at),
      },
    });
  }
  return {
    rows: (table) => tables.get(table) ?? [],
    standard(row) {
      const found = standard.get(text(row, 'standard_attr_id'));
      if (!found) throw new Error(`a row without its standard attributes: ${JSON.stringify(row)}`);
      return found.attributes;
    },
    description: (row) => {
      const found = standard.get(text(row, 'standard_attr_id'));
      return found ? textOrNull(found.row, 'description') : null;
    },
    standardType: (id) => {
      const found = standard.get(id);
      return found ? text(found.row, 'resource_type') : undefined;
    },
  };
}
