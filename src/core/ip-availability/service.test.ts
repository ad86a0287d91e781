/** Subnet totals from pools or CIDR, and the exact-integer JSON the API prints them with. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toJsonWithBigInts } from '../../api/ip-availability-routes.js';
import { subnetTotalIps } from './service.js';

describe('subnetTotalIps', () => {
  it('sums the allocation pools', () => {
    const pools = [
      { start: '10.20.0.10', end: '10.20.0.99' },
      { start: '10.20.0.150', end: '10.20.0.199' },
    ];
    assert.equal(subnetTotalIps('10.20.0.0/24', JSON.stringify(pools)), 140n);
  });

  it('counts the whole CIDR when there is no pool, as Neutron does', () => {
    assert.equal(subnetTotalIps('10.96.0.0/24', '[]'), 256n);
    assert.equal(subnetTotalIps('fd85::/64', null), 18446744073709551616n);
  });

  it('keeps IPv6 pool sizes exact beyond 2^53', () => {
    const pools = [{ start: 'fd00:20::2', end: 'fd00:20::ffff:ffff:ffff:ffff' }];
    assert.equal(subnetTotalIps('fd00:20::/64', JSON.stringify(pools)), 18446744073709551614n);
  });
});

describe('toJsonWithBigInts', () => {
  it('prints bigints as integers and everything else as JSON.stringify does', () => {
    const value = { a: 18446744073709551755n, b: [1, 'x"y', null, true, { c: 0n }], d: undefined, 'e"': 1.5 };
    assert.equal(toJsonWithBigInts(value), '{"a":18446744073709551755,"b":[1,"x\\"y",null,true,{"c":0}],"e\\"":1.5}');
  });
});
