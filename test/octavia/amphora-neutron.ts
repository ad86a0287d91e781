/**
 * What the Neutron side of an amphora load balancer must look like for Octavia's
 * allowed-address-pairs network driver (octavia/network/drivers/neutron/allowed_address_pairs.py,
 * Zed) and Nova, read from octonet's API: the VIP port Octavia allocated, each amphora's VRRP port
 * (Octavia made it, Nova attached and bound it) carrying the VIP in `allowed_address_pairs`, each
 * amphora's lb-mgmt-net port (Nova made it at boot), and the `lb-<id>` security group with the rules
 * the driver keeps in step with the listeners. Also what must be gone after a delete.
 */
import assert from 'node:assert/strict';
import type { Json } from '../fixtures/json.js';
import type { TokenClient } from '../fixtures/keystone.js';
import { eventually, type OvnCentral } from '../fixtures/ovn-central.js';

/** An amphora as Octavia's admin API shows it (`GET /v2/octavia/amphorae`). */
export interface Amphora {
  readonly id: string;
  readonly compute_id: string;
  readonly status: string;
  readonly role: string | null;
  readonly lb_network_ip: string;
  readonly vrrp_ip: string;
  readonly ha_ip: string;
  readonly vrrp_port_id: string;
  readonly ha_port_id: string;
}

export interface Expected {
  readonly lb: Json;
  readonly amphorae: readonly Amphora[];
  /** lb-mgmt-net and the amphorae's management security group (`amp_secgroup_list`). */
  readonly mgmt: { readonly networkId: string; readonly secGroupId: string };
  /** The hosts Nova may choose (the chassis' hostnames). */
  readonly hosts: readonly string[];
  /** The listeners' TCP ports. */
  readonly listenerPorts: readonly number[];
  readonly activeStandby: boolean;
}

export interface Seen {
  readonly vipPort: Json;
  readonly secGroup: Json;
  readonly vrrpPorts: readonly Json[];
  readonly mgmtPorts: readonly Json[];
}

async function get(neutron: TokenClient, path: string, key: string): Promise<Json> {
  const response = await neutron.get(`/v2.0/${path}`);
  assert.equal(response.status, 200, `GET ${path}: ${response.text}`);
  return response.body[key];
}

/** Checks every Neutron resource Octavia and Nova made for `lb`; returns them. */
export async function checkNeutronSide(neutron: TokenClient, expected: Expected): Promise<Seen> {
  const { lb, amphorae, mgmt } = expected;
  const vipPort = await get(neutron, `ports/${lb.vip_port_id}`, 'port');
  assert.equal(vipPort.name, `octavia-lb-${lb.id}`);
  assert.equal(vipPort.device_owner, 'Octavia');
  assert.equal(vipPort.device_id, `lb-${lb.id}`);
  assert.equal(vipPort.admin_state_up, false, 'Octavia keeps the VIP port down: the amphorae answer for it');
  assert.deepEqual(
    vipPort.fixed_ips.map((ip: Json) => ip.ip_address),
    [lb.vip_address],
  );
  const groups = await get(neutron, `security-groups?name=lb-${lb.id}`, 'security_groups');
  assert.equal(groups.length, 1, `one security group lb-${lb.id}`);
  const secGroup = groups[0];
  assert.deepEqual(vipPort.security_groups, [secGroup.id], 'the VIP port carries lb-<id>');
  checkRules(secGroup, expected);

  const allocated = amphorae.filter((a) => a.status === 'ALLOCATED');
  assert.equal(allocated.length, expected.activeStandby ? 2 : 1, JSON.stringify(amphorae));
  if (expected.activeStandby) assert.deepEqual(allocated.map((a) => a.role).sort(), ['BACKUP', 'MASTER']);
  else assert.equal(allocated[0]!.role, 'STANDALONE');
  const vrrpPorts: Json[] = [];
  const mgmtPorts: Json[] = [];
  for (const amphora of allocated) {
    assert.equal(amphora.ha_port_id, lb.vip_port_id);
    assert.equal(amphora.ha_ip, lb.vip_address);
    const vrrp = await get(neutron, `ports/${amphora.vrrp_port_id}`, 'port');
    assert.equal(vrrp.name, `octavia-lb-vrrp-${amphora.id}`);
    assert.equal(vrrp.network_id, vipPort.network_id);
    assert.equal(vrrp.device_id, amphora.compute_id, 'Nova attached the VRRP port to the amphora');
    assert.match(vrrp.device_owner, /^compute:/);
    assert.ok(expected.hosts.includes(vrrp['binding:host_id']), `bound to a node: ${vrrp['binding:host_id']}`);
    assert.equal(vrrp['binding:vif_type'], 'ovs');
    assert.deepEqual(
      vrrp.allowed_address_pairs,
      [{ ip_address: lb.vip_address, mac_address: vrrp.mac_address }],
      'the VIP is an allowed address of the VRRP port',
    );
    assert.ok(vrrp.security_groups.includes(secGroup.id), 'the VRRP port carries lb-<id>');
    assert.deepEqual(
      vrrp.fixed_ips.map((ip: Json) => ip.ip_address),
      [amphora.vrrp_ip],
    );
    vrrpPorts.push(vrrp);
    const onMgmt = await get(neutron, `ports?device_id=${amphora.compute_id}&network_id=${mgmt.networkId}`, 'ports');
    assert.equal(onMgmt.length, 1, 'one lb-mgmt-net port per amphora');
    assert.deepEqual(
      onMgmt[0].fixed_ips.map((ip: Json) => ip.ip_address),
      [amphora.lb_network_ip],
    );
    assert.deepEqual(onMgmt[0].security_groups, [mgmt.secGroupId]);
    assert.equal(onMgmt[0]['binding:host_id'], vrrp['binding:host_id'], 'both ports of an amphora on its node');
    mgmtPorts.push(onMgmt[0]);
  }
  return { vipPort, secGroup, vrrpPorts, mgmtPorts };
}

