/**
 * A port's fixed IPs on their own: what a new port gets with and without requests, which requests
 * are refused and with which Neutron error, what an update keeps, adds and removes, and how a MAC
 * change moves EUI-64 addresses. The address book is a set of taken addresses (the store's unique
 * index answers the same questions in the service).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseNetwork } from '../ip.js';
import { defaultGateway, generatePools, type IpamSubnet } from '../ipam.js';
import {
  allocateForNewPort,
  candidateSubnets,
  changeFixedIps,
  moveEui64Addresses,
  type AddressBook,
  type Allocation,
} from './fixed-ips.js';

function subnet(id: string, cidr: string, extra: Partial<IpamSubnet> = {}): IpamSubnet {
  const network = parseNetwork(cidr)!;
  const gateway = defaultGateway(network);
  return {
    id,
    networkId: 'net-1',
    version: network.version,
    cidr: network,
    gateway,
    pools: generatePools(network, gateway),
    ipv6AddressMode: null,
    ipv6RaMode: null,
    serviceTypes: [],
    ...extra,
  };
}

const V4 = subnet('v4', '10.0.0.0/29'); // pool 10.0.0.2 - 10.0.0.6
const V4B = subnet('v4b', '10.0.1.0/29');
const STATEFUL = subnet('stateful', 'fd00:1::/64', {
  ipv6AddressMode: 'dhcpv6-stateful',
  ipv6RaMode: 'dhcpv6-stateful',
});
const SLAAC = subnet('slaac', '2001:db8:1::/64', { ipv6AddressMode: 'slaac', ipv6RaMode: 'slaac' });
const MAC = 'fa:16:3e:12:34:56';
const SLAAC_IP = '2001:db8:1:0:f816:3eff:fe12:3456';
const NEW_MAC = 'fa:16:3e:00:00:01';
const SLAAC_IP_NEW_MAC = '2001:db8:1:0:f816:3eff:fe00:1';

const vm = { networkId: 'net-1', deviceOwner: 'compute:nova', mac: MAC };
const routerPort = { networkId: 'net-1', deviceOwner: 'network:router_interface', mac: MAC };
const dhcpPort = { networkId: 'net-1', deviceOwner: 'network:dhcp', mac: MAC };

/** Taken addresses per subnet; `otherNetworks` holds subnets of other networks (subnet → network). */
function book(taken: Record<string, string[]> = {}, otherNetworks: Record<string, string> = {}): AddressBook {
  const all = () => new Set(Object.values(taken).flat());
  return {
    isTaken: async (ip) => all().has(ip),
    takenAmong: async (ips) => new Set(ips.filter((ip) => all().has(ip))),
    allocatedOnSubnet: async (id) => new Set(taken[id] ?? []),
    countAllocated: async (id) => (taken[id] ?? []).length,
    networkOfSubnet: async (id) => otherNetworks[id],
  };
}

const sorted = (allocations: readonly Allocation[]) =>
  [...allocations].sort((a, b) => `${a.subnet_id}${a.ip_address}`.localeCompare(`${b.subnet_id}${b.ip_address}`));

describe('allocateForNewPort without requests', () => {
  it('one IPv4 address (the first subnet with room), one stateful IPv6, and the EUI-64 one', async () => {
    const got = await allocateForNewPort([V4, V4B, STATEFUL, SLAAC], undefined, vm, book());
    assert.deepEqual(
      got.map((a) => a.subnet_id),
      ['v4', 'stateful', 'slaac'],
    );
    const v4 = got[0]!.ip_address;
    assert.ok(['10.0.0.2', '10.0.0.3', '10.0.0.4', '10.0.0.5', '10.0.0.6'].includes(v4), v4);
    assert.match(got[1]!.ip_address, /^fd00:1::/);
    assert.notEqual(got[1]!.ip_address, 'fd00:1::', 'never the gateway');
    assert.equal(got[2]!.ip_address, SLAAC_IP);
  });

  it('moves to the next IPv4 subnet when the first is full', async () => {
    const full = { v4: ['10.0.0.2', '10.0.0.3', '10.0.0.4', '10.0.0.5', '10.0.0.6'] };
    const got = await allocateForNewPort([V4, V4B], undefined, vm, book(full));
    assert.equal(got.length, 1);
    assert.equal(got[0]!.subnet_id, 'v4b');
    assert.match(got[0]!.ip_address, /^10\.0\.1\.[2-6]$/);
  });

  it('every subnet of the family full: IpAddressGenerationFailure', async () => {
    const full = { v4: ['10.0.0.2', '10.0.0.3', '10.0.0.4', '10.0.0.5', '10.0.0.6'] };
    await assert.rejects(allocateForNewPort([V4], undefined, vm, book(full)), { type: 'IpAddressGenerationFailure' });
  });

  it('a DHCP port gets the lowest free address', async () => {
    const got = await allocateForNewPort([V4], undefined, dhcpPort, book({ v4: ['10.0.0.2'] }));
    assert.deepEqual(got, [{ subnet_id: 'v4', ip_address: '10.0.0.3' }]);
  });

  it('a router interface gets no EUI-64 address', async () => {
    const got = await allocateForNewPort([SLAAC], undefined, routerPort, book());
    assert.deepEqual(got, []);
  });

  it('a network without subnets gives no addresses', async () => {
    assert.deepEqual(await allocateForNewPort([], undefined, vm, book()), []);
  });
});

