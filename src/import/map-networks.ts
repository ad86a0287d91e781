/** Neutron's networks, their segments, external flag and RBAC, and subnets → octonet's rows. */
import type { ImportPlan } from './plan.js';
import type { NeutronSnapshot } from './snapshot.js';
import type { SourceRow } from './source.js';
import { flag, groupBy, indexBy, int, jsonColumn, text, textOrNull } from './values.js';

export function mapNetworks(snapshot: NeutronSnapshot, plan: ImportPlan): void {
  const security = indexBy(snapshot.rows('networksecuritybindings'), 'network_id');
  const dnsDomains = indexBy(snapshot.rows('networkdnsdomains'), 'network_id');
  for (const row of snapshot.rows('networks')) {
    const id = text(row, 'id');
    const securityRow = security.get(id);
    plan.networks.push({
      id,
      project_id: text(row, 'project_id'),
      name: text(row, 'name'),
      admin_state_up: flag(row, 'admin_state_up', true),
      status: text(row, 'status'),
      mtu: int(row, 'mtu'),
      // Without the binding row (port_security not loaded when it was made), Neutron reports true.
      port_security_enabled: securityRow ? flag(securityRow, 'port_security_enabled') : true,
      dns_domain: dnsDomains.has(id) ? text(dnsDomains.get(id) as SourceRow, 'dns_domain') : '',
      availability_zone_hints: jsonColumn<string[]>(row, 'availability_zone_hints', []),
      ...snapshot.standard(row),
    });
  }
  for (const row of snapshot.rows('externalnetworks')) {
    plan.external_networks.push({ network_id: text(row, 'network_id'), is_default: flag(row, 'is_default') });
  }
  for (const row of snapshot.rows('networkrbacs')) {
    plan.network_rbacs.push({
      id: text(row, 'id'),
      project_id: text(row, 'project_id'),
      object_id: text(row, 'object_id'),
      target_project: text(row, 'target_project'),
      action: text(row, 'action'),
    });
  }
  for (const row of snapshot.rows('networksegments')) {
    // A dynamic segment is a hierarchical binding's, made by a mechanism driver (refused or left out).
    if (flag(row, 'is_dynamic')) continue;
    plan.network_segments.push({
      id: text(row, 'id'),
      network_id: text(row, 'network_id'),
      network_type: text(row, 'network_type'),
      physical_network: text(row, 'physical_network'),
      segmentation_id: int(row, 'segmentation_id'),
      segment_index: int(row, 'segment_index'),
    });
  }
}

export function mapSubnets(snapshot: NeutronSnapshot, plan: ImportPlan): void {
  const pools = groupBy(snapshot.rows('ipallocationpools'), 'subnet_id');
  const nameservers = groupBy(snapshot.rows('dnsnameservers'), 'subnet_id');
  const routes = groupBy(snapshot.rows('subnetroutes'), 'subnet_id');
  const serviceTypes = groupBy(snapshot.rows('subnet_service_types'), 'subnet_id');
  const publish = indexBy(snapshot.rows('subnet_dns_publish_fixed_ips'), 'subnet_id');
  // A network's subnets in creation order: the standard attribute ids grow with each insert.
  const ordered = [...snapshot.rows('subnets')].sort((a, b) => Number(a.standard_attr_id) - Number(b.standard_attr_id));
  const positions = new Map<string, number>();
  for (const row of ordered) {
    const id = text(row, 'id');
    const networkId = text(row, 'network_id');
    const position = positions.get(networkId) ?? 0;
    positions.set(networkId, position + 1);
    const publishRow = publish.get(id);
    plan.subnets.push({
      id,
      subnetpool_id: textOrNull(row, 'subnetpool_id'),
      project_id: text(row, 'project_id'),
      network_id: networkId,
      name: text(row, 'name'),
      ip_version: int(row, 'ip_version'),
      cidr: text(row, 'cidr'),
      gateway_ip: textOrNull(row, 'gateway_ip'),
      enable_dhcp: flag(row, 'enable_dhcp', true),
      ipv6_ra_mode: textOrNull(row, 'ipv6_ra_mode'),
      ipv6_address_mode: textOrNull(row, 'ipv6_address_mode'),
      allocation_pools: (pools.get(id) ?? []).map((p) => ({ start: text(p, 'first_ip'), end: text(p, 'last_ip') })),
      dns_nameservers: [...(nameservers.get(id) ?? [])]
        .sort((a, b) => int(a, 'order') - int(b, 'order'))
        .map((n) => text(n, 'address')),
      host_routes: (routes.get(id) ?? []).map((r) => ({
        destination: text(r, 'destination'),
        nexthop: text(r, 'nexthop'),
      })),
      service_types: (serviceTypes.get(id) ?? []).map((s) => text(s, 'service_type')),
      dns_publish_fixed_ip: publishRow ? flag(publishRow, 'dns_publish_fixed_ip') : false,
      position,
      ...snapshot.standard(row),
    });
  }
}
