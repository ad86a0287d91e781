import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inNetworkOrder } from './full-sync.js';

describe('inNetworkOrder', () => {
  it('groups the ports by network, keeping the order of networks and of ports within each', () => {
    const ports = [
      { id: 'a1', network_id: 'a' },
      { id: 'b1', network_id: 'b' },
      { id: 'a2', network_id: 'a' },
      { id: 'c1', network_id: 'c' },
      { id: 'b2', network_id: 'b' },
      { id: 'a3', network_id: 'a' },
    ];
    assert.deepEqual(
      inNetworkOrder(ports).map((p) => p.id),
      ['a1', 'a2', 'a3', 'b1', 'b2', 'c1'],
    );
    assert.deepEqual(inNetworkOrder([]), []);
  });
});