describe('allocateForNewPort with requests', () => {
  it('a specific address on a subnet, and the EUI-64 address besides (even for [])', async () => {
    const got = await allocateForNewPort([V4, SLAAC], [{ subnet_id: 'v4', ip_address: '10.0.0.5' }], vm, book());
    assert.deepEqual(sorted(got), [
      { subnet_id: 'slaac', ip_address: SLAAC_IP },
      { subnet_id: 'v4', ip_address: '10.0.0.5' },
    ]);
    assert.deepEqual(await allocateForNewPort([V4, SLAAC], [], vm, book()), [
      { subnet_id: 'slaac', ip_address: SLAAC_IP },
    ]);
  });

  it('an address alone finds its subnet; a subnet alone gets a free address', async () => {
    assert.deepEqual(await allocateForNewPort([V4, V4B], [{ ip_address: '10.0.1.3' }], vm, book()), [
      { subnet_id: 'v4b', ip_address: '10.0.1.3' },
    ]);
    const [only] = await allocateForNewPort([V4, V4B], [{ subnet_id: 'v4b' }], vm, book({ v4b: ['10.0.1.2'] }));
    assert.equal(only!.subnet_id, 'v4b');
    assert.match(only!.ip_address, /^10\.0\.1\.[3-6]$/);
  });

  it('a subnet alone on a SLAAC subnet means its EUI-64 address, not a chosen one', async () => {
    assert.deepEqual(await allocateForNewPort([V4, SLAAC], [{ subnet_id: 'slaac' }], vm, book()), [
      { subnet_id: 'slaac', ip_address: SLAAC_IP },
    ]);
  });

  it('an address outside the pools but inside the subnet is allowed (Neutron does too)', async () => {
    const narrow = { ...V4, pools: [{ first: V4.pools[0]!.first, last: V4.pools[0]!.first }] };
    assert.deepEqual(await allocateForNewPort([narrow], [{ ip_address: '10.0.0.6' }], vm, book()), [
      { subnet_id: 'v4', ip_address: '10.0.0.6' },
    ]);
  });

  it('refuses what Neutron refuses, with its error type', async () => {
    const cases: [string, IpamSubnet[], { subnet_id?: string; ip_address?: string }[], AddressBook, string][] = [
      ['taken address', [V4], [{ ip_address: '10.0.0.3' }], book({ v4: ['10.0.0.3'] }), 'IpAddressAlreadyAllocated'],
      [
        'same address twice',
        [V4],
        [{ ip_address: '10.0.0.3' }, { ip_address: '10.0.0.3' }],
        book(),
        'IpAddressAlreadyAllocated',
      ],
      ['broadcast address', [V4], [{ subnet_id: 'v4', ip_address: '10.0.0.7' }], book(), 'InvalidIpForSubnet'],
      ['network address', [V4], [{ subnet_id: 'v4', ip_address: '10.0.0.0' }], book(), 'InvalidIpForSubnet'],
      [
        'address of another subnet',
        [V4, V4B],
        [{ subnet_id: 'v4', ip_address: '10.0.1.3' }],
        book(),
        'InvalidIpForSubnet',
      ],
      [
        'IPv6 address on an IPv4 subnet',
        [V4, STATEFUL],
        [{ subnet_id: 'v4', ip_address: 'fd00:1::5' }],
        book(),
        'InvalidIpForSubnet',
      ],
      ['address in no subnet', [V4], [{ ip_address: '192.168.0.5' }], book(), 'InvalidIpForNetwork'],
      ['unknown subnet', [V4], [{ subnet_id: 'nope' }], book(), 'SubnetNotFound'],
      [
        'subnet of another network',
        [V4],
        [{ subnet_id: 'elsewhere' }],
        book({}, { elsewhere: 'net-2' }),
        'InvalidInput',
      ],
      ['neither subnet nor address', [V4], [{}], book(), 'InvalidInput'],
      ['requests on a network without subnets', [], [{ ip_address: '10.0.0.3' }], book(), 'InvalidInput'],
      [
        'a chosen address on a SLAAC subnet',
        [SLAAC],
        [{ subnet_id: 'slaac', ip_address: '2001:db8:1::5' }],
        book(),
        'AllocationOnAutoAddressSubnet',
      ],
    ];
    for (const [what, subnets, requests, addressBook, type] of cases) {
      await assert.rejects(allocateForNewPort(subnets, requests, vm, addressBook), { type }, what);
    }
  });

  it('a router interface may take any address on a SLAAC subnet, including the anycast one', async () => {
    assert.deepEqual(
      await allocateForNewPort([SLAAC], [{ subnet_id: 'slaac', ip_address: '2001:db8:1::' }], routerPort, book()),
      [{ subnet_id: 'slaac', ip_address: '2001:db8:1::' }],
    );
  });
});

