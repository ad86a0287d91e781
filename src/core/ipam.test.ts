/**
 * IPAM on its own: default gateways and pools, pool validation, which addresses a port may hold,
 * EUI-64 addresses of auto-address subnets, and the choice of a free address (never the gateway,
 * never a taken one, only inside the pools, the lowest for DHCP ports, null when full).
 * "Taken" is a set here: the store's unique index answers it in the service.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatIp, parseIp, parseNetwork } from './ip.js';
import {
  checkGatewayOutOfPools,
  chooseFreeAddress,
  defaultGateway,
  eui64For,
  formatRange,
  gatewayInvalidInSubnet,
  generatePools,
  isAutoAddressSubnet,
  isValidPortAddress,
  poolSize,
  toIpamSubnet,
  validatePools,
  type IpamSubnet,
  type PoolText,
} from './ipam.js';

const ip = (text: string): bigint => parseIp(text)!.value;
const net = (text: string) => parseNetwork(text)!;
const texts = (cidr: string, gateway: string | null): PoolText[] =>
  generatePools(net(cidr), gateway === null ? null : ip(gateway)).map((r) => formatRange(net(cidr).version, r));

function subnet(
  cidr: string,
  options: { gateway?: string | null; pools?: PoolText[]; mode?: string } = {},
): IpamSubnet {
  const network = net(cidr);
  const gateway =
    options.gateway === undefined ? defaultGateway(network) : options.gateway === null ? null : ip(options.gateway);
  return {
    id: 'subnet-1',
    networkId: 'net-1',
    version: network.version,
    cidr: network,
    gateway,
    pools: options.pools ? validatePools(options.pools, network) : generatePools(network, gateway),
    ipv6AddressMode: options.mode ?? null,
    ipv6RaMode: options.mode ?? null,
    serviceTypes: [],
  };
}

/** `chooseFreeAddress` with `taken` as the allocated set. */
function choose(s: IpamSubnet, taken: Iterable<string> = [], lowest = false): Promise<string | null> {
  const set = new Set(taken);
  return chooseFreeAddress(s, queriesOf(set), lowest);
}

/** The database as IPAM asks it, over `taken`; `asked` counts the questions by kind. */
function queriesOf(taken: ReadonlySet<string>, asked = { takenAmong: 0, allocated: 0, allocatedCount: 0 }) {
  return {
    takenAmong: async (ips: readonly string[]) => {
      asked.takenAmong++;
      return new Set(ips.filter((c) => taken.has(c)));
    },
    allocated: async () => {
      asked.allocated++;
      return taken;
    },
    allocatedCount: async () => {
      asked.allocatedCount++;
      return taken.size;
    },
  };
}

/** Every address of a small subnet's pools, allocated one after the other until none is left. */
async function exhaust(s: IpamSubnet, lowest = false): Promise<string[]> {
  const taken: string[] = [];
  for (;;) {
    const next = await choose(s, taken, lowest);
    if (next === null) return taken;
    assert.ok(!taken.includes(next), `${next} handed out twice`);
    taken.push(next);
  }
}

