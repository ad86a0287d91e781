/**
 * Octavia's heartbeat envelope (amphora → health manager, UDP 5555), for probes, tests and the
 * demo: `zlib(JSON) || hex(HMAC-SHA256(zlib(JSON), heartbeat_key))`. Receivers accept the 64-byte
 * hex digest and the legacy 32-byte raw one, as Octavia's `heartbeat_udp` does; a bad MAC is
 * refused. The JSON is message version 3 (`id`, `seq`, `ver`, `listeners`, `pools`).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { deflateSync, inflateSync } from 'node:zlib';

export interface HeartbeatMessage {
  id: string;
  seq: number;
  ver: number;
  listeners: Record<string, unknown>;
  pools: Record<string, unknown>;
  [key: string]: unknown;
}

export class HeartbeatError extends Error {
  override readonly name = 'HeartbeatError';
}

const HEX_DIGEST = 64;
const RAW_DIGEST = 32;

function mac(payload: Buffer, key: string): Buffer {
  return createHmac('sha256', Buffer.from(key, 'utf8')).update(payload).digest();
}

export function encodeHeartbeat(message: HeartbeatMessage, key: string): Buffer {
  const payload = deflateSync(Buffer.from(JSON.stringify(message), 'utf8'), { level: 9 });
  return Buffer.concat([payload, Buffer.from(mac(payload, key).toString('hex'), 'ascii')]);
}

/** The message, if the envelope's MAC is right under `key`; throws HeartbeatError otherwise. */
export function decodeHeartbeat(datagram: Buffer, key: string): HeartbeatMessage {
  const tryDigest = (length: number, asHex: boolean): HeartbeatMessage | undefined => {
    if (datagram.length <= length) return undefined;
    const payload = datagram.subarray(0, datagram.length - length);
    const given = datagram.subarray(datagram.length - length);
    const expected = asHex ? Buffer.from(mac(payload, key).toString('hex'), 'ascii') : mac(payload, key);
    if (!timingSafeEqual(given, expected)) return undefined;
    return JSON.parse(inflateSync(payload).toString('utf8')) as HeartbeatMessage;
  };
  const message = tryDigest(HEX_DIGEST, true) ?? tryDigest(RAW_DIGEST, false);
  if (!message) throw new HeartbeatError('heartbeat MAC does not match: wrong heartbeat_key, or not a heartbeat');
  return message;
}
