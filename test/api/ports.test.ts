/**
 * Ports over HTTP, checked against Neutron master (Zed anchor where they agree): MAC addresses,
 * fixed IPs (create and update), IPv6 auto addresses, allowed address pairs, port security and
 * security groups, extra DHCP options, binding attributes, DNS, tags, owners, delete and
 * visibility; on both stores.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BACKENDS, newProjectId, useApi, type Client } from '../fixtures/api.js';
import { assertError } from '../fixtures/errors.js';
import {
  addresses,
  createNetwork,
  createPort,
  createSubnet,
  networkWithSubnet,
  type Body,
  type Item,
} from '../fixtures/topology.js';

const BINDING_ADMIN_ONLY = ['binding:host_id', 'binding:profile', 'binding:vif_type', 'binding:vif_details'];
const invalidInput = (message: string) => ['InvalidInput', `Invalid input for operation: ${message}.`] as const;
const sortedOpts = (opts: Item[]) =>
  [...opts].sort((a, b) => `${a.opt_name}/${a.ip_version}`.localeCompare(`${b.opt_name}/${b.ip_version}`));

for (const backend of BACKENDS) {
  describe(`ports (${backend})`, () => {
    const api = useApi(backend);
    const member = (project = newProjectId()) => api.as({ project });

    /** A member's network with 10.0.0.0/24 and a POST helper for ports on it. */
    async function setup(cidr = '10.0.0.0/24') {
      const project = newProjectId();
      const client = member(project);
      const { network, subnet } = await networkWithSubnet(client, cidr);
      const post = (body: Body) => client.post('/v2.0/ports', { port: { network_id: network.id, ...body } });
      return { project, client, network, subnet, post };
    }

    describe('MAC addresses', () => {
      it('generates distinct MACs under fa:16:3e', async () => {
        const { client, network } = await setup();
        const macs = new Set<string>();
        for (let i = 0; i < 12; i++) {
          const port = await createPort(client, network.id, { fixed_ips: [] });
          assert.match(port.mac_address, /^fa:16:3e(:[0-9a-f]{2}){3}$/);
          macs.add(port.mac_address);
        }
        assert.equal(macs.size, 12);
      });

      it('takes a given MAC, refuses it again on the same network but not on another', async () => {
        const { client, network, post } = await setup();
        const port = await createPort(client, network.id, { mac_address: 'fa:16:3e:aa:bb:cc', fixed_ips: [] });
        assert.equal(port.mac_address, 'fa:16:3e:aa:bb:cc');
        assertError(
          await post({ mac_address: 'fa:16:3e:aa:bb:cc', fixed_ips: [] }),
          409,
          'MacAddressInUse',
          `Unable to complete operation for network ${network.id}. The mac address fa:16:3e:aa:bb:cc is in use.`,
        );
        const other = await createNetwork(client);
        const again = await createPort(client, other.id, { mac_address: 'fa:16:3e:aa:bb:cc' });
        assert.equal(again.mac_address, 'fa:16:3e:aa:bb:cc');
      });

      // A deliberate difference: Neutron stores a given MAC as written and then misses duplicates
      // spelt differently; octonet stores the canonical form, so every spelling collides.
      it('stores a given MAC in canonical form and refuses it in any other spelling', async () => {
        const { client, network, post } = await setup();
        const upper = await createPort(client, network.id, { mac_address: 'FA:16:3E:AA:BB:CD', fixed_ips: [] });
        assert.equal(upper.mac_address, 'fa:16:3e:aa:bb:cd');
        const dashes = await createPort(client, network.id, { mac_address: 'fa-16-3e-aa-bb-ce', fixed_ips: [] });
        assert.equal(dashes.mac_address, 'fa:16:3e:aa:bb:ce');
        assertError(
          await post({ mac_address: 'FA-16-3E-AA-BB-CD', fixed_ips: [] }),
          409,
          'MacAddressInUse',
          `Unable to complete operation for network ${network.id}. The mac address fa:16:3e:aa:bb:cd is in use.`,
        );
      });

      it('refuses a malformed or all-zero MAC; null asks for a generated one', async () => {
        const { post } = await setup();
        assertError(
          await post({ mac_address: 'zz:zz' }),
          400,
          'HTTPBadRequest',
          "Invalid input for mac_address. Reason: 'zz:zz' is not a valid MAC address.",
        );
        assertError(
          await post({ mac_address: '00:00:00:00:00:00' }),
          400,
          'HTTPBadRequest',
          "Invalid input for mac_address. Reason: '00:00:00:00:00:00' is not a valid MAC address.",
        );
        const generated = await post({ mac_address: null, fixed_ips: [] });
        assert.equal(generated.status, 201);
        assert.match(generated.body.port.mac_address, /^fa:16:3e:/);
      });
    });

    describe('fixed IPs on create', () => {
      it('allocates from the pools by default, by subnet, by address, by both', async () => {
        const { client, network, subnet } = await setup();
        // Explicit addresses first: automatic ones are random and could take them.
        const byAddress = await createPort(client, network.id, { fixed_ips: [{ ip_address: '10.0.0.10' }] });
        assert.deepEqual(byAddress.fixed_ips, [{ subnet_id: subnet.id, ip_address: '10.0.0.10' }]);
        const both = await createPort(client, network.id, {
          fixed_ips: [{ subnet_id: subnet.id, ip_address: '10.0.0.11' }],
        });
        assert.deepEqual(both.fixed_ips, [{ subnet_id: subnet.id, ip_address: '10.0.0.11' }]);
        const two = await createPort(client, network.id, {
          fixed_ips: [{ ip_address: '10.0.0.12' }, { subnet_id: subnet.id, ip_address: '10.0.0.13' }],
        });
        assert.deepEqual(addresses(two), ['10.0.0.12', '10.0.0.13']);
        const auto = await createPort(client, network.id);
        assert.equal(auto.fixed_ips.length, 1);
        assert.equal(auto.fixed_ips[0].subnet_id, subnet.id);
        assert.match(auto.fixed_ips[0].ip_address, /^10\.0\.0\.([2-9]|[1-9]\d|1\d\d|2[0-4]\d|25[0-4])$/);
        assert.equal(auto.ip_allocation, 'immediate');
        const bySubnet = await createPort(client, network.id, { fixed_ips: [{ subnet_id: subnet.id }] });
        assert.equal(bySubnet.fixed_ips[0].subnet_id, subnet.id);
      });

      it('fixed_ips [] makes a port without addresses (ip_allocation none)', async () => {
        const { client, network } = await setup();
        const port = await createPort(client, network.id, { fixed_ips: [] });
        assert.deepEqual(port.fixed_ips, []);
        assert.equal(port.ip_allocation, 'none');
      });

      it('the gateway and addresses outside the pools may be asked for explicitly', async () => {
        const { client, network, subnet } = await setup();
        const gateway = await createPort(client, network.id, { fixed_ips: [{ ip_address: '10.0.0.1' }] });
        assert.deepEqual(addresses(gateway), ['10.0.0.1']);
        const narrowed = await client.put(`/v2.0/subnets/${subnet.id}`, {
          subnet: { allocation_pools: [{ start: '10.0.0.100', end: '10.0.0.110' }] },
        });
        assert.equal(narrowed.status, 200, narrowed.text);
        const outside = await createPort(client, network.id, { fixed_ips: [{ ip_address: '10.0.0.254' }] });
        assert.deepEqual(addresses(outside), ['10.0.0.254']);
      });

      it('refuses what Neutron refuses, with its messages', async () => {
        const { client, network, subnet, post } = await setup();
        const other = await networkWithSubnet(client, '10.1.0.0/24');
        await createPort(client, network.id, { fixed_ips: [{ ip_address: '10.0.0.10' }] });
        const missing = '11111111-2222-3333-4444-555555555555';
        const cases: [string, Body, number, string, string][] = [
          [
            'no subnet and no address',
            { fixed_ips: [{}] },
            400,
            ...invalidInput('IP allocation requires subnet_id or ip_address'),
          ],
          [
            'an address outside the subnet',
            { fixed_ips: [{ subnet_id: subnet.id, ip_address: '10.1.0.5' }] },
            400,
            'InvalidIpForSubnet',
            'IP address 10.1.0.5 is not a valid IP for the specified subnet.',
          ],
          [
            'an address on no subnet',
            { fixed_ips: [{ ip_address: '10.99.0.5' }] },
            400,
            'InvalidIpForNetwork',
            'IP address 10.99.0.5 is not a valid IP for any of the subnets on the specified network.',
          ],
          [
            'the network address',
            { fixed_ips: [{ ip_address: '10.0.0.0' }] },
            400,
            'InvalidIpForNetwork',
            'IP address 10.0.0.0 is not a valid IP for any of the subnets on the specified network.',
          ],
          [
            'the broadcast address',
            { fixed_ips: [{ ip_address: '10.0.0.255' }] },
            400,
            'InvalidIpForNetwork',
            'IP address 10.0.0.255 is not a valid IP for any of the subnets on the specified network.',
          ],
          [
            'an address in use',
            { fixed_ips: [{ ip_address: '10.0.0.10' }] },
            409,
            'IpAddressAlreadyAllocated',
            `IP address 10.0.0.10 already allocated in subnet ${subnet.id}`,
          ],
          [
            'an address in use, by subnet',
            { fixed_ips: [{ subnet_id: subnet.id, ip_address: '10.0.0.10' }] },
            409,
            'IpAddressAlreadyAllocated',
            `IP address 10.0.0.10 already allocated in subnet ${subnet.id}`,
          ],
          [
            'one address twice',
            { fixed_ips: [{ ip_address: '10.0.0.20' }, { ip_address: '10.0.0.20' }] },
            400,
            'HTTPBadRequest',
            "Invalid input for fixed_ips. Reason: Duplicate IP address '10.0.0.20'.",
          ],
          [
            'a subnet of another network',
            { fixed_ips: [{ subnet_id: other.subnet.id }] },
            400,
            ...invalidInput(
              `Failed to create port on network ${network.id}, because fixed_ips included invalid subnet ${other.subnet.id}`,
            ),
          ],
          [
            'an unknown subnet',
            { fixed_ips: [{ subnet_id: missing }] },
            404,
            'SubnetNotFound',
            `Subnet ${missing} could not be found.`,
          ],
          [
            'a malformed subnet id',
            { fixed_ips: [{ subnet_id: 'x' }] },
            400,
            'HTTPBadRequest',
            "Invalid input for fixed_ips. Reason: 'x' is not a valid UUID.",
          ],
          [
            'a malformed address',
            { fixed_ips: [{ ip_address: 'x' }] },
            400,
            'HTTPBadRequest',
            "Invalid input for fixed_ips. Reason: 'x' is not a valid IP address.",
          ],
          [
            'fixed_ips that are not a list',
            { fixed_ips: 'x' },
            400,
            'HTTPBadRequest',
            "Invalid input for fixed_ips. Reason: Invalid data format for fixed IP: 'x'.",
          ],
          [
            'a fixed IP that is not a dict',
            { fixed_ips: ['x'] },
            400,
            'HTTPBadRequest',
            "Invalid input for fixed_ips. Reason: Invalid data format for fixed IP: 'x'.",
          ],
        ];
        for (const [what, body, status, type, message] of cases) {
          const r = await post(body);
          assert.equal(r.status, status, `${what}: ${r.text}`);
          assert.deepEqual(r.body, { NeutronError: { type, message, detail: '' } }, what);
        }
      });

      it('a network without subnets gives ports no address, and refuses asked-for ones', async () => {
        const client = member();
        const network = await createNetwork(client);
        const port = await createPort(client, network.id);
        assert.deepEqual(port.fixed_ips, []);
        const r = await client.post('/v2.0/ports', {
          port: { network_id: network.id, fixed_ips: [{ ip_address: '10.0.0.5' }] },
        });
        assertError(r, 400, ...invalidInput('IP allocation requires subnets for network'));
      });

      it('runs out of addresses on a small subnet (IpAddressGenerationFailure)', async () => {
        const { client, network, subnet, post } = await setup('10.40.0.0/29');
        const seen = new Set<string>();
        for (let i = 0; i < 5; i++) for (const ip of addresses(await createPort(client, network.id))) seen.add(ip);
        assert.deepEqual([...seen].sort(), ['10.40.0.2', '10.40.0.3', '10.40.0.4', '10.40.0.5', '10.40.0.6']);
        const message = `No more IP addresses available on network ${network.id}.`;
        assertError(await post({}), 409, 'IpAddressGenerationFailure', message);
        assertError(await post({ fixed_ips: [{ subnet_id: subnet.id }] }), 409, 'IpAddressGenerationFailure', message);
        assert.equal((await post({ fixed_ips: [] })).status, 201);
      });

      it('picks among the first 1000 addresses of a large pool, not anywhere in it', async () => {
        const client = member();
        const network = await createNetwork(client);
        await createSubnet(client, network.id, {
          cidr: '2001:db8:51::/64',
          ipv6_ra_mode: 'dhcpv6-stateful',
          ipv6_address_mode: 'dhcpv6-stateful',
          enable_dhcp: true,
        });
        for (let i = 0; i < 5; i++) {
          const [ip] = addresses(await createPort(client, network.id));
          assert.match(ip!, /^2001:db8:51::[0-9a-f]{1,3}$/);
          assert.ok(parseInt(ip!.split('::')[1]!, 16) <= 1000, ip);
        }
      });
    });

    describe('IPv6 auto addresses', () => {
      async function slaacNetwork() {
        const { client, network, subnet: v4, post } = await setup('10.50.0.0/24');
        const slaac = await createSubnet(client, network.id, {
          cidr: '2001:db8:50::/64',
          ipv6_ra_mode: 'slaac',
          ipv6_address_mode: 'slaac',
          enable_dhcp: true,
        });
        return { client, network, v4, slaac, post };
      }

      it('every port gets its EUI-64 address, even with fixed_ips [] or other subnets asked for', async () => {
        const { client, network, v4, slaac } = await slaacNetwork();
        const v4Only = await createPort(client, network.id, {
          mac_address: 'fa:16:3e:11:22:33',
          fixed_ips: [{ subnet_id: v4.id, ip_address: '10.50.0.5' }],
        });
        assert.deepEqual(v4Only.fixed_ips, [
          { subnet_id: v4.id, ip_address: '10.50.0.5' },
          { subnet_id: slaac.id, ip_address: '2001:db8:50:0:f816:3eff:fe11:2233' },
        ]);
        const plain = await createPort(client, network.id, { mac_address: 'fa:16:3e:11:22:34' });
        assert.deepEqual(
          plain.fixed_ips.map((f: Item) => f.subnet_id),
          [v4.id, slaac.id],
        );
        assert.equal(plain.fixed_ips[1].ip_address, '2001:db8:50:0:f816:3eff:fe11:2234');
        const empty = await createPort(client, network.id, { mac_address: 'fa:16:3e:11:22:37', fixed_ips: [] });
        assert.deepEqual(empty.fixed_ips, [{ subnet_id: slaac.id, ip_address: '2001:db8:50:0:f816:3eff:fe11:2237' }]);
        assert.equal(empty.ip_allocation, 'none');
        const bySubnet = await createPort(client, network.id, {
          mac_address: 'fa:16:3e:11:22:36',
          fixed_ips: [{ subnet_id: slaac.id }],
        });
        assert.deepEqual(addresses(bySubnet), ['2001:db8:50:0:f816:3eff:fe11:2236']);
        // Master accepts the port's own EUI-64 address (Zed refused it).
        const own = await createPort(client, network.id, {
          mac_address: 'fa:16:3e:11:22:35',
          fixed_ips: [{ ip_address: '2001:db8:50:0:f816:3eff:fe11:2235' }],
        });
        assert.deepEqual(addresses(own), ['2001:db8:50:0:f816:3eff:fe11:2235']);
      });

      it('refuses any other address on an auto-address subnet (AllocationOnAutoAddressSubnet)', async () => {
        const { slaac, post } = await slaacNetwork();
        const message = (ip: string) =>
          `IPv6 address ${ip} cannot be directly assigned to a port on subnet ${slaac.id} as the subnet is configured for automatic addresses`;
        assertError(
          await post({ fixed_ips: [{ ip_address: '2001:db8:50::5' }] }),
          400,
          'AllocationOnAutoAddressSubnet',
          message('2001:db8:50::5'),
        );
        assertError(
          await post({ fixed_ips: [{ subnet_id: slaac.id, ip_address: '2001:db8:50::6' }] }),
          400,
          'AllocationOnAutoAddressSubnet',
          message('2001:db8:50::6'),
        );
      });

      it('router interfaces take an explicit address and no EUI-64 one', async () => {
        const { client, network, slaac } = await slaacNetwork();
        const router = await createPort(client, network.id, {
          device_owner: 'network:router_interface',
          fixed_ips: [{ subnet_id: slaac.id, ip_address: '2001:db8:50::' }],
        });
        assert.deepEqual(router.fixed_ips, [{ subnet_id: slaac.id, ip_address: '2001:db8:50::' }]);
      });

      it('a MAC change moves the EUI-64 address; members may not change MACs', async () => {
        const { client, network, v4, slaac } = await slaacNetwork();
        const port = await createPort(client, network.id, {
          mac_address: 'fa:16:3e:11:22:33',
          fixed_ips: [{ subnet_id: v4.id, ip_address: '10.50.0.5' }],
        });
        assertError(
          await client.put(`/v2.0/ports/${port.id}`, { port: { mac_address: 'fa:16:3e:aa:aa:aa' } }),
          403,
          'PolicyNotAuthorized',
          '(rule:update_port and rule:update_port:mac_address) is disallowed by policy',
        );
        const r = await api.admin.put(`/v2.0/ports/${port.id}`, { port: { mac_address: 'fa:16:3e:aa:aa:ab' } });
        assert.equal(r.status, 200, r.text);
        assert.equal(r.body.port.mac_address, 'fa:16:3e:aa:aa:ab');
        assert.deepEqual(r.body.port.fixed_ips, [
          { subnet_id: v4.id, ip_address: '10.50.0.5' },
          { subnet_id: slaac.id, ip_address: '2001:db8:50:0:f816:3eff:feaa:aaab' },
        ]);
      });
    });

    describe('fixed IPs on update', () => {
      it('keeps named addresses, adds new ones, drops unnamed ones, reuses by subnet', async () => {
        const { client, network, subnet } = await setup();
        const port = await createPort(client, network.id, { fixed_ips: [{ ip_address: '10.0.0.5' }] });
        const put = (fixed_ips: Body[]) => client.put(`/v2.0/ports/${port.id}`, { port: { fixed_ips } });
        assert.deepEqual(addresses((await put([{ ip_address: '10.0.0.5' }])).body.port), ['10.0.0.5']);
        assert.deepEqual(addresses((await put([{ ip_address: '10.0.0.5' }, { ip_address: '10.0.0.6' }])).body.port), [
          '10.0.0.5',
          '10.0.0.6',
        ]);
        assert.deepEqual(addresses((await put([{ ip_address: '10.0.0.6' }])).body.port), ['10.0.0.6']);
        assert.deepEqual(addresses((await put([{ subnet_id: subnet.id }])).body.port), ['10.0.0.6']);
        const more = await put([{ subnet_id: subnet.id }, { subnet_id: subnet.id }]);
        assert.equal(more.body.port.fixed_ips.length, 2);
        assert.ok(addresses(more.body.port).includes('10.0.0.6'));
        const none = await put([]);
        assert.deepEqual(none.body.port.fixed_ips, []);
        const taken = await createPort(client, network.id, { fixed_ips: [{ ip_address: '10.0.0.7' }] });
        assertError(
          await put([{ ip_address: '10.0.0.7' }]),
          409,
          'IpAddressAlreadyAllocated',
          `IP address 10.0.0.7 already allocated in subnet ${subnet.id}`,
        );
        assert.deepEqual(addresses(taken), ['10.0.0.7']);
        // The address given up is free again, even within the same request.
        const swap = await put([{ ip_address: '10.0.0.8' }]);
        assert.deepEqual(addresses(swap.body.port), ['10.0.0.8']);
        const back = await client.put(`/v2.0/ports/${port.id}`, { port: { fixed_ips: [{ ip_address: '10.0.0.5' }] } });
        assert.deepEqual(addresses(back.body.port), ['10.0.0.5']);
      });

      it('keeps the EUI-64 address when other addresses change; refuses subnets of other networks', async () => {
        const client = member();
        const { network, subnet: v4 } = await networkWithSubnet(client, '10.60.0.0/24');
        const other = await networkWithSubnet(client, '10.61.0.0/24');
        const slaac = await createSubnet(client, network.id, {
          cidr: '2001:db8:60::/64',
          ipv6_ra_mode: 'slaac',
          ipv6_address_mode: 'slaac',
          enable_dhcp: true,
        });
        const port = await createPort(client, network.id, { mac_address: 'fa:16:3e:00:60:01' });
        const eui = { subnet_id: slaac.id, ip_address: '2001:db8:60:0:f816:3eff:fe00:6001' };
        const r = await client.put(`/v2.0/ports/${port.id}`, { port: { fixed_ips: [{ ip_address: '10.60.0.9' }] } });
        assert.deepEqual(r.body.port.fixed_ips, [{ subnet_id: v4.id, ip_address: '10.60.0.9' }, eui]);
        const empty = await client.put(`/v2.0/ports/${port.id}`, { port: { fixed_ips: [] } });
        assert.deepEqual(empty.body.port.fixed_ips, [eui]);
        assertError(
          await client.put(`/v2.0/ports/${port.id}`, { port: { fixed_ips: [{ subnet_id: other.subnet.id }] } }),
          400,
          ...invalidInput(
            `Failed to create port on network ${network.id}, because fixed_ips included invalid subnet ${other.subnet.id}`,
          ),
        );
      });
    });

    describe('allowed address pairs', () => {
      it('defaults the MAC to the port MAC and accepts CIDRs', async () => {
        const { client, network } = await setup();
        const port = await createPort(client, network.id, {
          mac_address: 'fa:16:3e:00:00:0a',
          allowed_address_pairs: [
            { ip_address: '10.0.0.100' },
            { ip_address: '192.168.0.0/24', mac_address: 'fa:16:3e:00:00:0b' },
            { ip_address: '0.0.0.0/0' },
          ],
        });
        // Neutron returns the pairs in database order; compare them as a set.
        const byIp = (pairs: Item[]) =>
          [...pairs].sort((x, y) => String(x.ip_address).localeCompare(String(y.ip_address)));
        assert.deepEqual(byIp(port.allowed_address_pairs), [
          { mac_address: 'fa:16:3e:00:00:0a', ip_address: '0.0.0.0/0' },
          { mac_address: 'fa:16:3e:00:00:0a', ip_address: '10.0.0.100' },
          { mac_address: 'fa:16:3e:00:00:0b', ip_address: '192.168.0.0/24' },
        ]);
        const cleared = await client.put(`/v2.0/ports/${port.id}`, { port: { allowed_address_pairs: null } });
        assert.deepEqual(cleared.body.port.allowed_address_pairs, []);
      });

      it('refuses too many, duplicates, a missing IP, malformed and multicast entries', async () => {
        const { post } = await setup();
        const cases: [string, unknown, number, string, string][] = [
          [
            'eleven pairs',
            Array.from({ length: 11 }, (_, i) => ({ ip_address: `10.60.1.${i}` })),
            400,
            'AllowedAddressPairExhausted',
            'The number of allowed address pair exceeds the maximum 10.',
          ],
          [
            'a duplicate',
            [{ ip_address: '10.60.1.1' }, { ip_address: '10.60.1.1' }],
            400,
            'DuplicateAddressPairInRequest',
            'Request contains duplicate address pair: mac_address None ip_address 10.60.1.1.',
          ],
          [
            'a duplicate with MAC',
            [
              { ip_address: '10.60.1.1', mac_address: 'fa:16:3e:00:00:0b' },
              { ip_address: '10.60.1.1', mac_address: 'fa:16:3e:00:00:0b' },
            ],
            400,
            'DuplicateAddressPairInRequest',
            'Request contains duplicate address pair: mac_address fa:16:3e:00:00:0b ip_address 10.60.1.1.',
          ],
          [
            'a pair without IP',
            [{ mac_address: 'fa:16:3e:00:00:0b' }],
            400,
            'AllowedAddressPairsMissingIP',
            'AllowedAddressPair must contain ip_address',
          ],
          ['a bad IP', [{ ip_address: 'x' }], 400, 'HTTPBadRequest', "'x' is not a valid IP address"],
          [
            'a bad MAC',
            [{ ip_address: '10.60.1.1', mac_address: 'x' }],
            400,
            'HTTPBadRequest',
            "'x' is not a valid MAC address",
          ],
          [
            'an unknown key',
            [{ ip_address: '10.60.1.1', foo: 'x' }],
            400,
            'HTTPBadRequest',
            "Unrecognized attribute(s) 'foo'",
          ],
          ['a string', 'x', 400, 'HTTPBadRequest', 'Allowed address pairs must be a list.'],
          [
            'a string entry',
            ['x'],
            400,
            'HTTPBadRequest',
            "Invalid input for allowed_address_pairs. Reason: 'x' is not a dictionary.",
          ],
          [
            'a multicast IP',
            [{ ip_address: '224.0.0.5' }],
            400,
            'HTTPBadRequest',
            'IP 224.0.0.5 is a multicast address, which is not supported.',
          ],
          [
            'a multicast CIDR',
            [{ ip_address: '224.0.0.0/24' }],
            400,
            'HTTPBadRequest',
            'Subnet 224.0.0.0/24 overlaps with multicast range 224.0.0.0/4, which is not supported.',
          ],
          [
            'a CIDR containing multicast',
            [{ ip_address: '128.0.0.0/1' }],
            400,
            'HTTPBadRequest',
            'Subnet 128.0.0.0/1 overlaps with multicast range 224.0.0.0/4, which is not supported.',
          ],
          [
            'an IPv6 multicast CIDR',
            [{ ip_address: 'ff02::/16' }],
            400,
            'HTTPBadRequest',
            'Subnet ff02::/16 overlaps with multicast range ff00::/8, which is not supported.',
          ],
          [
            'a multicast MAC',
            [{ ip_address: '10.60.1.1', mac_address: '01:00:5e:00:00:01' }],
            400,
            'HTTPBadRequest',
            'MAC address 01:00:5e:00:00:01 is a multicast address, which is not supported.',
          ],
        ];
        for (const [what, pairs, status, type, message] of cases) {
          const r = await post({ allowed_address_pairs: pairs });
          assert.equal(r.status, status, `${what}: ${r.text}`);
          assert.deepEqual(r.body, { NeutronError: { type, message, detail: '' } }, what);
        }
      });
    });

    describe('port security and security groups', () => {
      it("gives a port its project's default group; explicit groups replace it", async () => {
        const { client, network, project } = await setup();
        const port = await createPort(client, network.id);
        const defaults = (await client.get('/v2.0/security-groups?name=default')).body.security_groups;
        assert.equal(defaults.length, 1);
        assert.equal(defaults[0].project_id, project);
        assert.deepEqual(port.security_groups, [defaults[0].id]);
        assert.equal(port.port_security_enabled, true);
        const sg = (await client.post('/v2.0/security-groups', { security_group: { name: 'x' } })).body.security_group;
        const explicit = await createPort(client, network.id, { security_groups: [sg.id] });
        assert.deepEqual(explicit.security_groups, [sg.id]);
        const two = await createPort(client, network.id, { security_groups: [sg.id, defaults[0].id] });
        assert.deepEqual([...two.security_groups].sort(), [sg.id, defaults[0].id].sort());
        assert.deepEqual((await createPort(client, network.id, { security_groups: [] })).security_groups, []);
        assert.deepEqual((await createPort(client, network.id, { security_groups: null })).security_groups, []);
      });

      it('refuses groups that are unknown, foreign, malformed or repeated', async () => {
        const { post } = await setup();
        const foreign = (await member().post('/v2.0/security-groups', { security_group: { name: 'y' } })).body
          .security_group;
        const missing = '11111111-2222-3333-4444-555555555555';
        assertError(
          await post({ security_groups: [foreign.id] }),
          404,
          'SecurityGroupNotFound',
          `Security group ${foreign.id} does not exist`,
        );
        assertError(
          await post({ security_groups: [missing] }),
          404,
          'SecurityGroupNotFound',
          `Security group ${missing} does not exist`,
        );
        assertError(
          await post({ security_groups: ['x'] }),
          400,
          'HTTPBadRequest',
          "Invalid input for security_groups. Reason: 'x' is not a valid UUID.",
        );
        assertError(
          await post({ security_groups: [missing, missing] }),
          400,
          'HTTPBadRequest',
          `Invalid input for security_groups. Reason: Duplicate items in the list: '${missing}'.`,
        );
      });

      it('network:* ports are trusted: port security off, no groups, groups refused', async () => {
        const { client, network, post } = await setup();
        for (const owner of ['network:dhcp', 'network:router_interface']) {
          const port = await createPort(client, network.id, { device_owner: owner, fixed_ips: [] });
          assert.equal(port.port_security_enabled, false, owner);
          assert.deepEqual(port.security_groups, [], owner);
        }
        const sg = (await client.post('/v2.0/security-groups', { security_group: { name: 'x' } })).body.security_group;
        assertError(
          await post({ device_owner: 'network:foo', security_groups: [sg.id], fixed_ips: [] }),
          400,
          'PortSecurityAndIPRequiredForSecurityGroups',
          'Port security must be enabled and port must have an IP address in order to use security groups.',
        );
      });

      it('without port security: no groups, no address pairs, and the errors for asking', async () => {
        const { client, network, post } = await setup();
        const sg = (await client.post('/v2.0/security-groups', { security_group: { name: 'x' } })).body.security_group;
        const off = await createPort(client, network.id, { port_security_enabled: false });
        assert.deepEqual([off.port_security_enabled, off.security_groups], [false, []]);
        assertError(
          await post({ port_security_enabled: false, security_groups: [sg.id] }),
          400,
          'PortSecurityAndIPRequiredForSecurityGroups',
          'Port security must be enabled and port must have an IP address in order to use security groups.',
        );
        assertError(
          await post({ port_security_enabled: false, allowed_address_pairs: [{ ip_address: '10.60.1.1' }] }),
          409,
          'AddressPairAndPortSecurityRequired',
          'Port Security must be enabled in order to have allowed address pairs on a port.',
        );
        assert.equal(
          (await post({ port_security_enabled: false, security_groups: [], allowed_address_pairs: [] })).status,
          201,
        );
        const unsecured = await createNetwork(client, { port_security_enabled: false });
        await createSubnet(client, unsecured.id, { cidr: '10.9.0.0/24' });
        const inherited = await createPort(client, unsecured.id);
        assert.deepEqual([inherited.port_security_enabled, inherited.security_groups], [false, []]);
        const r = await client.post('/v2.0/ports', { port: { network_id: unsecured.id, security_groups: [sg.id] } });
        assertError(
          r,
          400,
          'PortSecurityAndIPRequiredForSecurityGroups',
          'Port security must be enabled and port must have an IP address in order to use security groups.',
        );
        const on = await createPort(client, unsecured.id, { port_security_enabled: true });
        assert.equal(on.port_security_enabled, true);
        assert.equal(on.security_groups.length, 1);
      });

      it('updates: port security goes off only together with groups and pairs', async () => {
        const { client, network } = await setup();
        const sg = (await client.post('/v2.0/security-groups', { security_group: { name: 'x' } })).body.security_group;
        const port = await createPort(client, network.id, { fixed_ips: [] });
        const put = (body: Body) => client.put(`/v2.0/ports/${port.id}`, { port: body });
        assertError(
          await put({ port_security_enabled: false }),
          409,
          'PortSecurityPortHasSecurityGroup',
          'Port has security group associated. Cannot disable port security or IP address until security group is removed.',
        );
        const off = await put({ port_security_enabled: false, security_groups: [] });
        assert.deepEqual([off.body.port.port_security_enabled, off.body.port.security_groups], [false, []]);
        assertError(
          await put({ allowed_address_pairs: [{ ip_address: '10.60.1.1' }] }),
          409,
          'AddressPairAndPortSecurityRequired',
          'Port Security must be enabled in order to have allowed address pairs on a port.',
        );
        assertError(
          await put({ security_groups: [sg.id] }),
          400,
          'PortSecurityAndIPRequiredForSecurityGroups',
          'Port security must be enabled and port must have an IP address in order to use security groups.',
        );
        const on = await put({ port_security_enabled: true });
        assert.deepEqual([on.body.port.port_security_enabled, on.body.port.security_groups], [true, []]);
        await put({ allowed_address_pairs: [{ ip_address: '10.60.1.1' }] });
        assertError(
          await put({ port_security_enabled: false, security_groups: [] }),
          409,
          'AddressPairAndPortSecurityRequired',
          'Port Security must be enabled in order to have allowed address pairs on a port.',
        );
        const bare = await put({ port_security_enabled: false, security_groups: [], allowed_address_pairs: [] });
        assert.equal(bare.status, 200, bare.text);
        const back = await put({ port_security_enabled: true, security_groups: [sg.id] });
        assert.deepEqual(back.body.port.security_groups, [sg.id]);
        assert.deepEqual((await put({ security_groups: null })).body.port.security_groups, []);
        const foreign = (await member().post('/v2.0/security-groups', { security_group: { name: 'y' } })).body
          .security_group;
        assertError(
          await put({ security_groups: [foreign.id] }),
          404,
          'SecurityGroupNotFound',
          `Security group ${foreign.id} does not exist`,
        );
      });
    });

    describe('extra DHCP options', () => {
      it('stores options (IPv4 by default, blank router allowed, null values skipped) and merges updates', async () => {
        const { client, network } = await setup();
        const port = await createPort(client, network.id, {
          fixed_ips: [],
          extra_dhcp_opts: [
            { opt_name: 'mtu', opt_value: '1400' },
            { opt_name: 'dns-server', opt_value: '2001:db8::1', ip_version: 6 },
            { opt_name: 'router', opt_value: '' },
            { opt_name: 'domain-name', opt_value: null },
          ],
        });
        assert.deepEqual(sortedOpts(port.extra_dhcp_opts), [
          { opt_name: 'dns-server', opt_value: '2001:db8::1', ip_version: 6 },
          { opt_name: 'mtu', opt_value: '1400', ip_version: 4 },
          { opt_name: 'router', opt_value: '', ip_version: 4 },
        ]);
        const put = async (opts: unknown) =>
          sortedOpts(
            (await client.put(`/v2.0/ports/${port.id}`, { port: { extra_dhcp_opts: opts } })).body.port.extra_dhcp_opts,
          );
        assert.deepEqual(
          await put([
            { opt_name: 'mtu', opt_value: '1300' },
            { opt_name: 'ntp-server', opt_value: '10.0.0.1' },
          ]),
          [
            { opt_name: 'dns-server', opt_value: '2001:db8::1', ip_version: 6 },
            { opt_name: 'mtu', opt_value: '1300', ip_version: 4 },
            { opt_name: 'ntp-server', opt_value: '10.0.0.1', ip_version: 4 },
            { opt_name: 'router', opt_value: '', ip_version: 4 },
          ],
        );
        const afterDelete = [
          { opt_name: 'ntp-server', opt_value: '10.0.0.1', ip_version: 4 },
          { opt_name: 'router', opt_value: '', ip_version: 4 },
        ];
        await put([{ opt_name: 'mtu', opt_value: null }]);
        assert.deepEqual(await put([{ opt_name: 'dns-server', opt_value: null, ip_version: 6 }]), afterDelete);
        assert.deepEqual(await put([]), afterDelete, 'an empty list changes nothing');
        assert.deepEqual(await put(null), afterDelete, 'null changes nothing');
        const v6 = await createPort(client, network.id, {
          fixed_ips: [],
          extra_dhcp_opts: [{ opt_name: 'mtu', opt_value: '1', ip_version: '6' }],
        });
        assert.deepEqual(v6.extra_dhcp_opts, [{ opt_name: 'mtu', opt_value: '1', ip_version: 6 }]);
      });

      it('refuses options matching no key spec', async () => {
        const { post } = await setup();
        const cases: [unknown, string][] = [
          [
            [{ opt_name: 'mtu', opt_value: '1400', ip_version: 5 }],
            "No valid key specs matched for: {'opt_name': 'mtu', 'opt_value': '1400', 'ip_version': 5}",
          ],
          [[{ opt_name: 'mtu' }], "No valid key specs matched for: {'opt_name': 'mtu'}"],
          [[{ opt_name: '', opt_value: 'x' }], "No valid key specs matched for: {'opt_name': '', 'opt_value': 'x'}"],
          [
            [{ opt_name: 'mtu', opt_value: 'x', foo: 1 }],
            "No valid key specs matched for: {'opt_name': 'mtu', 'opt_value': 'x', 'foo': 1}",
          ],
          ['x', "'x' is not a list"],
        ];
        for (const [opts, message] of cases) {
          assertError(await post({ fixed_ips: [], extra_dhcp_opts: opts }), 400, ...invalidInput(message));
        }
      });
    });

    describe('binding attributes', () => {
      it('members see and set binding:vnic_type only; the rest is admin-only', async () => {
        const { client, network, post } = await setup();
        const port = await createPort(client, network.id, { fixed_ips: [], 'binding:vnic_type': 'direct' });
        assert.equal(port['binding:vnic_type'], 'direct');
        for (const attr of BINDING_ADMIN_ONLY) assert.ok(!(attr in port), `${attr} is hidden`);
        const shown = (await client.get(`/v2.0/ports/${port.id}`)).body.port;
        for (const attr of BINDING_ADMIN_ONLY) assert.ok(!(attr in shown), `${attr} is hidden on show`);
        const admin = (await api.admin.get(`/v2.0/ports/${port.id}`)).body.port;
        assert.deepEqual(
          [admin['binding:host_id'], admin['binding:profile'], admin['binding:vif_type'], admin['binding:vif_details']],
          ['', {}, 'unbound', {}],
        );
        assertError(
          await post({ 'binding:host_id': 'h1' }),
          403,
          'PolicyNotAuthorized',
          '(rule:create_port and rule:create_port:binding:host_id) is disallowed by policy',
        );
        assertError(
          await post({ fixed_ips: [], 'binding:host_id': 'h1' }),
          403,
          'PolicyNotAuthorized',
          '((rule:create_port and rule:create_port:fixed_ips) and rule:create_port:binding:host_id) is disallowed by policy',
        );
        assertError(
          await post({ 'binding:profile': { a: 1 } }),
          403,
          'PolicyNotAuthorized',
          '(rule:create_port and rule:create_port:binding:profile) is disallowed by policy',
        );
        assertError(
          await post({ 'binding:vnic_type': 'bogus' }),
          400,
          'HTTPBadRequest',
          'Invalid input for binding:vnic_type. Reason: bogus is not in valid_values.',
        );
        assertError(
          await post({ 'binding:vif_type': 'ovs' }),
          400,
          'HTTPBadRequest',
          "Attribute 'binding:vif_type' not allowed in POST",
        );
        const vnic = await client.put(`/v2.0/ports/${port.id}`, { port: { 'binding:vnic_type': 'macvtap' } });
        assert.equal(vnic.body.port['binding:vnic_type'], 'macvtap');
        assertError(
          await client.put(`/v2.0/ports/${port.id}`, { port: { 'binding:host_id': 'h2' } }),
          403,
          'PolicyNotAuthorized',
          '(rule:update_port and rule:update_port:binding:host_id) is disallowed by policy',
        );
      });

      it('admins set binding:host_id; binding:profile is for the service role only (master)', async () => {
        const { network, project } = await setup();
        const r = await api.admin.post('/v2.0/ports', {
          port: { network_id: network.id, fixed_ips: [], tenant_id: project, 'binding:host_id': 'compute-1' },
        });
        assert.equal(r.status, 201, r.text);
        assert.equal(r.body.port['binding:host_id'], 'compute-1');
        const profile = await api.admin.post('/v2.0/ports', {
          port: { network_id: network.id, fixed_ips: [], tenant_id: project, 'binding:profile': { foo: 'bar' } },
        });
        assertError(
          profile,
          403,
          'PolicyNotAuthorized',
          '((rule:create_port and rule:create_port:fixed_ips) and rule:create_port:binding:profile) is disallowed by policy',
        );
      });

      it('a host no mechanism driver can bind leaves the port binding_failed; no host, unbound', async () => {
        const { network, project } = await setup();
        const r = await api.admin.post('/v2.0/ports', {
          port: { network_id: network.id, fixed_ips: [], tenant_id: project, 'binding:host_id': 'no-such-host' },
        });
        assert.equal(r.body.port['binding:vif_type'], 'binding_failed');
        const unset = await api.admin.put(`/v2.0/ports/${r.body.port.id}`, { port: { 'binding:host_id': '' } });
        assert.equal(unset.body.port['binding:vif_type'], 'unbound');
      });
    });

    describe('DNS without a DNS domain', () => {
      it('ignores dns_name under the default domain; dns_assignment uses host-<address>', async () => {
        const { client, network } = await setup('10.70.0.0/24');
        const port = await createPort(client, network.id, {
          dns_name: 'MyHost',
          fixed_ips: [{ ip_address: '10.70.0.50' }],
        });
        assert.equal(port.dns_name, '');
        assert.deepEqual(port.dns_assignment, [
          { ip_address: '10.70.0.50', hostname: 'host-10-70-0-50', fqdn: 'host-10-70-0-50.openstacklocal.' },
        ]);
        assert.deepEqual((await createPort(client, network.id, { fixed_ips: [] })).dns_assignment, []);
      });
    });

    describe('tags, owners, names', () => {
      it('takes tags in POST (tag-ports-during-bulk-creation) but not in PUT', async () => {
        const { client, network, post } = await setup();
        const port = await createPort(client, network.id, { fixed_ips: [], tags: ['a', 'b'] });
        assert.deepEqual([...port.tags].sort(), ['a', 'b']);
        assertError(
          await post({ tags: 'a' }),
          400,
          'HTTPBadRequest',
          "Invalid input for tags. Reason: 'a' is not a list.",
        );
        assertError(
          await post({ tags: ['a', 'a'] }),
          400,
          'HTTPBadRequest',
          "Invalid input for tags. Reason: Duplicate items in the list: 'a'.",
        );
        assertError(
          await client.put(`/v2.0/ports/${port.id}`, { port: { tags: ['x'] } }),
          400,
          'HTTPBadRequest',
          'Cannot update read-only attribute tags',
        );
      });

      it('sets and updates device_owner, device_id, name, admin_state_up; refuses read-only ones', async () => {
        const { client, network, post } = await setup();
        const port = await createPort(client, network.id, {
          fixed_ips: [],
          device_owner: 'compute:nova',
          device_id: 'vm1',
          admin_state_up: 'no',
        });
        assert.deepEqual(
          [port.device_owner, port.device_id, port.admin_state_up, port.status],
          ['compute:nova', 'vm1', false, 'DOWN'],
        );
        const r = await client.put(`/v2.0/ports/${port.id}`, {
          port: { device_id: 'd1', device_owner: 'compute:az1', name: 'nm', admin_state_up: true },
        });
        assert.deepEqual(
          [r.body.port.device_id, r.body.port.device_owner, r.body.port.name, r.body.port.admin_state_up],
          ['d1', 'compute:az1', 'nm', true],
        );
        const long = 'x'.repeat(256);
        for (const attr of ['name', 'device_id']) {
          assertError(
            await post({ fixed_ips: [], [attr]: long }),
            400,
            'HTTPBadRequest',
            `Invalid input for ${attr}. Reason: '${long}' exceeds maximum length of 255.`,
          );
        }
        assertError(
          await post({ device_owner: 5 }),
          400,
          'HTTPBadRequest',
          "Invalid input for device_owner. Reason: '5' is not a valid string.",
        );
        for (const attr of ['status', 'ip_allocation', 'dns_assignment']) {
          assertError(await post({ [attr]: 'x' }), 400, 'HTTPBadRequest', `Attribute '${attr}' not allowed in POST`);
        }
        assertError(
          await client.put(`/v2.0/ports/${port.id}`, { port: { network_id: network.id } }),
          400,
          'HTTPBadRequest',
          'Cannot update read-only attribute network_id',
        );
        assertError(
          await client.post('/v2.0/ports', { port: { name: 'x' } }),
          400,
          'HTTPBadRequest',
          "Failed to parse request. Required attribute 'network_id' not specified",
        );
      });

      it('deletes a port and frees its address and MAC', async () => {
        const { client, network, subnet } = await setup();
        const port = await createPort(client, network.id, {
          mac_address: 'fa:16:3e:de:1e:7e',
          fixed_ips: [{ ip_address: '10.0.0.77' }],
        });
        assert.equal((await client.delete(`/v2.0/ports/${port.id}`)).status, 204);
        assertError(
          await client.get(`/v2.0/ports/${port.id}`),
          404,
          'PortNotFound',
          `Port ${port.id} could not be found.`,
        );
        assertError(
          await client.delete(`/v2.0/ports/${port.id}`),
          404,
          'PortNotFound',
          `Port ${port.id} could not be found.`,
        );
        const again = await createPort(client, network.id, {
          mac_address: 'fa:16:3e:de:1e:7e',
          fixed_ips: [{ subnet_id: subnet.id, ip_address: '10.0.0.77' }],
        });
        assert.deepEqual(addresses(again), ['10.0.0.77']);
      });
    });

    describe('visibility', () => {
      it("hides another project's port (404) and its network", async () => {
        const { client, network } = await setup();
        const port = await createPort(client, network.id);
        const other = member();
        const notFound = `Port ${port.id} could not be found.`;
        assertError(await other.get(`/v2.0/ports/${port.id}`), 404, 'PortNotFound', notFound);
        assertError(await other.put(`/v2.0/ports/${port.id}`, { port: { name: 'z' } }), 404, 'PortNotFound', notFound);
        assertError(await other.delete(`/v2.0/ports/${port.id}`), 404, 'PortNotFound', notFound);
        assert.deepEqual((await other.get(`/v2.0/ports?network_id=${network.id}`)).body.ports, []);
        assertError(
          await other.post('/v2.0/ports', { port: { network_id: network.id } }),
          404,
          'NetworkNotFound',
          `Network ${network.id} could not be found.`,
        );
      });

      it('on a shared network: the port owner and the network owner see it, others do not', async () => {
        const ownerProject = newProjectId();
        const owner = member(ownerProject);
        const network = await createNetwork(api.admin, { shared: true, tenant_id: ownerProject });
        await createSubnet(api.admin, network.id, { cidr: '10.71.0.0/24', tenant_id: ownerProject });
        const userProject = newProjectId();
        const user = member(userProject);
        const port = await createPort(user, network.id);
        assert.equal(port.project_id, userProject);
        const post = (body: Body) => user.post('/v2.0/ports', { port: { network_id: network.id, ...body } });
        const denied: [Body, string][] = [
          [
            { fixed_ips: [{ ip_address: '10.71.0.9' }] },
            '(rule:create_port and (rule:create_port:fixed_ips and (rule:create_port:fixed_ips:ip_address))) is disallowed by policy',
          ],
          [
            { mac_address: 'fa:16:3e:99:99:99' },
            '(rule:create_port and rule:create_port:mac_address) is disallowed by policy',
          ],
          [
            { allowed_address_pairs: [{ ip_address: '10.0.0.1' }] },
            '(rule:create_port and (rule:create_port:allowed_address_pairs and (rule:create_port:allowed_address_pairs:ip_address))) is disallowed by policy',
          ],
          [
            { port_security_enabled: true },
            '(rule:create_port and rule:create_port:port_security_enabled) is disallowed by policy',
          ],
          [
            { device_owner: 'network:dhcp' },
            '(rule:create_port and rule:create_port:device_owner) is disallowed by policy',
          ],
        ];
        for (const [body, message] of denied) assertError(await post(body), 403, 'PolicyNotAuthorized', message);
        assertError(
          await user.put(`/v2.0/ports/${port.id}`, { port: { fixed_ips: [{ ip_address: '10.71.0.10' }] } }),
          403,
          'PolicyNotAuthorized',
          '(rule:update_port and (rule:update_port:fixed_ips and (rule:update_port:fixed_ips:ip_address))) is disallowed by policy',
        );
        assert.equal((await owner.get(`/v2.0/ports/${port.id}`)).body.port.project_id, userProject);
        const listed = (await owner.get(`/v2.0/ports?network_id=${network.id}`)).body.ports.filter(
          (p: Item) => !String(p.device_owner).startsWith('network:'),
        );
        assert.deepEqual(
          listed.map((p: Item) => p.id),
          [port.id],
        );
        assertError(
          await owner.put(`/v2.0/ports/${port.id}`, { port: { name: 'z' } }),
          403,
          'PolicyNotAuthorized',
          'rule:update_port is disallowed by policy',
        );
        const third = member();
        assertError(
          await third.get(`/v2.0/ports/${port.id}`),
          404,
          'PortNotFound',
          `Port ${port.id} could not be found.`,
        );
        assert.equal((await owner.delete(`/v2.0/ports/${port.id}`)).status, 204, 'the network owner may delete it');
      });
    });
  });

  describe(`ports with a DNS domain (${backend})`, () => {
    const api = useApi(backend, { config: { network: { dns_domain: 'example.org.' } } });

    it('lower-cases dns_name and builds dns_assignment from it; refuses bad names', async () => {
      const client: Client = api.as({ project: newProjectId() });
      const { network } = await networkWithSubnet(client, '10.70.0.0/24');
      const named = await createPort(client, network.id, {
        dns_name: 'MyHost',
        fixed_ips: [{ ip_address: '10.70.0.50' }],
      });
      assert.equal(named.dns_name, 'myhost');
      assert.deepEqual(named.dns_assignment, [
        { ip_address: '10.70.0.50', hostname: 'myhost', fqdn: 'myhost.example.org.' },
      ]);
      const unnamed = await createPort(client, network.id, { fixed_ips: [{ ip_address: '10.70.0.51' }] });
      assert.deepEqual(unnamed.dns_assignment, [
        { ip_address: '10.70.0.51', hostname: 'host-10-70-0-51', fqdn: 'host-10-70-0-51.example.org.' },
      ]);
      const domain = await createPort(client, network.id, { dns_domain: 'example.com.', fixed_ips: [] });
      assert.equal(domain.dns_domain, 'example.com.');
      const bad = await client.post('/v2.0/ports', { port: { network_id: network.id, dns_name: 'bad_name!' } });
      assertError(
        bad,
        400,
        'HTTPBadRequest',
        "Invalid input for dns_name. Reason: 'bad_name!' not a valid PQDN or FQDN. Reason: Name 'bad_name!' must be 1-63 characters long, each of which can only be alphanumeric or a hyphen.",
      );
    });
  });
}