describe('defaultGateway and generatePools', () => {
  it('IPv4: the gateway is network+1 and the pools are the rest of the usable range', () => {
    assert.equal(formatIp(4, defaultGateway(net('10.0.0.0/24'))), '10.0.0.1');
    assert.deepEqual(texts('10.0.0.0/24', '10.0.0.1'), [{ start: '10.0.0.2', end: '10.0.0.254' }]);
  });

  it('IPv4: a gateway inside the range splits the pools around it', () => {
    assert.deepEqual(texts('10.0.0.0/24', '10.0.0.100'), [
      { start: '10.0.0.1', end: '10.0.0.99' },
      { start: '10.0.0.101', end: '10.0.0.254' },
    ]);
    assert.deepEqual(texts('10.0.0.0/24', '10.0.0.254'), [{ start: '10.0.0.1', end: '10.0.0.253' }]);
  });

  it('IPv4: no gateway, or one outside the subnet, leaves the whole usable range', () => {
    assert.deepEqual(texts('10.0.0.0/24', null), [{ start: '10.0.0.1', end: '10.0.0.254' }]);
    assert.deepEqual(texts('10.0.0.0/24', '192.168.0.1'), [{ start: '10.0.0.1', end: '10.0.0.254' }]);
  });

  it('IPv4 /31 and /32 keep the network and broadcast addresses (point-to-point)', () => {
    assert.deepEqual(texts('10.0.0.0/31', null), [{ start: '10.0.0.0', end: '10.0.0.1' }]);
    assert.deepEqual(texts('10.0.0.4/32', null), [{ start: '10.0.0.4', end: '10.0.0.4' }]);
    assert.deepEqual(texts('10.0.0.0/30', '10.0.0.1'), [{ start: '10.0.0.2', end: '10.0.0.2' }]);
  });

  it('IPv6: the gateway is the network address (subnet-router anycast), pools start after it', () => {
    assert.equal(formatIp(6, defaultGateway(net('fd00::/64'))), 'fd00::');
    assert.deepEqual(texts('fd00::/64', 'fd00::'), [{ start: 'fd00::1', end: 'fd00::ffff:ffff:ffff:ffff' }]);
    assert.deepEqual(texts('fd00::/64', 'fd00::1'), [{ start: 'fd00::2', end: 'fd00::ffff:ffff:ffff:ffff' }]);
  });
});

describe('validatePools', () => {
  const cidr = net('10.0.0.0/24');

  it('accepts pools inside the usable range and returns them as numbers', () => {
    const pools = validatePools(
      [
        { start: '10.0.0.10', end: '10.0.0.20' },
        { start: '10.0.0.30', end: '10.0.0.30' },
      ],
      cidr,
    );
    assert.deepEqual(pools, [
      { first: ip('10.0.0.10'), last: ip('10.0.0.20') },
      { first: ip('10.0.0.30'), last: ip('10.0.0.30') },
    ]);
  });

  it('rejects a reversed, unparsable or wrong-version pool as InvalidAllocationPool, one leaving the subnet or on its network or broadcast address as OutOfBoundsAllocationPool', () => {
    const cases: [string, { start: string; end: string }][] = [
      ['InvalidAllocationPool', { start: '10.0.0.20', end: '10.0.0.10' }],
      ['InvalidAllocationPool', { start: 'ten', end: '10.0.0.10' }],
      ['InvalidAllocationPool', { start: 'fd00::1', end: 'fd00::5' }],
      ['OutOfBoundsAllocationPool', { start: '10.0.0.0', end: '10.0.0.10' }],
      ['OutOfBoundsAllocationPool', { start: '10.0.0.250', end: '10.0.0.255' }],
      ['OutOfBoundsAllocationPool', { start: '10.0.0.250', end: '10.0.1.5' }],
    ];
    for (const [type, pool] of cases) {
      assert.throws(() => validatePools([pool], cidr), { type }, JSON.stringify(pool));
    }
  });

  it('rejects overlapping pools, even when they only share one address', () => {
    assert.throws(
      () =>
        validatePools(
          [
            { start: '10.0.0.10', end: '10.0.0.20' },
            { start: '10.0.0.20', end: '10.0.0.30' },
          ],
          cidr,
        ),
      { type: 'OverlappingAllocationPools' },
    );
    assert.doesNotThrow(() =>
      validatePools(
        [
          { start: '10.0.0.10', end: '10.0.0.20' },
          { start: '10.0.0.21', end: '10.0.0.30' },
        ],
        cidr,
      ),
    );
  });
});

