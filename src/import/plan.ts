/**
 * What an import writes: octonet's rows per table, built from a Neutron snapshot by the mappers
 * and written by `writer.ts` in one transaction. Resource tables carry rows as `store/rows.ts`
 * takes them (booleans and JSON values as such); the other tables carry their rows as inserted.
 */
import type { Insertable } from 'kysely';
import type { RowValues, ResourceTable } from '../store/rows.js';
import type { Schema } from '../store/schema.js';

type ChildTable = Exclude<keyof Schema, ResourceTable | 'octonet_deployment'>;

export type ImportPlan = { [T in ResourceTable]: RowValues<T>[] } & { [T in ChildTable]: Insertable<Schema[T]>[] };

/** The tables in the order their rows must be inserted (referenced rows first). */
export const INSERT_ORDER: readonly (keyof ImportPlan)[] = [
  'address_scopes',
  'subnetpools',
  'subnetpool_prefixes',
  'networks',
  'external_networks',
  'network_rbacs',
  'network_segments',
  'qos_policies',
  'qos_policy_rbacs',
  'qos_rules',
  'qos_policy_defaults',
  'security_groups',
  'default_security_groups',
  'security_group_rules',
  'subnets',
  'ports',
  'port_bindings',
  'ip_allocations',
  'allowed_address_pairs',
  'extra_dhcp_opts',
  'port_security_groups',
  'qos_port_policy_bindings',
  'qos_network_policy_bindings',
  'routers',
  'router_routes',
  'router_l3_agents',
  'floatingips',
  'bgp_speakers',
  'bgp_peers',
  'bgp_speaker_peer_bindings',
  'bgp_speaker_network_bindings',
  'bgp_speaker_dragent_bindings',
  'quotas',
  'tags',
];

export function emptyPlan(): ImportPlan {
  return Object.fromEntries(INSERT_ORDER.map((table) => [table, []])) as unknown as ImportPlan;
}
