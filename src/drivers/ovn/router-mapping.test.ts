/**
 * Routers and floating IPs → NB rows, against `../shared/reference/ovn-mapping.md` §8, and the
 * gateway scheduler's choices.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FloatingIpState, NetworkState, PortState, RouterState, SubnetState } from '../host.js';
import { scheduleGateway, type GatewayCandidate } from './gateway-scheduler.js';
import { switchPortRows } from './mapping.js';
import { INVALID_CHASSIS, routerRows } from './router-mapping.js';

const R = 'ro000000-0000-0000-0000-000000000001';
const EXT = 'ex000000-0000-0000-0000-000000000001';
const INT = 'in000000-0000-0000-0000-000000000001';
const EXT_SUBNET = 'es000000-0000-0000-0000-000000000001';
const INT_SUBNET = 'is000000-0000-0000-0000-000000000001';

const network = (id: string, extra: Partial<NetworkState>): NetworkState => ({
  id,
  name: id,
  project_id: 'p',
  mtu: 1442,
  admin_state_up: true,
  shared: false,
  'router:external': false,
  port_security_enabled: true,
  availability_zone_hints: [],
  'provider:network_type': 'geneve',
  'provider:physical_network': null,
  'provider:segmentation_id': 7,
  qos_policy_id: null,
  segments: [],
  revision_number: 1,
  ...extra,
});

const subnet = (id: string, networkId: string, cidr: string, gateway: string): SubnetState => ({
  id,
  name: '',
  network_id: networkId,
  project_id: 'p',
  ip_version: 4,
  cidr,
  gateway_ip: gateway,
  enable_dhcp: true,
  dns_nameservers: [],
  host_routes: [],
  ipv6_ra_mode: null,
  ipv6_address_mode: null,
  subnetpool_id: null,
  revision_number: 1,
});

const port = (id: string, owner: string, networkId: string, subnetId: string, ip: string): PortState => ({
  id,
  name: '',
  network_id: networkId,
  project_id: owner === 'network:router_gateway' ? '' : 'p',
  mac_address: `fa:16:3e:00:00:${id.slice(-2)}`,
  fixed_ips: [{ subnet_id: subnetId, ip_address: ip }],
  admin_state_up: true,
  status: 'ACTIVE',
  device_id: R,
  device_owner: owner,
  port_security_enabled: false,
  security_groups: [],
  allowed_address_pairs: [],
  extra_dhcp_opts: [],
  'binding:host_id': '',
  'binding:vnic_type': 'normal',
  'binding:profile': {},
  'binding:vif_type': 'unbound',
  qos_policy_id: null,
  qos_network_policy_id: null,
  revision_number: 3,
});

const router = (extra: Partial<RouterState> = {}): RouterState => ({
  id: R,
  name: 'r1',
  project_id: 'p',
  admin_state_up: true,
  external_gateway_info: {
    network_id: EXT,
    enable_snat: true,
    external_fixed_ips: [{ subnet_id: EXT_SUBNET, ip_address: '198.51.100.10' }],
  },
  gw_port_id: 'gw000000-0000-0000-0000-000000000001',
  routes: [{ destination: '10.99.0.0/16', nexthop: '10.0.0.254' }],
  availability_zone_hints: [],
  l3_agents: [],
  revision_number: 4,
  ...extra,
});

const gatewayPort = port(
  'gw000000-0000-0000-0000-000000000001',
  'network:router_gateway',
  EXT,
  EXT_SUBNET,
  '198.51.100.10',
);
const interfacePort = port(
  'if000000-0000-0000-0000-000000000002',
  'network:router_interface',
  INT,
  INT_SUBNET,
  '10.0.0.1',
);
const fip: FloatingIpState = {
  id: 'fi000000-0000-0000-0000-000000000001',
  project_id: 'p',
  floating_ip_address: '198.51.100.50',
  floating_network_id: EXT,
  router_id: R,
  port_id: 'vm000000-0000-0000-0000-000000000001',
  fixed_ip_address: '10.0.0.11',
  status: 'DOWN',
  revision_number: 2,
};
const context = {
  ports: [interfacePort, gatewayPort],
  subnets: new Map([
    [EXT_SUBNET, subnet(EXT_SUBNET, EXT, '198.51.100.0/24', '198.51.100.1')],
    [INT_SUBNET, subnet(INT_SUBNET, INT, '10.0.0.0/24', '10.0.0.1')],
  ]),
  networks: new Map([
    [
      EXT,
      network(EXT, {
        'router:external': true,
        'provider:network_type': 'flat',
        'provider:physical_network': 'physnet1',
        mtu: 1500,
      }),
    ],
    [INT, network(INT, {})],
  ]),
  floatingIps: [fip],
  gatewayChassis: ['node2', 'node1'],
};
const options = { macBindingAgeThreshold: 300, metadataEnabled: true };

describe('OVN mapping: routers → Logical_Router, ports, NAT, routes, gateway chassis', () => {
  const rows = routerRows(router(), context, options);

  it('the router: neutron-<id>, enabled, its names and revision, the options ML2/OVN sets', () => {
    assert.deepEqual(rows.router, {
      name: `neutron-${R}`,
      enabled: true,
      external_ids: {
        'neutron:router_name': 'r1',
        'neutron:revision_number': '4',
        'neutron:availability_zone_hints': '',
        'neutron:gw_port_id': 'gw000000-0000-0000-0000-000000000001',
        'neutron:gw_network_id': 'ex000000-0000-0000-0000-000000000001',
      },
      options: {
        always_learn_from_arp_request: 'false',
        dynamic_neigh_routers: 'true',
        mac_binding_age_threshold: '300',
      },
    });
  });

  it('an LRP per interface and for the gateway, the gateway with its MTU and the redirect chassis option', () => {
    assert.deepEqual(
      rows.ports.map((p) => [p.name, p.networks, p.gateway, p.options]),
      [
        [`lrp-${interfacePort.id}`, ['10.0.0.1/24'], false, {}],
        [
          `lrp-${gatewayPort.id}`,
          ['198.51.100.10/24'],
          true,
          { 'reside-on-redirect-chassis': 'true', gateway_mtu: '1442' },
        ],
      ],
    );
    assert.deepEqual(rows.ports[1]!.external_ids, {
      'neutron:revision_number': '3',
      'neutron:subnet_ids': EXT_SUBNET,
      'neutron:network_name': `neutron-${EXT}`,
      'neutron:is_ext_gw': 'True',
      'neutron:router_name': R,
    });
  });

  it('the default route via the external subnet gateway and the extra route', () => {
    assert.deepEqual(rows.routes, [
      {
        ip_prefix: '0.0.0.0/0',
        nexthop: '198.51.100.1',
        external_ids: {
          'neutron:is_ext_gw': 'true',
          'neutron:subnet_id': EXT_SUBNET,
        },
      },
      { ip_prefix: '10.99.0.0/16', nexthop: '10.0.0.254', external_ids: {} },
    ]);
  });

  it('SNAT from the gateway address per attached subnet, and the floating IP as dnat_and_snat', () => {
    assert.deepEqual(rows.nats, [
      {
        type: 'snat',
        external_ip: '198.51.100.10',
        logical_ip: '10.0.0.0/24',
        logical_port: null,
        options: {},
        external_ids: {},
      },
      {
        type: 'dnat_and_snat',
        external_ip: '198.51.100.50',
        logical_ip: '10.0.0.11',
        logical_port: fip.port_id,
        options: {},
        external_ids: {
          'neutron:fip_id': fip.id,
          'neutron:revision_number': '2',
          'neutron:fip_port_id': fip.port_id!,
          'neutron:router_name': `neutron-${R}`,
          'neutron:fip_external_mac': '',
          'neutron:fip_network_id': EXT,
        },
      },
    ]);
    assert.deepEqual(
      routerRows(
        router({ external_gateway_info: { ...router().external_gateway_info!, enable_snat: false } }),
        context,
        options,
      ).nats.map((n) => n.type),
      ['dnat_and_snat'],
      'enable_snat false: no SNAT, floating IPs still',
    );
  });

  it("enable_distributed_floating_ip: external_mac is the fixed port's MAC, as ML2/OVN writes it", () => {
    const macs = new Map([[fip.port_id!, 'fa:16:3e:00:00:99']]);
    const distributed = routerRows(
      router(),
      { ...context, floatingIpPortMacs: macs },
      {
        ...options,
        distributedFloatingIps: true,
      },
    ).nats.find((n) => n.type === 'dnat_and_snat')!;
    assert.equal(distributed.external_mac, 'fa:16:3e:00:00:99');
    assert.equal(distributed.logical_port, fip.port_id);
    assert.equal(distributed.external_ids['neutron:fip_external_mac'], 'fa:16:3e:00:00:99');
    const centralized = rows.nats.find((n) => n.type === 'dnat_and_snat')!;
    assert.equal(centralized.external_mac, undefined, 'off: the column is left alone (centralized)');
  });

  it("the gateway LRP's Gateway_Chassis as Zed writes them: lrp-<port>_<chassis>, priority N..1 in order", () => {
    const lrp = `lrp-${gatewayPort.id}`;
    assert.deepEqual(rows.ports[1]!.gatewayChassis, [
      { name: `${lrp}_node2`, chassis_name: 'node2', priority: 2 },
      { name: `${lrp}_node1`, chassis_name: 'node1', priority: 1 },
    ]);
    assert.deepEqual(rows.ports[0]!.gatewayChassis, [], 'an interface has none');
    assert.deepEqual(
      routerRows(router(), { ...context, gatewayChassis: [] }, options).ports[1]!.gatewayChassis,
      [{ name: `${lrp}_${INVALID_CHASSIS}`, chassis_name: 'neutron-ovn-invalid-chassis', priority: 1 }],
      'no chassis can take it: the placeholder keeps the LRP a (unhosted) gateway port',
    );
    assert.deepEqual(
      routerRows(router({ gw_port_id: null, external_gateway_info: null }), context, options).ports.map(
        (p) => p.gatewayChassis,
      ),
      [[]],
    );
  });

  it("router ports' LSPs are type router peers; the gateway's announces the router's NAT addresses", () => {
    const lsp = (p: PortState) =>
      switchPortRows(p, {
        network: { id: p.network_id, mtu: 1442 },
        subnets: context.subnets,
        subnetDhcp: () => undefined,
      });
    const inside = lsp(interfacePort);
    assert.equal(inside.port.type, 'router');
    assert.deepEqual(inside.port.addresses, ['router']);
    assert.deepEqual(inside.port.options, { 'router-port': `lrp-${interfacePort.id}` });
    assert.deepEqual(inside.portGroups, []);
    assert.deepEqual(lsp(gatewayPort).port.options, {
      'router-port': `lrp-${gatewayPort.id}`,
      'nat-addresses': 'router',
      'exclude-lb-vips-from-garp': 'true',
    });
  });
});

describe('OVN gateway scheduling', () => {
  const chassis = (
    name: string,
    gateway: boolean,
    physnets: string[] = ['physnet1'],
    azs: string[] = [],
  ): GatewayCandidate => ({
    name,
    gateway,
    physnets: new Set(physnets),
    availabilityZones: azs,
  });
  const candidates = [
    chassis('node1', true),
    chassis('node2', true),
    chassis('node3', false),
    chassis('node4', true, ['physnet2']),
  ];
  const base = {
    candidates,
    physnet: 'physnet1',
    azHints: [] as string[],
    pinned: [] as string[],
    current: [] as string[],
    load: new Map<string, number>(),
  };

  it('gateway chassis that reach the physnet, least loaded first', () => {
    assert.deepEqual(scheduleGateway(base), ['node1', 'node2']);
    assert.deepEqual(scheduleGateway({ ...base, load: new Map([['node1', 3]]) }), ['node2', 'node1']);
    assert.deepEqual(
      scheduleGateway({ ...base, physnet: null }),
      ['node1', 'node2', 'node4'],
      'a tunnelled network reaches all',
    );
  });

  it('keeps the current order of a scheduled router, and follows an operator pin', () => {
    assert.deepEqual(scheduleGateway({ ...base, current: ['node2', 'node1'], load: new Map([['node2', 9]]) }), [
      'node2',
      'node1',
    ]);
    assert.deepEqual(scheduleGateway({ ...base, pinned: ['node2'] }), ['node2']);
    assert.deepEqual(
      scheduleGateway({ ...base, pinned: ['node3'] }),
      [],
      'a pin to a non-gateway chassis schedules nothing',
    );
  });

  it('availability zone hints restrict the candidates', () => {
    const zoned = [chassis('node1', true, ['physnet1'], ['az1']), chassis('node2', true, ['physnet1'], ['az2'])];
    assert.deepEqual(scheduleGateway({ ...base, candidates: zoned, azHints: ['az2'] }), ['node2']);
  });
});
