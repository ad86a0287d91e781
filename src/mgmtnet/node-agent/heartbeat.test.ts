import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { describe, it } from 'node:test';
import { decodeHeartbeat, encodeHeartbeat, HeartbeatError } from './heartbeat.js';

const message = { id: '6e1b5e4e-6c8a-4c1d-9d0e-0a2b3c4d5e6f', seq: 7, ver: 3, listeners: {}, pools: {} };

describe('Octavia heartbeat envelope', () => {
  it('round-trips under the same key, ending in the 64-char hex digest', () => {
    const datagram = encodeHeartbeat(message, 'k1');
    assert.match(datagram.subarray(-64).toString('ascii'), /^[0-9a-f]{64}$/);
    assert.deepEqual(decodeHeartbeat(datagram, 'k1'), message);
  });

  it('refuses another key', () => {
    assert.throws(() => decodeHeartbeat(encodeHeartbeat(message, 'k1'), 'k2'), HeartbeatError);
  });

  it('accepts the legacy raw 32-byte digest', () => {
    const payload = deflateSync(Buffer.from(JSON.stringify(message)), { level: 9 });
    const legacy = Buffer.concat([payload, createHmac('sha256', 'k1').update(payload).digest()]);
    assert.deepEqual(decodeHeartbeat(legacy, 'k1'), message);
  });
});