/** The rules `_update_security_group_rules` keeps: one ingress rule per listener port, VRRP and AH for ACTIVE_STANDBY. */
function checkRules(secGroup: Json, expected: Expected): void {
  const ingress = (secGroup.security_group_rules as Json[]).filter((r) => r.direction === 'ingress');
  const tcpPorts = ingress
    .filter((r) => r.protocol === 'tcp')
    .map((r) => {
      assert.equal(r.port_range_min, r.port_range_max);
      return r.port_range_min as number;
    });
  // ACTIVE_STANDBY TCP listeners also open haproxy's peer port (listener port + 1024 ... per listener).
  for (const port of expected.listenerPorts) assert.ok(tcpPorts.includes(port), `a rule for ${port}: ${tcpPorts}`);
  const others = ingress.filter((r) => r.protocol !== 'tcp').map((r) => String(r.protocol));
  assert.deepEqual(others.sort(), expected.activeStandby ? ['112', '51'] : []);
}

/** After a delete: no port, security group or floating IP association of `lb` or its amphorae left. */
export async function checkNothingLeft(neutron: TokenClient, seen: readonly Seen[], fipId?: string): Promise<void> {
  for (const s of seen) {
    for (const port of [s.vipPort, ...s.vrrpPorts, ...s.mgmtPorts]) {
      const response = await neutron.get(`/v2.0/ports/${port.id}`);
      assert.equal(response.status, 404, `port ${port.name} (${port.id}) was left`);
    }
    const groups = await get(neutron, `security-groups?name=${s.secGroup.name}`, 'security_groups');
    assert.deepEqual(groups, [], `security group ${s.secGroup.name} was left`);
  }
  const octaviaPorts = await get(neutron, 'ports?device_owner=Octavia', 'ports');
  assert.deepEqual(octaviaPorts, [], 'no port owned by Octavia');
  if (fipId !== undefined) {
    const fip = await get(neutron, `floatingips/${fipId}`, 'floatingip');
    assert.equal(fip.port_id, null, 'the floating IP is disassociated');
    assert.equal(fip.fixed_ip_address, null);
  }
}

/**
 * octonet's side in OVN, as ML2/OVN writes it: the VIP's logical switch port is a `virtual` port
 * whose parents are exactly the amphorae's VRRP ports (the ports listing the VIP as an allowed
 * address pair), so OVN binds the VIP wherever keepalived's holder answers for it; after a failover
 * the parents are the new amphorae's ports.
 */
export async function checkVirtualVip(ovn: OvnCentral, lb: Json, seen: Seen): Promise<void> {
  await eventually(() => {
    const row = ovn.nbRows('Logical_Switch_Port').find((r) => r.name === lb.vip_port_id);
    assert.ok(row, 'the VIP port has its logical switch port');
    assert.equal(row.type, 'virtual');
    assert.equal(row.options['virtual-ip'], lb.vip_address);
    assert.deepEqual(
      String(row.options['virtual-parents']).split(',').sort(),
      seen.vrrpPorts.map((p) => p.id as string).sort(),
    );
  });
}