describe('candidateSubnets (service types)', () => {
  const dhcpOnly = subnet('dhcp-only', '10.0.2.0/29', { serviceTypes: ['network:dhcp'] });
  const fipOnly = subnet('fip-only', '10.0.3.0/29', { serviceTypes: ['network:floatingip'] });

  it('subnets reserved for the owner first, then the open ones; others never', () => {
    assert.deepEqual(
      candidateSubnets([V4, dhcpOnly, fipOnly], 'network:dhcp', 'net-1').map((s) => s.id),
      ['dhcp-only', 'v4'],
    );
    assert.deepEqual(
      candidateSubnets([V4, dhcpOnly, fipOnly], 'compute:nova', 'net-1').map((s) => s.id),
      ['v4'],
    );
  });

  it('no subnet for the owner: IpAddressGenerationFailureNoMatchingSubnet', () => {
    assert.throws(() => candidateSubnets([dhcpOnly], 'compute:nova', 'net-1'), {
      type: 'IpAddressGenerationFailureNoMatchingSubnet',
    });
  });
});

describe('changeFixedIps', () => {
  const current: Allocation[] = [
    { subnet_id: 'v4', ip_address: '10.0.0.3' },
    { subnet_id: 'slaac', ip_address: SLAAC_IP },
  ];
  const taken = () => book({ v4: ['10.0.0.3'], slaac: [SLAAC_IP] });

  it('naming a current address keeps it; the others on non-auto subnets go; EUI-64 ones stay', async () => {
    const changes = await changeFixedIps([V4, SLAAC], current, [], vm, taken());
    assert.deepEqual(changes.remove, [{ subnet_id: 'v4', ip_address: '10.0.0.3' }]);
    assert.deepEqual(changes.keep, [{ subnet_id: 'slaac', ip_address: SLAAC_IP }]);
    assert.deepEqual(changes.add, []);
  });

  it('a subnet alone reuses the port address there instead of allocating another', async () => {
    const changes = await changeFixedIps([V4, SLAAC], current, [{ subnet_id: 'v4' }], vm, taken());
    assert.deepEqual(sorted(changes.keep), sorted(current));
    assert.deepEqual(changes.add, []);
    assert.deepEqual(changes.remove, []);
  });

  it('a new address is added; the one replaced is removed, and may be taken again in the same update', async () => {
    const swapped = await changeFixedIps([V4, SLAAC], current, [{ ip_address: '10.0.0.5' }], vm, taken());
    assert.deepEqual(swapped.add, [{ subnet_id: 'v4', ip_address: '10.0.0.5' }]);
    assert.deepEqual(swapped.remove, [{ subnet_id: 'v4', ip_address: '10.0.0.3' }]);
    // Naming one of two current addresses keeps it and drops the other.
    const narrowed = await changeFixedIps(
      [V4],
      [
        { subnet_id: 'v4', ip_address: '10.0.0.3' },
        { subnet_id: 'v4', ip_address: '10.0.0.4' },
      ],
      [{ ip_address: '10.0.0.3' }],
      vm,
      book({ v4: ['10.0.0.3', '10.0.0.4'] }),
    );
    assert.deepEqual(narrowed.keep, [{ subnet_id: 'v4', ip_address: '10.0.0.3' }]);
    assert.deepEqual(narrowed.remove, [{ subnet_id: 'v4', ip_address: '10.0.0.4' }]);
    assert.deepEqual(narrowed.add, []);
  });

  it('an address given up by the update may be allocated again by it', async () => {
    // A router interface asking for "an address on the SLAAC subnet" gives up the one it has; with a
    // one-address pool, the only free address is the one being released.
    const first = SLAAC.pools[0]!.first;
    const onePool = { ...SLAAC, pools: [{ first, last: first }] };
    const held = [{ subnet_id: 'slaac', ip_address: '2001:db8:1::1' }];
    const changes = await changeFixedIps(
      [onePool],
      held,
      [{ subnet_id: 'slaac' }],
      routerPort,
      book({ slaac: ['2001:db8:1::1'] }),
    );
    assert.deepEqual(changes.remove, held);
    assert.deepEqual(changes.add, held);
  });

  it('an address another port holds cannot be added', async () => {
    await assert.rejects(
      changeFixedIps(
        [V4],
        current.slice(0, 1),
        [{ ip_address: '10.0.0.6' }],
        vm,
        book({ v4: ['10.0.0.3', '10.0.0.6'] }),
      ),
      { type: 'IpAddressAlreadyAllocated' },
    );
  });

  it('a router interface loses its SLAAC address when it is not named', async () => {
    const changes = await changeFixedIps(
      [SLAAC],
      [{ subnet_id: 'slaac', ip_address: '2001:db8:1::' }],
      [],
      routerPort,
      book({ slaac: ['2001:db8:1::'] }),
    );
    assert.deepEqual(changes.remove, [{ subnet_id: 'slaac', ip_address: '2001:db8:1::' }]);
    assert.deepEqual(changes.keep, []);
  });
});

