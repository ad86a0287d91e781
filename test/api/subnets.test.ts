/**
 * Subnets over HTTP, checked against Neutron master (Zed anchor where they agree): defaults for
 * gateway and pools (including the /30, /31 and /32 edges), IPv6 modes and EUI-64 addresses,
 * overlap, every validation error with Neutron's exact body, updates, deletes, the network's
 * revision, visibility and service types; on both stores.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BACKENDS, newProjectId, useApi, type Client } from '../fixtures/api.js';
import { assertError } from '../fixtures/errors.js';
import {
  createNetwork,
  createPort,
  createSubnet,
  networkWithSubnet,
  type Body,
  type Item,
} from '../fixtures/topology.js';

const SUBNET_KEYS = [
  'allocation_pools',
  'cidr',
  'created_at',
  'description',
  'dns_nameservers',
  'dns_publish_fixed_ip',
  'enable_dhcp',
  'gateway_ip',
  'host_routes',
  'id',
  'ip_version',
  'ipv6_address_mode',
  'ipv6_ra_mode',
  'name',
  'network_id',
  'project_id',
  'revision_number',
  'router:external',
  'service_types',
  'subnetpool_id',
  'tags',
  'tenant_id',
  'updated_at',
];

const pool = (start: string, end: string) => ({ start, end });

for (const backend of BACKENDS) {
  describe(`subnets (${backend})`, () => {
    const api = useApi(backend);
    const member = (project = newProjectId()) => api.as({ project });

    /** POSTs a subnet on a fresh network of a fresh project. */
    async function tryCreate(body: Body, client: Client = member()) {
      const network = await createNetwork(client);
      return client.post('/v2.0/subnets', { subnet: { network_id: network.id, ...body } });
    }

    /** Creates a subnet on a fresh network and returns it. */
    async function created(body: Body): Promise<Item> {
      const r = await tryCreate(body);
      assert.equal(r.status, 201, r.text);
      return r.body.subnet;
    }

    const invalidInput = (message: string) => ['InvalidInput', `Invalid input for operation: ${message}.`] as const;

    describe('defaults', () => {
      it('creates an IPv4 subnet: canonical CIDR, gateway network+1, one pool after it', async () => {
        const project = newProjectId();
        const client = member(project);
        const network = await createNetwork(client);
        const r = await client.post('/v2.0/subnets', {
          subnet: { network_id: network.id, cidr: '10.1.0.5/24', ip_version: 4 },
        });
        assert.equal(r.status, 201, r.text);
        const s = r.body.subnet;
        assert.deepEqual(Object.keys(s).sort(), SUBNET_KEYS);
        assert.equal(s.cidr, '10.1.0.0/24');
        assert.equal(s.gateway_ip, '10.1.0.1');
        assert.deepEqual(s.allocation_pools, [pool('10.1.0.2', '10.1.0.254')]);
        assert.equal(s.enable_dhcp, true);
        assert.deepEqual(
          [s.ipv6_ra_mode, s.ipv6_address_mode, s.subnetpool_id, s.name, s.description],
          [null, null, null, '', ''],
        );
        assert.deepEqual([s.host_routes, s.dns_nameservers, s.service_types, s.tags], [[], [], [], []]);
        assert.equal(s.dns_publish_fixed_ip, false);
        assert.equal(s.revision_number, 0);
        assert.equal(s.project_id, project);
        assert.equal(s.tenant_id, project);
        const shown = await client.get(`/v2.0/subnets/${s.id}`);
        assert.deepEqual(shown.body.subnet, s);
      });

      it('keeps explicit pools, gateway, DNS servers (in order) and host routes', async () => {
        const s = await created({
          cidr: '10.2.0.0/24',
          ip_version: 4,
          gateway_ip: '10.2.0.254',
          allocation_pools: [pool('10.2.0.100', '10.2.0.110'), pool('10.2.0.10', '10.2.0.20')],
          dns_nameservers: ['8.8.8.8', '1.1.1.1'],
          host_routes: [{ destination: '192.168.0.0/16', nexthop: '10.2.0.1' }],
        });
        assert.equal(s.gateway_ip, '10.2.0.254');
        // A new subnet's pools come back sorted.
        assert.deepEqual(s.allocation_pools, [pool('10.2.0.10', '10.2.0.20'), pool('10.2.0.100', '10.2.0.110')]);
        assert.deepEqual(s.dns_nameservers, ['8.8.8.8', '1.1.1.1']);
        assert.deepEqual(s.host_routes, [{ destination: '192.168.0.0/16', nexthop: '10.2.0.1' }]);
      });

      it('gateway_ip null: no gateway, the pool starts at network+1', async () => {
        const s = await created({ cidr: '10.3.0.0/24', ip_version: 4, gateway_ip: null });
        assert.equal(s.gateway_ip, null);
        assert.deepEqual(s.allocation_pools, [pool('10.3.0.1', '10.3.0.254')]);
      });

      it('splits the default pool around a gateway inside it, and not around one outside the CIDR', async () => {
        const middle = await created({ cidr: '10.4.0.0/24', ip_version: 4, gateway_ip: '10.4.0.100' });
        assert.deepEqual(middle.allocation_pools, [pool('10.4.0.1', '10.4.0.99'), pool('10.4.0.101', '10.4.0.254')]);
        const outside = await created({ cidr: '10.5.0.0/24', ip_version: 4, gateway_ip: '10.9.0.1' });
        assert.equal(outside.gateway_ip, '10.9.0.1');
        assert.deepEqual(outside.allocation_pools, [pool('10.5.0.1', '10.5.0.254')]);
      });

      it('an empty allocation_pools list means the default pools', async () => {
        const s = await created({ cidr: '10.14.0.0/24', ip_version: 4, allocation_pools: [] });
        assert.deepEqual(s.allocation_pools, [pool('10.14.0.2', '10.14.0.254')]);
      });

      it('/30: gateway .1 and a one-address pool; without a gateway two addresses', async () => {
        const s = await created({ cidr: '10.6.0.0/30', ip_version: 4 });
        assert.equal(s.gateway_ip, '10.6.0.1');
        assert.deepEqual(s.allocation_pools, [pool('10.6.0.2', '10.6.0.2')]);
        const noGateway = await created({ cidr: '10.6.5.0/30', ip_version: 4, gateway_ip: null });
        assert.deepEqual(noGateway.allocation_pools, [pool('10.6.5.1', '10.6.5.2')]);
      });

      it('/31: both addresses are usable, so the default gateway (its last address) is refused', async () => {
        const r = await tryCreate({ cidr: '10.6.1.0/31', ip_version: 4, enable_dhcp: false });
        assertError(
          r,
          409,
          'IpamValueInvalid',
          'Gateway IP 10.6.1.1 cannot be the network or broadcast IP address 10.6.1.0/31',
        );
        const s = await created({ cidr: '10.6.4.0/31', ip_version: 4, enable_dhcp: false, gateway_ip: null });
        assert.deepEqual(s.allocation_pools, [pool('10.6.4.0', '10.6.4.1')]);
      });

      it('/32: the default gateway is the next address (outside), the pool the one address', async () => {
        const s = await created({ cidr: '10.6.2.7/32', ip_version: 4, enable_dhcp: false });
        assert.equal(s.cidr, '10.6.2.7/32');
        assert.equal(s.gateway_ip, '10.6.2.8');
        assert.deepEqual(s.allocation_pools, [pool('10.6.2.7', '10.6.2.7')]);
      });

      it('IPv6: the gateway is the network address, pools run to the last address', async () => {
        const modes: [string | undefined, string | undefined, string][] = [
          ['slaac', 'slaac', '2001:db8:1::/64'],
          [undefined, 'dhcpv6-stateless', '2001:db8:2::/64'],
          ['dhcpv6-stateful', 'dhcpv6-stateful', '2001:db8:3::/64'],
        ];
        for (const [ra, address, cidr] of modes) {
          const s = await created({ cidr, ip_version: 6, ipv6_ra_mode: ra, ipv6_address_mode: address });
          const prefix = cidr.slice(0, -5);
          assert.equal(s.gateway_ip, `${prefix}::`);
          assert.deepEqual(s.allocation_pools, [pool(`${prefix}::1`, `${prefix}:0:ffff:ffff:ffff:ffff`)]);
          assert.equal(s.ipv6_ra_mode, ra ?? null);
          assert.equal(s.ipv6_address_mode, address);
          assert.equal(s.enable_dhcp, true);
        }
        const plain = await created({ cidr: '2001:db8:4::/120', ip_version: 6 });
        assert.deepEqual([plain.ipv6_ra_mode, plain.ipv6_address_mode], [null, null]);
        assert.deepEqual(plain.allocation_pools, [pool('2001:db8:4::1', '2001:db8:4::ff')]);
        const small = await created({ cidr: '2001:db8:6::/126', ip_version: 6 });
        assert.deepEqual(small.allocation_pools, [pool('2001:db8:6::1', '2001:db8:6::3')]);
        const p127 = await created({ cidr: '2001:db8:5::/127', ip_version: 6, enable_dhcp: false });
        assert.deepEqual(p127.allocation_pools, [pool('2001:db8:5::1', '2001:db8:5::1')]);
        const explicit = await created({ cidr: '2001:db8:8::/64', ip_version: 6, gateway_ip: '2001:db8:8::1' });
        assert.deepEqual(explicit.allocation_pools, [pool('2001:db8:8::2', '2001:db8:8:0:ffff:ffff:ffff:ffff')]);
      });

      it('writes IPv6 addresses in their canonical form', async () => {
        const s = await created({
          cidr: '2001:DB8:9:0::/64',
          ip_version: 6,
          gateway_ip: '2001:DB8:9::0001',
          allocation_pools: [pool('2001:DB8:9::10', '2001:db8:9::00ff')],
          dns_nameservers: ['2001:4860::8888'],
        });
        assert.equal(s.cidr, '2001:db8:9::/64');
        assert.equal(s.gateway_ip, '2001:db8:9::1');
        assert.deepEqual(s.allocation_pools, [pool('2001:db8:9::10', '2001:db8:9::ff')]);
      });
    });

    describe('IPv6 auto addresses', () => {
      it('a new SLAAC or DHCPv6-stateless subnet gives existing ports their EUI-64 address', async () => {
        const client = member();
        const { network, subnet: v4 } = await networkWithSubnet(client, '10.20.0.0/24');
        const port = await createPort(client, network.id, {
          mac_address: 'fa:16:3e:00:00:01',
          fixed_ips: [{ ip_address: '10.20.0.7' }],
        });
        const router = await createPort(client, network.id, {
          device_owner: 'network:router_interface',
          fixed_ips: [],
        });
        const slaac = await createSubnet(client, network.id, {
          cidr: '2001:db8:77::/64',
          ipv6_ra_mode: 'slaac',
          ipv6_address_mode: 'slaac',
          enable_dhcp: true,
        });
        const stateless = await createSubnet(client, network.id, {
          cidr: '2001:db8:78::/64',
          ipv6_address_mode: 'dhcpv6-stateless',
          enable_dhcp: true,
        });
        await createSubnet(client, network.id, {
          cidr: '2001:db8:79::/64',
          ipv6_ra_mode: 'dhcpv6-stateful',
          ipv6_address_mode: 'dhcpv6-stateful',
          enable_dhcp: true,
        });
        const after = (await client.get(`/v2.0/ports/${port.id}`)).body.port;
        assert.deepEqual(after.fixed_ips, [
          { subnet_id: v4.id, ip_address: '10.20.0.7' },
          { subnet_id: slaac.id, ip_address: '2001:db8:77:0:f816:3eff:fe00:1' },
          { subnet_id: stateless.id, ip_address: '2001:db8:78:0:f816:3eff:fe00:1' },
        ]);
        assert.ok(after.revision_number > port.revision_number, 'the port is revised');
        const routerAfter = (await client.get(`/v2.0/ports/${router.id}`)).body.port;
        assert.deepEqual(routerAfter.fixed_ips, [], 'router interfaces get no EUI-64 address');
      });

      it('deleting an auto-address subnet releases those addresses instead of refusing', async () => {
        const client = member();
        const { network, subnet: v4 } = await networkWithSubnet(client, '10.21.0.0/24');
        const slaac = await createSubnet(client, network.id, {
          cidr: '2001:db8:21::/64',
          ipv6_ra_mode: 'slaac',
          ipv6_address_mode: 'slaac',
          enable_dhcp: true,
        });
        const port = await createPort(client, network.id, { mac_address: 'fa:16:3e:00:00:02' });
        assert.deepEqual(
          port.fixed_ips.map((f: Item) => f.subnet_id),
          [v4.id, slaac.id],
        );
        assert.equal((await client.delete(`/v2.0/subnets/${slaac.id}`)).status, 204);
        const after = (await client.get(`/v2.0/ports/${port.id}`)).body.port;
        assert.deepEqual(
          after.fixed_ips.map((f: Item) => f.subnet_id),
          [v4.id],
        );
      });
    });

    describe('overlap', () => {
      it('refuses a CIDR overlapping another subnet of the same network, not of another network', async () => {
        const client = member();
        const { network } = await networkWithSubnet(client, '10.10.0.0/24');
        const r = await client.post('/v2.0/subnets', {
          subnet: { network_id: network.id, cidr: '10.10.0.128/25', ip_version: 4 },
        });
        assertError(
          r,
          400,
          ...invalidInput(
            `Requested subnet with cidr: 10.10.0.128/25 for network: ${network.id} overlaps with another subnet`,
          ),
        );
        const other = await createNetwork(client);
        await createSubnet(client, other.id, { cidr: '10.10.0.0/24' });
      });
    });

    describe('validation errors', () => {
      const cases: [string, Body, number, string, string][] = [
        [
          'ip_version not matching the CIDR',
          { cidr: '10.11.0.0/24', ip_version: 6 },
          400,
          ...invalidInput("cidr '10.11.0.0/24' does not match the ip_version '6'"),
        ],
        [
          'ip_version 4 for an IPv6 CIDR',
          { cidr: '2001:db8::/64', ip_version: 4 },
          400,
          ...invalidInput("cidr '2001:db8::/64' does not match the ip_version '4'"),
        ],
        [
          'ip_version 5',
          { cidr: '10.11.0.0/24', ip_version: 5 },
          400,
          'HTTPBadRequest',
          'Invalid input for ip_version. Reason: 5 is not in valid_values.',
        ],
        [
          'ip_version not an integer',
          { cidr: '10.11.0.0/24', ip_version: 'x' },
          400,
          ...invalidInput("'x' is not an integer"),
        ],
        [
          'prefix length 0',
          { cidr: '0.0.0.0/0', ip_version: 4, enable_dhcp: false },
          400,
          ...invalidInput('0 is not allowed as CIDR prefix length'),
        ],
        [
          'the IPv6 subnet ::/64',
          { cidr: '::/64', ip_version: 6, enable_dhcp: false },
          400,
          ...invalidInput("IPv6 subnet '::' is not supported"),
        ],
        [
          'a CIDR that is not one',
          { cidr: 'garbage', ip_version: 4 },
          400,
          ...invalidInput('garbage is not in a CIDR format'),
        ],
        ['a /33', { cidr: '10.0.0.0/33', ip_version: 4 }, 400, ...invalidInput('10.0.0.0/33 is not in a CIDR format')],
        [
          'no CIDR and no pool',
          { ip_version: 4 },
          400,
          'BadRequest',
          'Bad subnets request: a subnetpool must be specified in the absence of a cidr.',
        ],
        [
          'cidr with prefixlen',
          { cidr: '10.18.0.0/24', ip_version: 4, prefixlen: 24 },
          400,
          'BadRequest',
          'Bad subnets request: cidr and prefixlen must not be supplied together.',
        ],
        [
          'no ip_version',
          { cidr: '10.12.0.0/24' },
          400,
          'HTTPBadRequest',
          "Failed to parse request. Required attribute 'ip_version' not specified",
        ],
        [
          'DHCP on a /31',
          { cidr: '10.12.0.0/31', ip_version: 4 },
          400,
          ...invalidInput('Subnet has a prefix length that is incompatible with DHCP service enabled'),
        ],
        [
          'DHCP on a /32',
          { cidr: '10.12.0.0/32', ip_version: 4 },
          400,
          ...invalidInput('Subnet has a prefix length that is incompatible with DHCP service enabled'),
        ],
        [
          'DHCP on an IPv6 /127',
          { cidr: '2001:db8:c::/127', ip_version: 6 },
          400,
          ...invalidInput('Subnet has a prefix length that is incompatible with DHCP service enabled'),
        ],
        [
          'DHCP on multicast',
          { cidr: '224.0.0.0/24', ip_version: 4 },
          400,
          ...invalidInput('Multicast IP subnet is not supported if enable_dhcp is True'),
        ],
        [
          'DHCP on loopback',
          { cidr: '127.0.0.0/24', ip_version: 4 },
          400,
          ...invalidInput('Loopback IP subnet is not supported if enable_dhcp is True'),
        ],
        [
          'DHCP on 0.0.0.0/8',
          { cidr: '0.0.0.0/8', ip_version: 4 },
          400,
          ...invalidInput("First IP '0.0.0.0' of network is not supported if enable_dhcp is True."),
        ],
        [
          'the network address as gateway',
          { cidr: '10.13.0.0/24', ip_version: 4, gateway_ip: '10.13.0.0' },
          400,
          ...invalidInput('Gateway is not valid on subnet'),
        ],
        [
          'the broadcast address as gateway',
          { cidr: '10.13.0.0/24', ip_version: 4, gateway_ip: '10.13.0.255' },
          400,
          ...invalidInput('Gateway is not valid on subnet'),
        ],
        [
          'a /31 broadcast gateway',
          { cidr: '10.13.1.0/31', ip_version: 4, enable_dhcp: false, gateway_ip: '10.13.1.1' },
          400,
          ...invalidInput('Gateway is not valid on subnet'),
        ],
        [
          'a gateway that is not an address',
          { cidr: '10.13.0.0/24', ip_version: 4, gateway_ip: 'abc' },
          400,
          'HTTPBadRequest',
          "Invalid input for gateway_ip. Reason: 'abc' is not a valid IP address.",
        ],
        [
          'a gateway with a prefix',
          { cidr: '10.19.0.0/24', ip_version: 4, gateway_ip: '10.19.0.1/24' },
          400,
          'HTTPBadRequest',
          "Invalid input for gateway_ip. Reason: '10.19.0.1/24' is not a valid IP address.",
        ],
        [
          'an IPv6 gateway on IPv4',
          { cidr: '10.13.0.0/24', ip_version: 4, gateway_ip: '2001:db8::1' },
          400,
          ...invalidInput("gateway_ip '2001:db8::1' does not match the ip_version '4'"),
        ],
        [
          'a gateway inside a pool',
          {
            cidr: '10.13.0.0/24',
            ip_version: 4,
            gateway_ip: '10.13.0.50',
            allocation_pools: [pool('10.13.0.10', '10.13.0.100')],
          },
          409,
          'GatewayConflictWithAllocationPools',
          'Gateway ip 10.13.0.50 conflicts with allocation pool 10.13.0.10-10.13.0.100.',
        ],
        [
          'a pool beyond the CIDR',
          { cidr: '10.14.0.0/24', ip_version: 4, allocation_pools: [pool('10.14.0.10', '10.14.1.5')] },
          400,
          'OutOfBoundsAllocationPool',
          'The allocation pool 10.14.0.10-10.14.1.5 spans beyond the subnet cidr 10.14.0.0/24.',
        ],
        [
          'a pool with the network address',
          { cidr: '10.14.0.0/24', ip_version: 4, allocation_pools: [pool('10.14.0.0', '10.14.0.5')] },
          400,
          'OutOfBoundsAllocationPool',
          'The allocation pool 10.14.0.0-10.14.0.5 spans beyond the subnet cidr 10.14.0.0/24.',
        ],
        [
          'a pool with the broadcast address',
          { cidr: '10.14.0.0/24', ip_version: 4, allocation_pools: [pool('10.14.0.250', '10.14.0.255')] },
          400,
          'OutOfBoundsAllocationPool',
          'The allocation pool 10.14.0.250-10.14.0.255 spans beyond the subnet cidr 10.14.0.0/24.',
        ],
        [
          'overlapping pools',
          {
            cidr: '10.14.0.0/24',
            ip_version: 4,
            allocation_pools: [pool('10.14.0.10', '10.14.0.20'), pool('10.14.0.15', '10.14.0.30')],
          },
          409,
          'OverlappingAllocationPools',
          'Found overlapping allocation pools: 10.14.0.10-10.14.0.20 10.14.0.15-10.14.0.30 for subnet 10.14.0.0/24.',
        ],
        [
          'a reversed pool',
          { cidr: '10.14.0.0/24', ip_version: 4, allocation_pools: [pool('10.14.0.20', '10.14.0.10')] },
          400,
          'InvalidAllocationPool',
          "The allocation pool {'start': '10.14.0.20', 'end': '10.14.0.10'} is not valid.",
        ],
        [
          'an IPv6 pool on IPv4',
          { cidr: '10.14.0.0/24', ip_version: 4, allocation_pools: [pool('2001:db8::2', '2001:db8::3')] },
          400,
          'InvalidAllocationPool',
          'The allocation pool 2001:db8::2-2001:db8::3 is not valid.',
        ],
        [
          'a pool of mixed versions',
          { cidr: '10.14.0.0/24', ip_version: 4, allocation_pools: [pool('10.14.0.2', '2001:db8::3')] },
          400,
          'InvalidAllocationPool',
          "The allocation pool {'start': '10.14.0.2', 'end': '2001:db8::3'} is not valid.",
        ],
        [
          'a pool address that is not one',
          { cidr: '10.14.0.0/24', ip_version: 4, allocation_pools: [pool('x', '10.14.0.10')] },
          400,
          'HTTPBadRequest',
          "Invalid input for allocation_pools. Reason: 'x' is not a valid IP address.",
        ],
        [
          'pools that are not a list',
          { cidr: '10.14.0.0/24', ip_version: 4, allocation_pools: 'x' },
          400,
          ...invalidInput('Invalid data format for allocation pools'),
        ],
        [
          'six DNS servers',
          {
            cidr: '10.15.0.0/24',
            ip_version: 4,
            dns_nameservers: ['1.1.1.1', '1.1.1.2', '1.1.1.3', '1.1.1.4', '1.1.1.5', '1.1.1.6'],
          },
          400,
          'DNSNameServersExhausted',
          'Unable to complete operation for new subnet. The number of DNS nameservers exceeds the limit 5.',
        ],
        [
          'a duplicate DNS server',
          { cidr: '10.15.0.0/24', ip_version: 4, dns_nameservers: ['1.1.1.1', '1.1.1.1'] },
          400,
          'HTTPBadRequest',
          "Invalid input for dns_nameservers. Reason: Duplicate nameserver '1.1.1.1'.",
        ],
        [
          'a DNS server that is not an address',
          { cidr: '10.15.0.0/24', ip_version: 4, dns_nameservers: ['nope'] },
          400,
          'HTTPBadRequest',
          "Invalid input for dns_nameservers. Reason: 'nope' is not a valid nameserver. 'nope' is not a valid IP address.",
        ],
        [
          'an IPv6 DNS server on IPv4',
          { cidr: '10.15.0.0/24', ip_version: 4, dns_nameservers: ['2001:db8::1'] },
          400,
          ...invalidInput("dns_nameserver '2001:db8::1' does not match the ip_version '4'"),
        ],
        [
          '21 host routes',
          {
            cidr: '10.16.0.0/24',
            ip_version: 4,
            host_routes: Array.from({ length: 21 }, (_, i) => ({
              destination: `192.168.${i}.0/24`,
              nexthop: '10.16.0.1',
            })),
          },
          400,
          'HostRoutesExhausted',
          'Unable to complete operation for new subnet. The number of host routes exceeds the limit 20.',
        ],
        [
          'a route to a bad destination',
          { cidr: '10.16.0.0/24', ip_version: 4, host_routes: [{ destination: 'bad', nexthop: '10.16.0.1' }] },
          400,
          'HTTPBadRequest',
          "Invalid input for host_routes. Reason: 'bad' is not a valid CIDR.",
        ],
        [
          'a route destination with host bits',
          {
            cidr: '10.16.0.0/24',
            ip_version: 4,
            host_routes: [{ destination: '192.168.0.5/24', nexthop: '10.16.0.1' }],
          },
          400,
          'HTTPBadRequest',
          "Invalid input for host_routes. Reason: '192.168.0.5/24' is not a valid CIDR.",
        ],
        [
          'a route via a bad nexthop',
          { cidr: '10.16.0.0/24', ip_version: 4, host_routes: [{ destination: '192.168.0.0/24', nexthop: 'x' }] },
          400,
          'HTTPBadRequest',
          "Invalid input for host_routes. Reason: 'x' is not a valid IP address.",
        ],
        [
          'a duplicate route',
          {
            cidr: '10.16.0.0/24',
            ip_version: 4,
            host_routes: [
              { destination: '192.168.0.0/24', nexthop: '10.16.0.1' },
              { destination: '192.168.0.0/24', nexthop: '10.16.0.1' },
            ],
          },
          400,
          'HTTPBadRequest',
          "Invalid input for host_routes. Reason: Duplicate hostroute '{'destination': '192.168.0.0/24', 'nexthop': '10.16.0.1'}'.",
        ],
        [
          'an IPv6 route on IPv4',
          {
            cidr: '10.16.0.0/24',
            ip_version: 4,
            host_routes: [{ destination: '2001:db8::/64', nexthop: '2001:db8::1' }],
          },
          400,
          ...invalidInput("nexthop '2001:db8::1' does not match the ip_version '4'"),
        ],
        [
          'ipv6_ra_mode on IPv4',
          { cidr: '10.17.0.0/24', ip_version: 4, ipv6_ra_mode: 'slaac' },
          400,
          ...invalidInput('ipv6_ra_mode is not valid when ip_version is 4'),
        ],
        [
          'ipv6_address_mode on IPv4',
          { cidr: '10.17.0.0/24', ip_version: 4, ipv6_address_mode: 'slaac' },
          400,
          ...invalidInput('ipv6_address_mode is not valid when ip_version is 4'),
        ],
        [
          'an unknown IPv6 mode',
          { cidr: '2001:db8:11::/64', ip_version: 6, ipv6_ra_mode: 'foo' },
          400,
          'HTTPBadRequest',
          'Invalid input for ipv6_ra_mode. Reason: foo is not in valid_values.',
        ],
        [
          'two different IPv6 modes',
          { cidr: '2001:db8:11::/64', ip_version: 6, ipv6_ra_mode: 'slaac', ipv6_address_mode: 'dhcpv6-stateful' },
          400,
          ...invalidInput(
            "ipv6_ra_mode set to 'slaac' with ipv6_address_mode set to 'dhcpv6-stateful' is not valid. If both attributes are set, they must be the same value",
          ),
        ],
        [
          'an IPv6 mode without DHCP',
          { cidr: '2001:db8:11::/64', ip_version: 6, ipv6_address_mode: 'slaac', enable_dhcp: false },
          400,
          ...invalidInput('ipv6_ra_mode or ipv6_address_mode cannot be set when enable_dhcp is set to False'),
        ],
        [
          'SLAAC on a /80',
          { cidr: '2001:db8:12::/80', ip_version: 6, ipv6_address_mode: 'slaac' },
          400,
          ...invalidInput(
            'Invalid CIDR 2001:db8:12::/80 for IPv6 address mode. OpenStack uses the EUI-64 address format, which requires the prefix to be /64',
          ),
        ],
        [
          'DHCPv6-stateless on a /56',
          {
            cidr: '2001:db8:13::/56',
            ip_version: 6,
            ipv6_ra_mode: 'dhcpv6-stateless',
            ipv6_address_mode: 'dhcpv6-stateless',
          },
          400,
          ...invalidInput(
            'Invalid CIDR 2001:db8:13::/56 for IPv6 address mode. OpenStack uses the EUI-64 address format, which requires the prefix to be /64',
          ),
        ],
        [
          'enable_dhcp that is no boolean',
          { cidr: '10.19.0.0/24', ip_version: 4, enable_dhcp: 'maybe' },
          400,
          ...invalidInput("'maybe' cannot be converted to boolean"),
        ],
        [
          'status',
          { cidr: '10.19.0.0/24', ip_version: 4, status: 'ACTIVE' },
          400,
          'HTTPBadRequest',
          "Unrecognized attribute(s) 'status'",
        ],
        [
          'shared',
          { cidr: '10.19.0.0/24', ip_version: 4, shared: true },
          400,
          'HTTPBadRequest',
          "Attribute 'shared' not allowed in POST",
        ],
        [
          'tags',
          { cidr: '10.19.0.0/24', ip_version: 4, tags: ['a'] },
          400,
          'HTTPBadRequest',
          "Attribute 'tags' not allowed in POST",
        ],
        [
          'an unknown service type',
          { cidr: '10.8.0.0/24', ip_version: 4, service_types: ['foo'] },
          400,
          'InvalidSubnetServiceType',
          'Subnet service type foo does not correspond to a valid device owner.',
        ],
        [
          'a service type that is no string',
          { cidr: '10.8.0.0/24', ip_version: 4, service_types: [1] },
          400,
          'InvalidInputSubnetServiceType',
          'Subnet service type 1 is not a string.',
        ],
        [
          'service types that are not a list',
          { cidr: '10.8.0.0/24', ip_version: 4, service_types: 'network:x' },
          400,
          'HTTPBadRequest',
          'Subnet service types must be a list.',
        ],
      ];
      for (const [what, body, status, type, message] of cases) {
        it(`refuses ${what}`, async () => {
          assertError(await tryCreate(body), status, type, message);
        });
      }

      it("accepts a service type starting with one of compute:'s letters, as neutron-lib does", async () => {
        // neutron-lib extends its prefix list with the string 'compute:', i.e. with its characters;
        // neutron-tempest-plugin's service-type tests rely on it.
        const s = await created({ cidr: '10.15.0.0/24', ip_version: 4, service_types: ['test:type_1', 'network:x'] });
        assert.deepEqual(s.service_types, ['network:x', 'test:type_1']);
        assertError(
          await tryCreate({ cidr: '10.16.0.0/24', ip_version: 4, service_types: ['fest:type'] }),
          400,
          'InvalidSubnetServiceType',
          'Subnet service type fest:type does not correspond to a valid device owner.',
        );
      });

      it('refuses a pool without an end, naming the expected keys', async () => {
        const r = await tryCreate({ cidr: '10.14.0.0/24', ip_version: 4, allocation_pools: [{ start: '10.14.0.2' }] });
        assert.equal(r.status, 400);
        assert.equal(r.body.NeutronError.type, 'HTTPBadRequest');
        // Python prints the expected keys as a set, in no fixed order.
        assert.match(
          r.body.NeutronError.message,
          /^Invalid input for allocation_pools\. Reason: Validation of dictionary's keys failed\. Expected keys: \{'(start|end)', '(start|end)'\} Provided keys: \{'start'\}\.$/,
        );
      });

      it('refuses an unknown network, a malformed network id and an unknown subnet pool', async () => {
        const client = member();
        const missing = '11111111-2222-3333-4444-555555555555';
        const unknown = await client.post('/v2.0/subnets', {
          subnet: { network_id: missing, cidr: '10.18.0.0/24', ip_version: 4 },
        });
        assertError(unknown, 404, 'NetworkNotFound', `Network ${missing} could not be found.`);
        const malformed = await client.post('/v2.0/subnets', {
          subnet: { network_id: 'nope', cidr: '10.18.0.0/24', ip_version: 4 },
        });
        assertError(
          malformed,
          400,
          'HTTPBadRequest',
          "Invalid input for network_id. Reason: 'nope' is not a valid UUID.",
        );
        const r = await tryCreate({ ip_version: 4, subnetpool_id: missing }, client);
        assertError(r, 404, 'SubnetPoolNotFound', `Subnet pool ${missing} could not be found.`);
      });
    });

    describe('update', () => {
      async function subnetToUpdate(cidr = '10.20.0.0/24') {
        const client = member();
        const { network, subnet } = await networkWithSubnet(client, cidr);
        const put = (body: Body) => client.put(`/v2.0/subnets/${subnet.id}`, { subnet: body });
        return { client, network, subnet, put };
      }

      it('moves the gateway, refusing it inside a pool, and drops it with null', async () => {
        const { put } = await subnetToUpdate();
        assertError(
          await put({ gateway_ip: '10.20.0.254' }),
          409,
          'GatewayConflictWithAllocationPools',
          'Gateway ip 10.20.0.254 conflicts with allocation pool 10.20.0.2-10.20.0.254.',
        );
        const pools = await put({ allocation_pools: [pool('10.20.0.10', '10.20.0.50')] });
        assert.equal(pools.status, 200, pools.text);
        assert.deepEqual(pools.body.subnet.allocation_pools, [pool('10.20.0.10', '10.20.0.50')]);
        const moved = await put({ gateway_ip: '10.20.0.254' });
        assert.equal(moved.status, 200, moved.text);
        assert.equal(moved.body.subnet.gateway_ip, '10.20.0.254');
        assertError(
          await put({ gateway_ip: '10.20.0.20' }),
          409,
          'GatewayConflictWithAllocationPools',
          'Gateway ip 10.20.0.20 conflicts with allocation pool 10.20.0.10-10.20.0.50.',
        );
        assertError(
          await put({ allocation_pools: [pool('10.20.0.2', '10.20.0.9')], gateway_ip: '10.20.0.5' }),
          409,
          'GatewayConflictWithAllocationPools',
          'Gateway ip 10.20.0.5 conflicts with allocation pool 10.20.0.2-10.20.0.9.',
        );
        assertError(await put({ gateway_ip: '10.20.0.0' }), 400, ...invalidInput('Gateway is not valid on subnet'));
        assertError(
          await put({ gateway_ip: '2001:db8::1' }),
          400,
          ...invalidInput("gateway_ip '2001:db8::1' does not match the ip_version '4'"),
        );
        const none = await put({ gateway_ip: null });
        assert.equal(none.status, 200);
        assert.equal(none.body.subnet.gateway_ip, null);
      });

      it('replaces pools, refusing ones beyond the CIDR; an empty list leaves none', async () => {
        const { put } = await subnetToUpdate();
        assertError(
          await put({ allocation_pools: [pool('10.20.0.10', '10.20.1.50')] }),
          400,
          'OutOfBoundsAllocationPool',
          'The allocation pool 10.20.0.10-10.20.1.50 spans beyond the subnet cidr 10.20.0.0/24.',
        );
        const two = await put({
          allocation_pools: [pool('10.20.0.100', '10.20.0.110'), pool('10.20.0.10', '10.20.0.20')],
        });
        assert.equal(two.status, 200, two.text);
        assert.equal(two.body.subnet.allocation_pools.length, 2);
        const empty = await put({ allocation_pools: [] });
        assert.equal(empty.status, 200);
        assert.deepEqual(empty.body.subnet.allocation_pools, []);
      });

      it('replaces DNS servers and host routes; null empties them; limits apply', async () => {
        const { put, subnet } = await subnetToUpdate();
        const dns = await put({ dns_nameservers: ['9.9.9.9', '8.8.4.4'] });
        assert.deepEqual(dns.body.subnet.dns_nameservers, ['9.9.9.9', '8.8.4.4']);
        assert.deepEqual((await put({ dns_nameservers: null })).body.subnet.dns_nameservers, []);
        const routes = await put({ host_routes: [{ destination: '172.16.0.0/12', nexthop: '10.20.0.1' }] });
        assert.deepEqual(routes.body.subnet.host_routes, [{ destination: '172.16.0.0/12', nexthop: '10.20.0.1' }]);
        assertError(
          await put({
            host_routes: Array.from({ length: 21 }, (_, i) => ({
              destination: `192.168.${i}.0/24`,
              nexthop: '10.20.0.1',
            })),
          }),
          400,
          'HostRoutesExhausted',
          `Unable to complete operation for ${subnet.id}. The number of host routes exceeds the limit 20.`,
        );
        assert.deepEqual((await put({ host_routes: null })).body.subnet.host_routes, []);
      });

      it('turns DHCP on and off, renames, sets service types', async () => {
        const { put } = await subnetToUpdate();
        assert.equal((await put({ enable_dhcp: true })).body.subnet.enable_dhcp, true);
        assert.equal((await put({ enable_dhcp: false })).body.subnet.enable_dhcp, false);
        const named = await put({ name: 'x', description: 'd', service_types: ['compute:nova'] });
        assert.deepEqual(
          [named.body.subnet.name, named.body.subnet.description, named.body.subnet.service_types],
          ['x', 'd', ['compute:nova']],
        );
        assertError(
          await put({ service_types: ['bogus'] }),
          400,
          'InvalidSubnetServiceType',
          'Subnet service type bogus does not correspond to a valid device owner.',
        );
      });

      it('refuses read-only attributes and bulk bodies', async () => {
        const { put, client, subnet, network } = await subnetToUpdate();
        const readOnly: [string, unknown][] = [
          ['cidr', '10.21.0.0/24'],
          ['ip_version', 4],
          ['network_id', network.id],
          ['ipv6_ra_mode', 'slaac'],
        ];
        for (const [attr, value] of readOnly) {
          assertError(await put({ [attr]: value }), 400, 'HTTPBadRequest', `Cannot update read-only attribute ${attr}`);
        }
        const bulk = await client.put(`/v2.0/subnets/${subnet.id}`, { subnets: [{}] });
        assertError(bulk, 400, 'HTTPBadRequest', 'Bulk operation not supported');
      });
    });

    describe('revisions of the network', () => {
      it('every subnet create, update (even empty) and delete bumps the network; a port does not', async () => {
        const client = member();
        const network = await createNetwork(client);
        const revision = async () => (await client.get(`/v2.0/networks/${network.id}`)).body.network.revision_number;
        let last = await revision();
        const subnet = await createSubnet(client, network.id, { cidr: '10.30.0.0/24' });
        const afterCreate = await revision();
        assert.ok(afterCreate > last, 'create bumps');
        const empty = await client.put(`/v2.0/subnets/${subnet.id}`, { subnet: {} });
        assert.equal(empty.status, 200);
        assert.ok(empty.body.subnet.revision_number > subnet.revision_number, 'an empty subnet PUT revises the subnet');
        const afterEmpty = await revision();
        assert.ok(afterEmpty > afterCreate, 'an empty subnet PUT bumps the network');
        const port = await createPort(client, network.id);
        assert.equal(await revision(), afterEmpty, 'a port does not');
        await client.delete(`/v2.0/ports/${port.id}`);
        last = await revision();
        assert.equal((await client.delete(`/v2.0/subnets/${subnet.id}`)).status, 204);
        assert.ok((await revision()) > last, 'delete bumps');
        const shown = (await client.get(`/v2.0/networks/${network.id}`)).body.network;
        assert.deepEqual(shown.subnets, []);
      });
    });

    describe('delete', () => {
      it('refuses a subnet whose addresses ports hold, then deletes it once they are gone', async () => {
        const client = member();
        const { network, subnet } = await networkWithSubnet(client, '10.31.0.0/24');
        const port = await createPort(client, network.id);
        assertError(
          await client.delete(`/v2.0/subnets/${subnet.id}`),
          409,
          'SubnetInUse',
          `Unable to complete operation on subnet ${subnet.id}: One or more ports have an IP allocation from this subnet.`,
        );
        assert.equal((await client.delete(`/v2.0/ports/${port.id}`)).status, 204);
        assert.equal((await client.delete(`/v2.0/subnets/${subnet.id}`)).status, 204);
        assertError(
          await client.get(`/v2.0/subnets/${subnet.id}`),
          404,
          'SubnetNotFound',
          `Subnet ${subnet.id} could not be found.`,
        );
        assertError(
          await client.delete(`/v2.0/subnets/${subnet.id}`),
          404,
          'SubnetNotFound',
          `Subnet ${subnet.id} could not be found.`,
        );
      });
    });

    describe('visibility', () => {
      it("hides another project's subnet (404) and refuses subnets on its network", async () => {
        const owner = member();
        const other = member();
        const { network, subnet } = await networkWithSubnet(owner, '10.40.0.0/24');
        const notFound = `Subnet ${subnet.id} could not be found.`;
        assertError(await other.get(`/v2.0/subnets/${subnet.id}`), 404, 'SubnetNotFound', notFound);
        assertError(
          await other.put(`/v2.0/subnets/${subnet.id}`, { subnet: { name: 'x' } }),
          404,
          'SubnetNotFound',
          notFound,
        );
        assertError(await other.delete(`/v2.0/subnets/${subnet.id}`), 404, 'SubnetNotFound', notFound);
        assert.deepEqual((await other.get(`/v2.0/subnets?network_id=${network.id}`)).body.subnets, []);
        // Master: the create_subnet policy (network owner only) answers; Zed answered 404 NetworkNotFound.
        const r = await other.post('/v2.0/subnets', {
          subnet: { network_id: network.id, cidr: '10.41.0.0/24', ip_version: 4 },
        });
        assertError(r, 403, 'PolicyNotAuthorized', 'rule:create_subnet is disallowed by policy');
      });

      it("shows a shared network's subnets to everyone, who may neither change them nor add one", async () => {
        const ownerProject = newProjectId();
        const other = member();
        const network = await createNetwork(api.admin, { shared: true, tenant_id: ownerProject });
        const subnet = await createSubnet(api.admin, network.id, { cidr: '10.42.0.0/24', tenant_id: ownerProject });
        const shown = await other.get(`/v2.0/subnets/${subnet.id}`);
        assert.equal(shown.status, 200);
        assert.equal(shown.body.subnet.project_id, ownerProject);
        assert.ok(!('shared' in shown.body.subnet), 'shared is hidden on subnets');
        const listed = await other.get(`/v2.0/subnets?network_id=${network.id}`);
        assert.deepEqual(
          listed.body.subnets.map((s: Item) => s.id),
          [subnet.id],
        );
        assertError(
          await other.put(`/v2.0/subnets/${subnet.id}`, { subnet: { name: 'x' } }),
          403,
          'PolicyNotAuthorized',
          'rule:update_subnet is disallowed by policy',
        );
        assertError(
          await other.delete(`/v2.0/subnets/${subnet.id}`),
          403,
          'PolicyNotAuthorized',
          'rule:delete_subnet is disallowed by policy',
        );
        const add = await other.post('/v2.0/subnets', {
          subnet: { network_id: network.id, cidr: '10.43.0.0/24', ip_version: 4 },
        });
        assertError(add, 403, 'PolicyNotAuthorized', 'rule:create_subnet is disallowed by policy');
      });

      it("keeps a non-shared external network's subnets from other projects, as Zed; router:external is read-only", async () => {
        const other = member();
        const network = await createNetwork(api.admin, { 'router:external': true, tenant_id: newProjectId() });
        const subnet = await createSubnet(api.admin, network.id, { cidr: '10.45.0.0/24', enable_dhcp: false });
        assert.equal((await other.get(`/v2.0/subnets/${subnet.id}`)).status, 404);
        assert.deepEqual((await other.get(`/v2.0/subnets?network_id=${network.id}`)).body.subnets, []);
        const asAdmin = (await api.admin.get(`/v2.0/subnets/${subnet.id}`)).body.subnet;
        assert.equal(asAdmin['router:external'], true);
        const ids = async (query: string) =>
          (await api.admin.get(`/v2.0/subnets?network_id=${network.id}${query}`)).body.subnets.map((s: Item) => s.id);
        assert.deepEqual(await ids('&router:external=True'), [subnet.id]);
        assert.deepEqual(await ids('&router:external=false'), []);
        const own = await networkWithSubnet(other, '10.46.0.0/24');
        assert.equal(own.subnet['router:external'], false);
        assertError(
          await other.put(`/v2.0/subnets/${own.subnet.id}`, { subnet: { 'router:external': false } }),
          400,
          'HTTPBadRequest',
          'Cannot update read-only attribute router:external',
        );
      });

      it('a reader may not create a subnet', async () => {
        const project = newProjectId();
        const network = await createNetwork(member(project));
        const r = await api.as({ project, roles: ['reader'] }).post('/v2.0/subnets', {
          subnet: { network_id: network.id, cidr: '10.44.0.0/24', ip_version: 4 },
        });
        assertError(r, 403, 'PolicyNotAuthorized', 'rule:create_subnet is disallowed by policy');
      });
    });

    describe('service types', () => {
      it('reserves a subnet for its device owners, others fall back to unreserved subnets', async () => {
        const client = member();
        const network = await createNetwork(client);
        const reserved = await createSubnet(client, network.id, {
          cidr: '10.50.0.0/24',
          service_types: ['compute:nova'],
        });
        assert.deepEqual(reserved.service_types, ['compute:nova']);
        const compute = await createPort(client, network.id, { device_owner: 'compute:nova' });
        assert.equal(compute.fixed_ips[0].subnet_id, reserved.id);
        const plain = await client.post('/v2.0/ports', { port: { network_id: network.id } });
        assertError(
          plain,
          409,
          'IpAddressGenerationFailureNoMatchingSubnet',
          `No valid service subnet for the given device owner, network ${network.id}, service type .`,
        );
        const explicit = await client.post('/v2.0/ports', {
          port: { network_id: network.id, fixed_ips: [{ subnet_id: reserved.id }] },
        });
        assertError(
          explicit,
          409,
          'IpAddressGenerationFailureNoMatchingSubnet',
          `No valid service subnet for the given device owner, network ${network.id}, service type .`,
        );
        const open = await createSubnet(client, network.id, { cidr: '10.51.0.0/24' });
        const otherOwner = await createPort(client, network.id, {
          device_owner: 'compute:az2',
          fixed_ips: [{ subnet_id: open.id, ip_address: '10.51.0.10' }],
        });
        assert.equal(otherOwner.fixed_ips[0].ip_address, '10.51.0.10');
        const now = await createPort(client, network.id);
        assert.equal(now.fixed_ips[0].subnet_id, open.id);
        const wrongSubnet = await client.post('/v2.0/ports', {
          port: { network_id: network.id, fixed_ips: [{ subnet_id: reserved.id }] },
        });
        assertError(
          wrongSubnet,
          400,
          ...invalidInput(
            `Failed to create port on network ${network.id}, because fixed_ips included invalid subnet ${reserved.id}`,
          ),
        );
      });
    });
  });
}
