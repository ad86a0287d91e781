/** The management network's CIDR arithmetic: first, last, next and previous addresses, overlap. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addressAfter, addressBefore, cidrContains, cidrsOverlap, firstHost, lastHost } from './cidr.js';

describe('cidr arithmetic', () => {
  it('first and last usable addresses, IPv4 and IPv6', () => {
    assert.deepEqual([firstHost('172.24.0.0/16'), lastHost('172.24.0.0/16')], ['172.24.0.1', '172.24.255.254']);
    assert.deepEqual(
      [firstHost('fd00:24::/64'), lastHost('fd00:24::/64')],
      ['fd00:24::1', 'fd00:24::ffff:ffff:ffff:fffe'],
    );
  });

  it('steps across byte boundaries both ways', () => {
    assert.equal(addressAfter('10.0.0.255'), '10.0.1.0');
    assert.equal(addressBefore('10.0.1.0'), '10.0.0.255');
    assert.equal(addressAfter('fd00::ffff'), 'fd00::1:0');
  });

  it('containment and overlap stay within one family', () => {
    assert.equal(cidrContains('10.0.0.0/8', '10.1.2.3'), true);
    assert.equal(cidrContains('10.0.0.0/8', 'fd00::1'), false);
    assert.equal(cidrsOverlap('10.0.0.0/8', '10.1.0.0/16'), true);
    assert.equal(cidrsOverlap('10.0.0.0/16', '10.1.0.0/16'), false);
  });
});