describe('moveEui64Addresses', () => {
  it('a new MAC moves the EUI-64 address and leaves the others', async () => {
    const unchanged = {
      keep: [
        { subnet_id: 'v4', ip_address: '10.0.0.3' },
        { subnet_id: 'slaac', ip_address: SLAAC_IP },
      ],
      add: [],
      remove: [],
    };
    const moved = await moveEui64Addresses([V4, SLAAC], unchanged, { ...vm, mac: NEW_MAC }, book());
    assert.deepEqual(moved.keep, [{ subnet_id: 'v4', ip_address: '10.0.0.3' }]);
    assert.deepEqual(moved.remove, [{ subnet_id: 'slaac', ip_address: SLAAC_IP }]);
    assert.deepEqual(moved.add, [{ subnet_id: 'slaac', ip_address: SLAAC_IP_NEW_MAC }]);
  });

  it('the same MAC moves nothing; a taken target address is refused', async () => {
    const changes = { keep: [{ subnet_id: 'slaac', ip_address: SLAAC_IP }], add: [], remove: [] };
    assert.deepEqual(await moveEui64Addresses([SLAAC], changes, vm, book()), changes);
    await assert.rejects(
      moveEui64Addresses([SLAAC], changes, { ...vm, mac: NEW_MAC }, book({ slaac: [SLAAC_IP_NEW_MAC] })),
      { type: 'IpAddressAlreadyAllocated' },
    );
  });

  it('router interfaces keep their addresses when the MAC changes', async () => {
    const changes = { keep: [{ subnet_id: 'slaac', ip_address: '2001:db8:1::' }], add: [], remove: [] };
    assert.deepEqual(await moveEui64Addresses([SLAAC], changes, { ...routerPort, mac: NEW_MAC }, book()), changes);
  });
});