describe('gateway checks', () => {
  it('a gateway inside a pool conflicts with it, one next to it does not', () => {
    const pools = [{ first: ip('10.0.0.10'), last: ip('10.0.0.20') }];
    assert.throws(() => checkGatewayOutOfPools(4, ip('10.0.0.10'), pools), {
      type: 'GatewayConflictWithAllocationPools',
    });
    assert.throws(() => checkGatewayOutOfPools(4, ip('10.0.0.20'), pools), {
      type: 'GatewayConflictWithAllocationPools',
    });
    assert.doesNotThrow(() => checkGatewayOutOfPools(4, ip('10.0.0.9'), pools));
    assert.doesNotThrow(() => checkGatewayOutOfPools(4, ip('10.0.0.21'), pools));
  });

  it('an IPv4 gateway may not be the network or broadcast address; IPv6 has no such rule', () => {
    assert.equal(gatewayInvalidInSubnet(net('10.0.0.0/24'), ip('10.0.0.0')), true);
    assert.equal(gatewayInvalidInSubnet(net('10.0.0.0/24'), ip('10.0.0.255')), true);
    assert.equal(gatewayInvalidInSubnet(net('10.0.0.0/24'), ip('10.0.0.1')), false);
    assert.equal(gatewayInvalidInSubnet(net('10.0.0.0/24'), ip('192.168.0.0')), false, 'outside: not this check');
    assert.equal(gatewayInvalidInSubnet(net('fd00::/64'), ip('fd00::')), false);
  });
});

describe('isValidPortAddress', () => {
  it('IPv4: never the network or broadcast address, never outside the subnet', () => {
    const cidr = net('10.0.0.0/24');
    assert.equal(isValidPortAddress(cidr, ip('10.0.0.5'), 'compute:nova'), true);
    assert.equal(isValidPortAddress(cidr, ip('10.0.0.0'), 'compute:nova'), false);
    assert.equal(isValidPortAddress(cidr, ip('10.0.0.255'), 'network:router_interface'), false);
    assert.equal(isValidPortAddress(cidr, ip('10.0.1.5'), 'compute:nova'), false);
  });

  it('IPv6: the subnet-router anycast address only for router ports (and ownerless ports)', () => {
    const cidr = net('fd00::/64');
    assert.equal(isValidPortAddress(cidr, ip('fd00::'), 'compute:nova'), false);
    assert.equal(isValidPortAddress(cidr, ip('fd00::'), 'network:router_interface'), true);
    assert.equal(isValidPortAddress(cidr, ip('fd00::'), 'network:router_gateway'), true);
    assert.equal(isValidPortAddress(cidr, ip('fd00::'), ''), true);
    assert.equal(isValidPortAddress(cidr, ip('fd00::5'), 'compute:nova'), true);
    assert.equal(isValidPortAddress(cidr, ip('fd01::5'), 'compute:nova'), false);
  });
});

describe('auto-address subnets and EUI-64', () => {
  it('SLAAC and DHCPv6-stateless (address or RA mode) are auto-address; DHCPv6-stateful and IPv4 are not', () => {
    const of = (version: 4 | 6, address: string | null, ra: string | null) =>
      isAutoAddressSubnet({ version, ipv6AddressMode: address, ipv6RaMode: ra });
    assert.equal(of(6, 'slaac', null), true);
    assert.equal(of(6, null, 'slaac'), true);
    assert.equal(of(6, 'dhcpv6-stateless', null), true);
    assert.equal(of(6, null, 'dhcpv6-stateless'), true);
    assert.equal(of(6, 'dhcpv6-stateful', 'dhcpv6-stateful'), false);
    assert.equal(of(6, null, null), false);
    assert.equal(of(4, 'slaac', 'slaac'), false);
  });

  it('the EUI-64 address is the prefix plus the MAC with the U/L bit flipped and ff:fe inserted', () => {
    const s = subnet('2001:db8:1::/64', { mode: 'slaac' });
    assert.equal(formatIp(6, eui64For(s, 'fa:16:3e:12:34:56')), '2001:db8:1:0:f816:3eff:fe12:3456');
    assert.equal(formatIp(6, eui64For(s, '00:00:00:00:00:01')), '2001:db8:1:0:200:ff:fe00:1');
  });
});

