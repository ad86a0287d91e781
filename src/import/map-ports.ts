/**
 * Neutron's ports with their IP allocations, bindings, address pairs, DHCP options, security
 * groups and DNS names → octonet's rows. A port whose binding is not OVN's (refused unless skipped)
 * is carried unbound.
 */
import type { ImportPlan } from './plan.js';
import type { NeutronSnapshot } from './snapshot.js';
import type { SourceRow } from './source.js';
import { flag, groupBy, indexBy, int, jsonColumn, text } from './values.js';

const UNBOUND = { host: '', vnic_type: 'normal', profile: {}, vif_type: 'unbound', vif_details: {} };

function binding(row: SourceRow | undefined) {
  if (!row) return UNBOUND;
  return {
    host: text(row, 'host'),
    vnic_type: text(row, 'vnic_type') || 'normal',
    profile: jsonColumn<Record<string, unknown>>(row, 'profile', {}),
    vif_type: text(row, 'vif_type') || 'unbound',
    vif_details: jsonColumn<Record<string, unknown>>(row, 'vif_details', {}),
  };
}

export function mapPorts(snapshot: NeutronSnapshot, plan: ImportPlan, unbind: ReadonlySet<string>): void {
  const security = indexBy(snapshot.rows('portsecuritybindings'), 'port_id');
  const dns = indexBy(snapshot.rows('portdnses'), 'port_id');
  const bindings = groupBy(snapshot.rows('ml2_port_bindings'), 'port_id');
  for (const row of snapshot.rows('ports')) {
    const id = text(row, 'id');
    const all = unbind.has(id) ? [] : (bindings.get(id) ?? []);
    const active = binding(all.find((b) => text(b, 'status') === 'ACTIVE'));
    const securityRow = security.get(id);
    const dnsRow = dns.get(id);
    plan.ports.push({
      id,
      project_id: text(row, 'project_id'),
      network_id: text(row, 'network_id'),
      name: text(row, 'name'),
      mac_address: text(row, 'mac_address'),
      admin_state_up: flag(row, 'admin_state_up', true),
      status: text(row, 'status'),
      device_id: text(row, 'device_id'),
      device_owner: text(row, 'device_owner'),
      port_security_enabled: securityRow ? flag(securityRow, 'port_security_enabled') : true,
      dns_name: dnsRow ? text(dnsRow, 'dns_name') : '',
      dns_domain: dnsRow ? text(dnsRow, 'dns_domain') : '',
      ip_allocation: text(row, 'ip_allocation') || 'immediate',
      binding_host_id: active.host,
      binding_vnic_type: active.vnic_type,
      binding_profile: active.profile,
      binding_vif_type: active.vif_type,
      binding_vif_details: active.vif_details,
      ...snapshot.standard(row),
    });
    for (const inactive of all.filter((b) => text(b, 'status') !== 'ACTIVE')) {
      const b = binding(inactive);
      plan.port_bindings.push({
        port_id: id,
        host: b.host,
        vnic_type: b.vnic_type,
        profile: JSON.stringify(b.profile),
        vif_type: b.vif_type,
        vif_details: JSON.stringify(b.vif_details),
      });
    }
  }
  for (const row of snapshot.rows('ipallocations')) {
    // An allocation without a port is IPAM's bookkeeping of a port being deleted: nothing to carry.
    if (row.port_id === null || row.port_id === undefined) continue;
    plan.ip_allocations.push({
      port_id: text(row, 'port_id'),
      network_id: text(row, 'network_id'),
      subnet_id: text(row, 'subnet_id'),
      ip_address: text(row, 'ip_address'),
    });
  }
  for (const row of snapshot.rows('allowedaddresspairs')) {
    plan.allowed_address_pairs.push({
      port_id: text(row, 'port_id'),
      mac_address: text(row, 'mac_address'),
      ip_address: text(row, 'ip_address'),
    });
  }
  for (const row of snapshot.rows('extradhcpopts')) {
    plan.extra_dhcp_opts.push({
      port_id: text(row, 'port_id'),
      opt_name: text(row, 'opt_name'),
      opt_value: text(row, 'opt_value'),
      ip_version: int(row, 'ip_version'),
    });
  }
  for (const row of snapshot.rows('securitygroupportbindings')) {
    plan.port_security_groups.push({
      port_id: text(row, 'port_id'),
      security_group_id: text(row, 'security_group_id'),
    });
  }
}
