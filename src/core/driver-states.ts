/**
 * The one place core turns what the API returns (a view) into what drivers receive (the typed
 * states of `drivers/host.ts`): one function per resource kind, used both for the hook contexts
 * (`ResourceContext`) and for the driver's reader, so a precommit, a postcommit and a repair pass
 * see the same shape. The views are parsed, not asserted: a view that lost an attribute a driver
 * relies on fails here, loudly, instead of as an `undefined` deep inside a driver.
 *
 * Each schema is declared against its state interface (`z.ZodType<DriverStates['port']>`), so the compiler
 * checks that the two agree; attributes drivers do not use are dropped.
 */
import { z } from 'zod';
import type { DriverStates } from '../drivers/contract.js';
import type { SegmentState } from '../drivers/host.js';
import type { View } from './resource.js';
import { protocolNumber } from './security-groups/rule-validation.js';

const nullableString = z.string().nullable();
const nullableNumber = z.number().nullable();
const hostRoutes = z.array(z.object({ destination: z.string(), nexthop: z.string() }));
const fixedIps = z.array(z.object({ subnet_id: z.string(), ip_address: z.string() }));

const networkSchema: z.ZodType<Omit<DriverStates['network'], 'segments'>> = z.object({
  id: z.string(),
  name: z.string(),
  project_id: z.string(),
  mtu: z.number(),
  admin_state_up: z.boolean(),
  shared: z.boolean(),
  'router:external': z.boolean(),
  port_security_enabled: z.boolean(),
  availability_zone_hints: z.array(z.string()),
  'provider:network_type': nullableString,
  'provider:physical_network': nullableString,
  'provider:segmentation_id': nullableNumber,
  qos_policy_id: nullableString,
  revision_number: z.number(),
});

const subnetSchema: z.ZodType<DriverStates['subnet']> = z.object({
  id: z.string(),
  name: z.string(),
  network_id: z.string(),
  project_id: z.string(),
  ip_version: z.union([z.literal(4), z.literal(6)]),
  cidr: z.string(),
  gateway_ip: nullableString,
  enable_dhcp: z.boolean(),
  dns_nameservers: z.array(z.string()),
  host_routes: hostRoutes,
  ipv6_ra_mode: nullableString,
  ipv6_address_mode: nullableString,
  subnetpool_id: nullableString,
  revision_number: z.number(),
});

const portSchema: z.ZodType<DriverStates['port']> = z.object({
  id: z.string(),
  name: z.string(),
  network_id: z.string(),
  project_id: z.string(),
  mac_address: z.string(),
  fixed_ips: fixedIps,
  admin_state_up: z.boolean(),
  status: z.string(),
  device_id: z.string(),
  device_owner: z.string(),
  port_security_enabled: z.boolean(),
  security_groups: z.array(z.string()),
  allowed_address_pairs: z.array(z.object({ ip_address: z.string(), mac_address: z.string() })),
  extra_dhcp_opts: z.array(z.object({ opt_name: z.string(), opt_value: z.string(), ip_version: z.number() })),
  'binding:host_id': z.string(),
  'binding:vnic_type': z.string(),
  'binding:profile': z.record(z.string(), z.unknown()),
  'binding:vif_type': z.string(),
  qos_policy_id: nullableString,
  qos_network_policy_id: nullableString,
  revision_number: z.number(),
});

const ruleSchema: z.ZodType<Omit<DriverStates['security_group_rule'], 'protocol_number'>> = z.object({
  id: z.string(),
  security_group_id: z.string(),
  direction: z.enum(['ingress', 'egress']),
  ethertype: z.enum(['IPv4', 'IPv6']),
  protocol: nullableString,
  port_range_min: nullableNumber,
  port_range_max: nullableNumber,
  remote_ip_prefix: nullableString,
  remote_group_id: nullableString,
  normalized_cidr: nullableString,
});

const groupSchema = z.object({
  id: z.string(),
  name: z.string(),
  project_id: z.string(),
  stateful: z.boolean(),
  revision_number: z.number(),
  // Only for the order: where two rules make the same ACL, the older one names it.
  security_group_rules: z.array(z.object({ id: z.string(), created_at: z.string() }).loose()),
});

const routerSchema: z.ZodType<Omit<DriverStates['router'], 'gw_port_id' | 'l3_agents'>> = z.object({
  id: z.string(),
  name: z.string(),
  project_id: z.string(),
  admin_state_up: z.boolean(),
  external_gateway_info: z
    .object({ network_id: z.string(), enable_snat: z.boolean(), external_fixed_ips: fixedIps })
    .nullable(),
  routes: hostRoutes,
  availability_zone_hints: z.array(z.string()),
  revision_number: z.number(),
});

const floatingIpSchema: z.ZodType<DriverStates['floatingip']> = z.object({
  id: z.string(),
  project_id: z.string(),
  floating_ip_address: z.string(),
  floating_network_id: z.string(),
  router_id: nullableString,
  port_id: nullableString,
  fixed_ip_address: nullableString,
  status: z.string(),
  revision_number: z.number(),
});

/** A network segment as stored (physnet '' for none; a flat network's id is meaningless). */
export interface StoredSegment {
  readonly id: string;
  readonly network_type: string;
  readonly physical_network: string;
  readonly segmentation_id: number;
}

export function networkState(view: View, segments: readonly StoredSegment[]): DriverStates['network'] {
  return {
    ...networkSchema.parse(view),
    segments: segments.map((s): SegmentState => ({
      id: s.id,
      network_type: s.network_type,
      physical_network: s.physical_network || null,
      segmentation_id: s.network_type === 'flat' ? null : s.segmentation_id,
    })),
  };
}

export const subnetState = (view: View): DriverStates['subnet'] => subnetSchema.parse(view);

export const portState = (view: View): DriverStates['port'] => portSchema.parse(view);

export function ruleState(view: unknown): DriverStates['security_group_rule'] {
  const rule = ruleSchema.parse(view);
  return { ...rule, protocol_number: rule.protocol ? protocolNumber(rule.protocol) : null };
}

/** Rules in creation order: where two rules make the same ACL, the older one names it. */
export function securityGroupState(view: View): DriverStates['security_group'] {
  const { security_group_rules: rules, ...group } = groupSchema.parse(view);
  const ordered = rules.slice().sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  return { ...group, rules: ordered.map(ruleState) };
}

/** The router's view plus what only drivers see: the gateway port and the pinned gateway agents. */
export function routerState(
  view: View,
  extra: { readonly gw_port_id: string | null; readonly l3_agents: readonly string[] },
): DriverStates['router'] {
  return { ...routerSchema.parse(view), gw_port_id: extra.gw_port_id, l3_agents: extra.l3_agents };
}

export const floatingIpState = (view: View): DriverStates['floatingip'] => floatingIpSchema.parse(view);