describe('chooseFreeAddress', () => {
  it('never hands out the gateway, even when the pools include it', async () => {
    // A gateway inside the pools can only come from a pool update that still holds it (the service
    // checks it on create); IPAM must still skip it.
    const s = subnet('10.0.0.0/29', { gateway: '10.0.0.3', pools: [{ start: '10.0.0.1', end: '10.0.0.6' }] });
    const all = await exhaust(s);
    assert.deepEqual(all.sort(), ['10.0.0.1', '10.0.0.2', '10.0.0.4', '10.0.0.5', '10.0.0.6']);
    const lowestFirst = await exhaust(s, true);
    assert.deepEqual(lowestFirst, ['10.0.0.1', '10.0.0.2', '10.0.0.4', '10.0.0.5', '10.0.0.6']);
  });

  it('never hands out the gateway on a subnet big enough for random probes', async () => {
    // 254 addresses: the random probes run first; the gateway sits in the pool's first addresses.
    const s = subnet('10.1.0.0/24', { gateway: '10.1.0.2', pools: [{ start: '10.1.0.1', end: '10.1.0.254' }] });
    for (let i = 0; i < 300; i++) assert.notEqual(await choose(s, ['10.1.0.1']), '10.1.0.2');
    const all = await exhaust(s);
    assert.equal(all.length, 253);
    assert.ok(!all.includes('10.1.0.2'));
  });

  it('hands out only addresses inside the pools, each once, then null', async () => {
    const s = subnet('10.0.0.0/24', {
      pools: [
        { start: '10.0.0.10', end: '10.0.0.12' },
        { start: '10.0.0.200', end: '10.0.0.201' },
      ],
    });
    assert.equal(poolSize(s), 5n);
    const all = await exhaust(s);
    assert.deepEqual(all.sort(), ['10.0.0.10', '10.0.0.11', '10.0.0.12', '10.0.0.200', '10.0.0.201']);
    assert.equal(await choose(s, all), null);
  });

  it('skips taken addresses and returns null when every pool address is taken', async () => {
    const s = subnet('10.0.0.0/29');
    const pool = ['10.0.0.2', '10.0.0.3', '10.0.0.4', '10.0.0.5', '10.0.0.6'];
    assert.equal(
      await choose(
        s,
        pool.filter((a) => a !== '10.0.0.5'),
      ),
      '10.0.0.5',
    );
    assert.equal(await choose(s, pool), null);
  });

  it('a subnet without pools has nothing to hand out', async () => {
    const s: IpamSubnet = { ...subnet('10.0.0.0/24'), pools: [] };
    assert.equal(poolSize(s), 0n);
    assert.equal(await choose(s), null);
  });

  it('`lowest` takes the first free address of the pools in order (DHCP ports)', async () => {
    const s = subnet('10.0.0.0/24', {
      pools: [
        { start: '10.0.0.100', end: '10.0.0.101' },
        { start: '10.0.0.20', end: '10.0.0.21' },
      ],
    });
    assert.equal(await choose(s, [], true), '10.0.0.100');
    assert.equal(await choose(s, ['10.0.0.100'], true), '10.0.0.101');
    assert.equal(await choose(s, ['10.0.0.100', '10.0.0.101'], true), '10.0.0.20');
  });

  it('picks among the first free addresses, not anywhere in a big pool', async () => {
    // Neutron's window: the first 1000 free addresses of the pools.
    const s = subnet('10.0.0.0/16');
    const windowEnd = ip('10.0.0.1') + 1000n;
    for (let i = 0; i < 50; i++) {
      const chosen = ip((await choose(s))!);
      assert.ok(chosen >= ip('10.0.0.2') && chosen <= windowEnd, `${formatIp(4, chosen)} is past the window`);
    }
  });

  it('on a dense subnet, finds the free addresses past the allocated ones', async () => {
    // The first 3000 addresses taken: every choice must be free and inside the pool.
    const s = subnet('10.2.0.0/16');
    const taken = new Set<string>();
    for (let n = 2n; n < 3002n; n++) taken.add(formatIp(4, ip('10.2.0.0') + n));
    for (let i = 0; i < 20; i++) {
      const chosen = (await choose(s, taken))!;
      assert.ok(!taken.has(chosen), `${chosen} is taken`);
      assert.ok(ip(chosen) >= ip('10.2.11.186') && ip(chosen) <= ip('10.2.255.254'), chosen);
    }
    // With the allocated addresses packed at the bottom, the probes past them always hit a free
    // address: the whole allocated set is never read.
    const asked = { takenAmong: 0, allocated: 0, allocatedCount: 0 };
    for (let i = 0; i < 20; i++) {
      const chosen = await chooseFreeAddress(s, queriesOf(taken, asked), false);
      assert.ok(chosen !== null && !taken.has(chosen));
    }
    assert.equal(asked.allocated, 0, 'the allocated set was read');
    // One batch in the (full) first window, the count, one batch past the allocated addresses.
    assert.deepEqual(asked, { takenAmong: 40, allocated: 0, allocatedCount: 20 });
  });

  it('asks about its random candidates in one question, not one per guess', async () => {
    // A quarter of the first window taken: a batch of 16 candidates almost surely holds a free one.
    const s = subnet('10.3.0.0/16');
    const taken = new Set<string>();
    for (let n = 2n; n < 1002n; n += 4n) taken.add(formatIp(4, ip('10.3.0.0') + n));
    const asked = { takenAmong: 0, allocated: 0, allocatedCount: 0 };
    const chosen = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const ipText = (await chooseFreeAddress(s, queriesOf(taken, asked), false))!;
      assert.ok(!taken.has(ipText), `${ipText} is taken`);
      chosen.add(ipText);
    }
    // 0.25^16 per choice that all 16 are taken: a second question is a one-in-10^8 event.
    assert.deepEqual(asked, { takenAmong: 20, allocated: 0, allocatedCount: 0 });
    assert.ok(chosen.size > 1, 'the choice is random, not the first free address');
  });

  it('IPv6: a /64 hands out pool addresses, never the gateway, the lowest being ::1 after the anycast one', async () => {
    const s = subnet('fd00:1::/64', { mode: 'dhcpv6-stateful' });
    assert.equal(await choose(s, [], true), 'fd00:1::1');
    for (let i = 0; i < 20; i++) {
      const chosen = (await choose(s))!;
      assert.notEqual(chosen, 'fd00:1::');
      assert.ok(ip(chosen) >= ip('fd00:1::1') && ip(chosen) <= ip('fd00:1::3e9'), chosen);
    }
  });
});

