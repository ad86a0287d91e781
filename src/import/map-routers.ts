/**
 * Neutron's routers (gateway, extra routes, availability zone hints) and floating IPs → octonet's
 * rows. Router interfaces and gateway ports are ports (device_owner `network:router_*`), carried
 * by map-ports.ts.
 */
import type { ImportPlan } from './plan.js';
import type { NeutronSnapshot } from './snapshot.js';
import type { SourceRow } from './source.js';
import { flag, indexBy, jsonColumn, text, textOrNull } from './values.js';

export function mapRouters(snapshot: NeutronSnapshot, plan: ImportPlan): void {
  const extra = indexBy(snapshot.rows('router_extra_attributes'), 'router_id');
  for (const row of snapshot.rows('routers')) {
    const id = text(row, 'id');
    const extraRow = extra.get(id);
    plan.routers.push({
      id,
      project_id: text(row, 'project_id'),
      name: text(row, 'name'),
      admin_state_up: flag(row, 'admin_state_up', true),
      status: text(row, 'status') || 'ACTIVE',
      enable_snat: flag(row, 'enable_snat', true),
      gw_port_id: textOrNull(row, 'gw_port_id'),
      availability_zone_hints: extraRow ? jsonColumn<string[]>(extraRow, 'availability_zone_hints', []) : [],
      ...snapshot.standard(row),
    });
  }
  for (const row of snapshot.rows('routerroutes')) {
    plan.router_routes.push({
      router_id: text(row, 'router_id'),
      destination: text(row, 'destination'),
      nexthop: text(row, 'nexthop'),
    });
  }
}

export function mapFloatingIps(snapshot: NeutronSnapshot, plan: ImportPlan): void {
  const dns = indexBy(snapshot.rows('floatingipdnses'), 'floatingip_id');
  for (const row of snapshot.rows('floatingips')) {
    const id = text(row, 'id');
    const dnsRow: SourceRow | undefined = dns.get(id);
    plan.floatingips.push({
      id,
      project_id: text(row, 'project_id'),
      floating_network_id: text(row, 'floating_network_id'),
      floating_port_id: text(row, 'floating_port_id'),
      floating_ip_address: text(row, 'floating_ip_address'),
      fixed_port_id: textOrNull(row, 'fixed_port_id'),
      fixed_ip_address: textOrNull(row, 'fixed_ip_address'),
      router_id: textOrNull(row, 'router_id'),
      status: text(row, 'status') || 'DOWN',
      dns_name: dnsRow ? text(dnsRow, 'dns_name') : '',
      dns_domain: dnsRow ? text(dnsRow, 'dns_domain') : '',
      ...snapshot.standard(row),
    });
  }
}
