/**
 * The mapping from Neutron resources to NB rows, field by field against the tables of
 * `../shared/reference/ovn-mapping.md` (ML2/OVN master; the Zed form where OVN 23.03 needs it).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NetworkState, PortState, SecurityGroupRuleState, SecurityGroupState, SubnetState } from '../host.js';
import {
  dropPortGroup,
  localnetPorts,
  logicalSwitch,
  portGroupName,
  securityGroupPortGroup,
  subnetDhcpOptions,
  subnetHasDhcpOptions,
  switchPortRows,
  LEARNED_VIP_EXT_ID,
  PORT_FIP_EXT_ID,
  portFloatingIp,
  resolveVipFailover,
  type DhcpOptionsSpec,
  type MappingOptions,
  type PortContext,
} from './mapping.js';

const OPTIONS: MappingOptions = {
  igmpSnoopingEnable: false,
  igmpFloodUnregistered: false,
  igmpFloodReports: true,
  igmpFlood: false,
  localnetLearnFdb: false,
  fdbAgeThreshold: 300,
  broadcastArpsToAllRouters: true,
  dhcpLeaseTime: 43200,
  fallbackDnsServers: ['192.0.2.53', '2001:db8::53'],
  dnsDomain: 'openstacklocal',
};

const NET = 'b0ec0dc7-1e7d-447b-9b7b-b3ead47e1483';
const SUBNET4 = '58a73a5d-e0de-4368-b6dd-7f88c1b1741c';
const SUBNET6 = '756da241-f24b-42ee-b326-bd654cb2186a';
const PORT = '009ca494-0236-4ba0-82f8-e6c82cac3783';
const SG = '7c8c29ff-f2a5-455d-bee4-e928c35836d6';

function network(overrides: Partial<NetworkState> = {}): NetworkState {
  return {
    id: NET,
    name: 'n1',
    project_id: 'p1',
    mtu: 1442,
    admin_state_up: true,
    shared: false,
    'router:external': false,
    port_security_enabled: true,
    availability_zone_hints: [],
    'provider:network_type': 'geneve',
    'provider:physical_network': null,
    'provider:segmentation_id': 1234,
    qos_policy_id: null,
    segments: [{ id: 'seg-1', network_type: 'geneve', physical_network: null, segmentation_id: 1234 }],
    revision_number: 3,
    ...overrides,
  };
}

function subnet(overrides: Partial<SubnetState> = {}): SubnetState {
  return {
    id: SUBNET4,
    name: 's1',
    network_id: NET,
    project_id: 'p1',
    ip_version: 4,
    cidr: '10.9.0.0/24',
    gateway_ip: '10.9.0.1',
    enable_dhcp: true,
    dns_nameservers: [],
    host_routes: [],
    ipv6_ra_mode: null,
    ipv6_address_mode: null,
    subnetpool_id: null,
    revision_number: 2,
    ...overrides,
  };
}

function port(overrides: Partial<PortState> = {}): PortState {
  return {
    id: PORT,
    name: 'p1',
    network_id: NET,
    project_id: 'p1',
    mac_address: 'fa:16:3e:e8:9a:62',
    fixed_ips: [{ subnet_id: SUBNET4, ip_address: '10.9.0.30' }],
    admin_state_up: true,
    status: 'DOWN',
    device_id: 'vm-1',
    device_owner: 'compute:nova',
    port_security_enabled: true,
    security_groups: [SG],
    allowed_address_pairs: [],
    extra_dhcp_opts: [],
    'binding:host_id': '',
    'binding:vnic_type': 'normal',
    'binding:profile': {},
    'binding:vif_type': 'unbound',
    qos_policy_id: null,
    qos_network_policy_id: null,
    revision_number: 5,
    ...overrides,
  };
}

const SUBNET_ROW: DhcpOptionsSpec = {
  cidr: '10.9.0.0/24',
  options: {
    server_id: '10.9.0.1',
    lease_time: '43200',
    mtu: '1442',
    router: '10.9.0.1',
    server_mac: 'fa:16:3e:00:00:01',
    dns_server: '{192.0.2.53}',
    classless_static_route: '{169.254.169.254/32,10.9.0.2, 0.0.0.0/0,10.9.0.1}',
  },
  external_ids: { subnet_id: SUBNET4, 'neutron:network_id': NET, 'neutron:revision_number': '2' },
};

function context(rows: Record<string, DhcpOptionsSpec> = { [SUBNET4]: SUBNET_ROW }, subnets = [subnet()]): PortContext {
  return {
    network: { id: NET, mtu: 1442 },
    subnets: new Map(subnets.map((s) => [s.id, s])),
    subnetDhcp: (id) => rows[id],
  };
}

describe('OVN mapping: networks → Logical_Switch', () => {
  it('a geneve tenant network: name, external_ids and other_config as ML2/OVN writes them', () => {
    assert.deepEqual(logicalSwitch(network({ availability_zone_hints: ['az1', 'az2'] }), OPTIONS), {
      name: `neutron-${NET}`,
      external_ids: {
        'neutron:network_name': 'n1',
        'neutron:mtu': '1442',
        'neutron:revision_number': '3',
        'neutron:availability_zone_hints': 'az1,az2',
        'neutron:provnet-network-type': 'geneve',
      },
      other_config: { mcast_snoop: 'false', mcast_flood_unregistered: 'false', 'vlan-passthru': 'false' },
    });
    assert.deepEqual(localnetPorts(network(), OPTIONS), [], 'tunnelled networks have no localnet port');
  });

  it('a VLAN provider network adds the physnet key, fdb_age_threshold and a localnet port with its tag', () => {
    const vlan = network({
      'provider:network_type': 'vlan',
      'provider:physical_network': 'physnet1',
      'provider:segmentation_id': 150,
      segments: [{ id: 'seg-vlan', network_type: 'vlan', physical_network: 'physnet1', segmentation_id: 150 }],
    });
    const ls = logicalSwitch(vlan, OPTIONS);
    assert.equal(ls.external_ids['neutron:provnet-physical-network'], 'physnet1');
    assert.equal(ls.external_ids['neutron:provnet-network-type'], 'vlan');
    assert.equal(ls.other_config.fdb_age_threshold, '300');
    assert.deepEqual(localnetPorts(vlan, OPTIONS), [
      {
        name: 'provnet-seg-vlan',
        type: 'localnet',
        addresses: ['unknown'],
        port_security: [],
        enabled: null,
        tag_request: null,
        parent_name: null,
        tag: 150,
        options: {
          network_name: 'physnet1',
          mcast_flood_reports: 'true',
          mcast_flood: 'false',
        },
        external_ids: {},
        dhcpv4_options: null,
        dhcpv6_options: null,
      },
    ]);
  });

  it('a flat external network: no tag, broadcast-arps-to-all-routers', () => {
    const flat = network({
      'router:external': true,
      'provider:network_type': 'flat',
      'provider:physical_network': 'physnet1',
      'provider:segmentation_id': null,
      segments: [{ id: 'seg-flat', network_type: 'flat', physical_network: 'physnet1', segmentation_id: null }],
    });
    assert.equal(logicalSwitch(flat, OPTIONS).other_config['broadcast-arps-to-all-routers'], 'true');
    assert.equal(localnetPorts(flat, OPTIONS)[0]!.tag, null);
    assert.equal(localnetPorts(flat, OPTIONS)[0]!.tag_request, null);
  });
});

describe('OVN mapping: subnets → DHCP_Options', () => {
  it('IPv4 with gateway, DNS servers, host routes and a metadata port', () => {
    const row = subnetDhcpOptions(
      subnet({
        dns_nameservers: ['10.9.0.53', '10.9.0.54'],
        host_routes: [{ destination: '10.10.0.0/16', nexthop: '10.9.0.254' }],
      }),
      network(),
      '10.9.0.2',
      'fa:16:3e:11:22:33',
      OPTIONS,
    );
    assert.deepEqual(row, {
      cidr: '10.9.0.0/24',
      options: {
        server_id: '10.9.0.1',
        lease_time: '43200',
        mtu: '1442',
        router: '10.9.0.1',
        server_mac: 'fa:16:3e:11:22:33',
        dns_server: '{10.9.0.53, 10.9.0.54}',
        classless_static_route: '{169.254.169.254/32,10.9.0.2, 10.10.0.0/16,10.9.0.254, 0.0.0.0/0,10.9.0.1}',
      },
      external_ids: { subnet_id: SUBNET4, 'neutron:network_id': NET, 'neutron:revision_number': '2' },
    });
  });

  it('IPv4 without a gateway serves DHCP from the metadata port, with no router and no default route', () => {
    const { options } = subnetDhcpOptions(
      subnet({ gateway_ip: null }),
      network(),
      '10.9.0.2',
      'fa:16:3e:11:22:33',
      OPTIONS,
    );
    assert.equal(options.server_id, '10.9.0.2');
    assert.equal(options.router, undefined);
    assert.equal(options.classless_static_route, '{169.254.169.254/32,10.9.0.2}');
    assert.equal(options.dns_server, '{192.0.2.53}', 'the fallback resolvers of the subnet IP version');
  });

  it('IPv4 without gateway or metadata port has empty options; 0.0.0.0 among DNS servers announces none', () => {
    assert.deepEqual(
      subnetDhcpOptions(subnet({ gateway_ip: null }), network(), undefined, 'fa:16:3e:11:22:33', OPTIONS).options,
      {},
    );
    const { options } = subnetDhcpOptions(
      subnet({ dns_nameservers: ['0.0.0.0'] }),
      network(),
      undefined,
      'fa:16:3e:11:22:33',
      OPTIONS,
    );
    assert.equal(options.dns_server, undefined);
    assert.equal(options.classless_static_route, undefined, 'no metadata and no host routes: no option 121');
  });

  it('IPv6: stateful and stateless rows; SLAAC and DHCP-disabled subnets get none', () => {
    const v6 = subnet({
      id: SUBNET6,
      ip_version: 6,
      cidr: 'fd00:9::/64',
      gateway_ip: 'fd00:9::1',
      ipv6_address_mode: 'dhcpv6-stateful',
    });
    assert.deepEqual(subnetDhcpOptions(v6, network(), undefined, 'fa:16:3e:44:55:66', OPTIONS).options, {
      server_id: 'fa:16:3e:44:55:66',
      dns_server: '{2001:db8::53}',
    });
    const stateless = subnetDhcpOptions(
      { ...v6, ipv6_address_mode: 'dhcpv6-stateless' },
      network(),
      undefined,
      'fa:16:3e:44:55:66',
      OPTIONS,
    );
    assert.equal(stateless.options.dhcpv6_stateless, 'true');
    assert.equal(subnetHasDhcpOptions({ ...v6, ipv6_address_mode: 'slaac', ipv6_ra_mode: 'slaac' }), false);
    assert.equal(subnetHasDhcpOptions(subnet({ enable_dhcp: false })), false);
  });
});

describe('OVN mapping: a VIP (its address is another port’s allowed address pair)', () => {
  const AMPHORA = '6c5d3f3e-6a34-4c4c-9f62-0a1b2c3d4e5f';
  const vipContext = (vipFailover?: 'virtual-port' | 'learned-mac'): PortContext => ({
    ...context(),
    addressPairHolders: new Map([['10.9.0.30', [AMPHORA]]]),
    vipFailover,
  });
  const vip = port({ device_owner: 'Octavia', 'binding:host_id': 'node2' });

  it('virtual-port (the default): an OVN virtual port with its parents, bound nowhere by request', () => {
    const rows = switchPortRows(vip, vipContext());
    assert.equal(rows.port.type, 'virtual');
    assert.deepEqual(rows.port.options, {
      'virtual-ip': '10.9.0.30',
      'virtual-parents': AMPHORA,
      mcast_flood_reports: 'true',
    });
    assert.deepEqual(rows.port.addresses, ['fa:16:3e:e8:9a:62 10.9.0.30']);
  });

  it('learned-mac: no addresses, no port security, no groups, marked with its address', () => {
    const rows = switchPortRows(vip, vipContext('learned-mac'));
    assert.equal(rows.port.type, '');
    assert.deepEqual(rows.port.addresses, []);
    assert.deepEqual(rows.port.port_security, []);
    assert.deepEqual(rows.port.options, {});
    assert.deepEqual(rows.portGroups, []);
    assert.equal(rows.port.dhcpv4_options, null);
    assert.equal(rows.port.external_ids[LEARNED_VIP_EXT_ID], '10.9.0.30');
    assert.equal(rows.port.external_ids['neutron:port_name'], 'p1', 'still a Neutron port (status, repair)');
  });

  it('learned-mac leaves ports nobody lists as a pair alone', () => {
    const plain = switchPortRows(port(), { ...context(), vipFailover: 'learned-mac' });
    assert.deepEqual(plain, switchPortRows(port(), context()));
  });

  it('auto (the default) is learned-mac, but virtual-port with distributed floating IPs; a set mode stays', () => {
    assert.equal(resolveVipFailover('auto', false), 'learned-mac');
    assert.equal(resolveVipFailover('auto', true), 'virtual-port', 'a distributed NAT needs the VIP bound');
    assert.equal(resolveVipFailover('virtual-port', false), 'virtual-port');
    assert.equal(resolveVipFailover('learned-mac', true), 'learned-mac');
  });
});

describe('OVN mapping: ports → Logical_Switch_Port', () => {
  it('a VM port with port security: addresses, port_security, external_ids, DHCP and its groups', () => {
    const rows = switchPortRows(port(), context());
    assert.deepEqual(rows.port, {
      name: PORT,
      type: '',
      addresses: ['fa:16:3e:e8:9a:62 10.9.0.30'],
      port_security: ['fa:16:3e:e8:9a:62 10.9.0.30'],
      enabled: true,
      tag_request: null,
      parent_name: null,
      tag: null,
      options: { mcast_flood_reports: 'true' },
      external_ids: {
        'neutron:port_name': 'p1',
        'neutron:device_id': 'vm-1',
        'neutron:project_id': 'p1',
        'neutron:cidrs': '10.9.0.30/24',
        'neutron:device_owner': 'compute:nova',
        'neutron:subnet_pool_addr_scope4': '',
        'neutron:subnet_pool_addr_scope6': '',
        'neutron:network_name': `neutron-${NET}`,
        'neutron:security_group_ids': SG,
        'neutron:revision_number': '5',
        'neutron:vnic_type': 'normal',
        'neutron:port_capabilities': '',
        'neutron:mtu': '',
      },
      dhcpv4_options: { kind: 'subnet', subnetId: SUBNET4 },
      dhcpv6_options: null,
    });
    assert.deepEqual(rows.portGroups, ['neutron_pg_drop', portGroupName(SG)]);
    assert.deepEqual(rows.dhcpOptions, []);
  });

  it('a floating IP on the port → neutron:port_fip; with two, the lowest address', () => {
    assert.equal(switchPortRows(port(), context()).port.external_ids[PORT_FIP_EXT_ID], undefined);
    const floatingIp = portFloatingIp([
      { floating_ip_address: '198.51.100.20' },
      { floating_ip_address: '198.51.100.11' },
    ]);
    assert.equal(floatingIp, '198.51.100.11');
    const rows = switchPortRows(port(), { ...context(), floatingIp });
    assert.equal(rows.port.external_ids[PORT_FIP_EXT_ID], '198.51.100.11');
    assert.equal(portFloatingIp([]), undefined);
  });

  it("an OVN load balancer's unbound VIP port (ovn-lb-vip-*, no owner) has no addresses", () => {
    const vip = port({ name: 'ovn-lb-vip-0b4a', device_owner: '' });
    assert.deepEqual(switchPortRows(vip, context()).port.addresses, []);
    assert.deepEqual(switchPortRows(vip, context()).port.port_security, ['fa:16:3e:e8:9a:62 10.9.0.30']);
    const bound = switchPortRows({ ...vip, 'binding:vif_type': 'ovs' }, context());
    assert.deepEqual(bound.port.addresses, ['fa:16:3e:e8:9a:62 10.9.0.30']);
    const owned = switchPortRows({ ...vip, device_owner: 'compute:nova' }, context());
    assert.deepEqual(owned.port.addresses, ['fa:16:3e:e8:9a:62 10.9.0.30']);
  });

  it('binding host → requested-chassis; admin down → enabled false; ACTIVE → neutron:host_id', () => {
    const rows = switchPortRows(
      port({ 'binding:host_id': 'node1', admin_state_up: false, status: 'ACTIVE' }),
      context(),
    );
    assert.deepEqual(rows.port.options, { 'requested-chassis': 'node1', mcast_flood_reports: 'true' });
    assert.equal(rows.port.enabled, false);
    assert.equal(rows.port.external_ids['neutron:host_id'], 'node1');
  });

  it('live migration (profile migrating_to) → both chassis requested, activation-strategy rarp', () => {
    const migrating = (profile: Record<string, unknown>) =>
      switchPortRows(port({ 'binding:host_id': 'node1', 'binding:profile': profile }), context()).port.options;
    assert.deepEqual(migrating({ migrating_to: 'node2' }), {
      'requested-chassis': 'node1,node2',
      'activation-strategy': 'rarp',
      mcast_flood_reports: 'true',
    });
    // Once activated the host is the target: one chassis again, as when Nova clears migrating_to.
    assert.deepEqual(migrating({ migrating_to: 'node1' }), {
      'requested-chassis': 'node1',
      mcast_flood_reports: 'true',
    });
    assert.deepEqual(migrating({}), { 'requested-chassis': 'node1', mcast_flood_reports: 'true' });
  });

  it('port security off: "unknown" address, no port_security, no groups', () => {
    const rows = switchPortRows(port({ port_security_enabled: false, security_groups: [] }), context());
    assert.deepEqual(rows.port.addresses, ['fa:16:3e:e8:9a:62 10.9.0.30', 'unknown']);
    assert.deepEqual(rows.port.port_security, []);
    assert.deepEqual(rows.portGroups, []);
  });

  it('allowed address pairs: same-MAC IPs join the port entry, other MACs get their own (Zed form)', () => {
    const rows = switchPortRows(
      port({
        allowed_address_pairs: [
          { ip_address: '10.9.0.100', mac_address: 'fa:16:3e:e8:9a:62' },
          { ip_address: '10.9.0.101', mac_address: '00:00:5e:00:01:01' },
          { ip_address: '10.9.8.0/24', mac_address: 'fa:16:3e:e8:9a:62' },
        ],
      }),
      context(),
    );
    assert.deepEqual(
      [...rows.port.port_security].sort(),
      ['00:00:5e:00:01:01 10.9.0.101', 'fa:16:3e:e8:9a:62 10.9.0.30 10.9.0.100 10.9.8.0/24'].sort(),
    );
    assert.deepEqual(rows.port.addresses, ['fa:16:3e:e8:9a:62 10.9.0.30', '00:00:5e:00:01:01']);
  });

  it('extra DHCP options become a row of the port: merged, quoted, unknown names skipped', () => {
    const rows = switchPortRows(
      port({
        extra_dhcp_opts: [
          { opt_name: 'mtu', opt_value: '1400', ip_version: 4 },
          { opt_name: 'bootfile-name', opt_value: 'pxelinux.0', ip_version: 4 },
          { opt_name: '121', opt_value: '10.20.0.0/16,10.9.0.9', ip_version: 4 },
          { opt_name: 'no-such-option', opt_value: 'x', ip_version: 4 },
        ],
      }),
      context(),
    );
    assert.deepEqual(rows.port.dhcpv4_options, { kind: 'port', subnetId: SUBNET4, portId: PORT });
    assert.deepEqual(rows.dhcpOptions, [
      {
        cidr: '10.9.0.0/24',
        options: {
          ...SUBNET_ROW.options,
          mtu: '1400',
          bootfile_name: '"pxelinux.0"',
          classless_static_route: '{169.254.169.254/32,10.9.0.2, 0.0.0.0/0,10.9.0.1, 10.20.0.0/16,10.9.0.9}',
        },
        external_ids: { ...SUBNET_ROW.external_ids, port_id: PORT },
      },
    ]);
  });

  it('dhcp_disabled=true: the port gets no DHCP options', () => {
    const rows = switchPortRows(
      port({ extra_dhcp_opts: [{ opt_name: 'dhcp_disabled', opt_value: 'True', ip_version: 4 }] }),
      context(),
    );
    assert.equal(rows.port.dhcpv4_options, null);
  });

  it('the metadata port is a localport with the network MTU; trusted ports have no security', () => {
    const metadata = switchPortRows(
      port({ device_owner: 'network:distributed', device_id: `ovnmeta-${NET}`, name: '', security_groups: [] }),
      context(),
    );
    assert.equal(metadata.port.type, 'localport');
    assert.deepEqual(metadata.port.addresses, ['fa:16:3e:e8:9a:62 10.9.0.30']);
    assert.deepEqual(metadata.port.port_security, []);
    assert.equal(metadata.port.dhcpv4_options, null, 'network devices get no DHCP');
    assert.equal(metadata.port.external_ids['neutron:mtu'], '1442');
    assert.deepEqual(metadata.portGroups, []);
    const dhcp = switchPortRows(port({ device_owner: 'network:dhcp', security_groups: [SG] }), context());
    assert.deepEqual(dhcp.port.addresses, ['unknown']);
    assert.equal(dhcp.port.external_ids['neutron:security_group_ids'], '');
    assert.deepEqual(dhcp.portGroups, []);
  });

  it('a dual-stack port prefers a stateful DHCPv6 subnet', () => {
    const stateless = 'aaaaaaaa-0000-0000-0000-000000000001';
    const subnets = [
      subnet(),
      subnet({ id: stateless, ip_version: 6, cidr: 'fd00:8::/64', ipv6_address_mode: 'dhcpv6-stateless' }),
      subnet({ id: SUBNET6, ip_version: 6, cidr: 'fd00:9::/64', ipv6_address_mode: 'dhcpv6-stateful' }),
    ];
    const v6row = (id: string, extra: Record<string, string>): DhcpOptionsSpec => ({
      cidr: 'x',
      options: { server_id: 'fa:16:3e:00:00:02', ...extra },
      external_ids: { subnet_id: id },
    });
    const rows = switchPortRows(
      port({
        fixed_ips: [
          { subnet_id: SUBNET4, ip_address: '10.9.0.30' },
          { subnet_id: stateless, ip_address: 'fd00:8::5' },
          { subnet_id: SUBNET6, ip_address: 'fd00:9::5' },
        ],
      }),
      context(
        {
          [SUBNET4]: SUBNET_ROW,
          [stateless]: v6row(stateless, { dhcpv6_stateless: 'true' }),
          [SUBNET6]: v6row(SUBNET6, {}),
        },
        subnets,
      ),
    );
    assert.deepEqual(rows.port.dhcpv6_options, { kind: 'subnet', subnetId: SUBNET6 });
    assert.equal(rows.port.external_ids['neutron:cidrs'], '10.9.0.30/24 fd00:8::5/64 fd00:9::5/64');
  });
});

describe('OVN mapping: security groups → Port_Group and ACLs', () => {
  const rule = (overrides: Partial<SecurityGroupRuleState>): SecurityGroupRuleState => ({
    id: 'r',
    security_group_id: SG,
    direction: 'ingress',
    ethertype: 'IPv4',
    protocol: null,
    protocol_number: null,
    port_range_min: null,
    port_range_max: null,
    remote_ip_prefix: null,
    remote_group_id: null,
    normalized_cidr: null,
    ...overrides,
  });
  const group = (rules: SecurityGroupRuleState[], stateful = true): SecurityGroupState => ({
    id: SG,
    name: 'sg',
    project_id: 'p1',
    stateful,
    revision_number: 1,
    rules,
  });
  const pg = portGroupName(SG);

  it('names the group pg_<id with underscores> and matches as acl.py builds them', () => {
    assert.equal(pg, 'pg_7c8c29ff_f2a5_455d_bee4_e928c35836d6');
    const spec = securityGroupPortGroup(
      group([
        rule({ id: 'r1', remote_group_id: SG }),
        rule({ id: 'r2', direction: 'egress', ethertype: 'IPv6' }),
        rule({
          id: 'r3',
          protocol: 'tcp',
          protocol_number: 6,
          port_range_min: 22,
          port_range_max: 22,
          remote_ip_prefix: '0.0.0.0/0',
          normalized_cidr: '0.0.0.0/0',
        }),
        rule({
          id: 'r4',
          protocol: 'icmp',
          protocol_number: 1,
          port_range_min: 8,
          remote_ip_prefix: '0.0.0.0/0',
          normalized_cidr: '0.0.0.0/0',
        }),
        rule({ id: 'r5', protocol: 'udp', protocol_number: 17, port_range_min: 1000, port_range_max: 2000 }),
        rule({ id: 'r6', protocol: '112', protocol_number: 112 }),
        rule({
          id: 'r7',
          direction: 'egress',
          ethertype: 'IPv6',
          protocol: 'ipv6-icmp',
          protocol_number: 58,
          port_range_min: 135,
          port_range_max: 0,
        }),
      ]),
    );
    assert.deepEqual(spec.external_ids, { 'neutron:security_group_id': SG });
    assert.deepEqual(
      spec.acls.map((a) => [a.direction, a.match]),
      [
        ['to-lport', `outport == @${pg} && ip4 && ip4.src == $${pg}_ip4`],
        ['from-lport', `inport == @${pg} && ip6`],
        ['to-lport', `outport == @${pg} && ip4 && ip4.src == 0.0.0.0/0 && tcp && tcp.dst == 22`],
        ['to-lport', `outport == @${pg} && ip4 && ip4.src == 0.0.0.0/0 && icmp4 && icmp4.type == 8`],
        ['to-lport', `outport == @${pg} && ip4 && udp && udp.dst >= 1000 && udp.dst <= 2000`],
        ['to-lport', `outport == @${pg} && ip4 && ip.proto == 112`],
        ['from-lport', `inport == @${pg} && ip6 && icmp6 && icmp6.type == 135 && icmp6.code == 0`],
      ],
    );
    assert.deepEqual(spec.acls[0], {
      direction: 'to-lport',
      priority: 1002,
      match: `outport == @${pg} && ip4 && ip4.src == $${pg}_ip4`,
      action: 'allow-related',
      log: false,
      name: null,
      severity: null,
      meter: null,
      external_ids: { 'neutron:security_group_rule_id': 'r1' },
    });
  });

  it("a stateless group allows statelessly; rules with one match share the first rule's ACL", () => {
    const spec = securityGroupPortGroup(group([rule({ id: 'first' }), rule({ id: 'second' })], false));
    assert.equal(spec.acls.length, 1);
    assert.equal(spec.acls[0]!.action, 'allow-stateless');
    assert.equal(spec.acls[0]!.external_ids['neutron:security_group_rule_id'], 'first');
  });

  it('neutron_pg_drop drops IP both ways at priority 1001 (as Zed), without external_ids', () => {
    const drop = dropPortGroup();
    assert.equal(drop.name, 'neutron_pg_drop');
    assert.deepEqual(drop.external_ids, {});
    assert.deepEqual(
      drop.acls.map((a) => [a.direction, a.priority, a.match, a.action]),
      [
        ['from-lport', 1001, 'inport == @neutron_pg_drop && ip', 'drop'],
        ['to-lport', 1001, 'outport == @neutron_pg_drop && ip', 'drop'],
      ],
    );
  });
});