describe('toIpamSubnet', () => {
  it('reads a subnet row: numbers for the gateway and pools, JSON columns parsed', () => {
    const s = toIpamSubnet({
      id: 's',
      network_id: 'n',
      ip_version: 6,
      cidr: 'fd00:2::/64',
      gateway_ip: 'fd00:2::1',
      allocation_pools: JSON.stringify([{ start: 'fd00:2::2', end: 'fd00:2::ff' }]),
      ipv6_address_mode: 'slaac',
      ipv6_ra_mode: null,
      service_types: JSON.stringify(['network:dhcp']),
    });
    assert.equal(s.version, 6);
    assert.equal(s.gateway, ip('fd00:2::1'));
    assert.deepEqual(s.pools, [{ first: ip('fd00:2::2'), last: ip('fd00:2::ff') }]);
    assert.deepEqual(s.serviceTypes, ['network:dhcp']);
    assert.equal(isAutoAddressSubnet(s), true);
    assert.equal(toIpamSubnet({ ...rowV4, gateway_ip: null }).gateway, null);
  });
});

const rowV4 = {
  id: 's4',
  network_id: 'n',
  ip_version: 4,
  cidr: '10.0.0.0/24',
  gateway_ip: '10.0.0.1',
  allocation_pools: JSON.stringify([{ start: '10.0.0.2', end: '10.0.0.254' }]),
  ipv6_address_mode: null,
  ipv6_ra_mode: null,
  service_types: '[]',
};
