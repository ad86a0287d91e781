/**
 * The response-body pool over a real HTTP server: a body goes back to the pool once its response
 * has been written out, and only then; the next body of its size class reuses its memory; small
 * bodies and what exceeds the bound are not kept.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { BodyPool } from './body-pool.js';

describe('BodyPool', () => {
  const pool = new BodyPool(300 * 1024);
  const memories: ArrayBuffer[] = [];
  let server: Server;
  let url: string;

  before(async () => {
    // GET /<length>/<byte>[/<together>]: a body of that many bytes, each the given value; sent
    // once `together` bodies have been taken (all of them then held at once).
    let waiting: (() => void)[] = [];
    server = createServer((request, response) => {
      const [, length, byte, together = 1] = request.url!.split('/').map(Number);
      const body = pool.take(length!, response);
      memories.push(body.buffer as ArrayBuffer);
      body.fill(byte!);
      waiting.push(() => response.end(body));
      if (waiting.length < together) return;
      for (const send of waiting) send();
      waiting = [];
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const get = async (length: number, byte: number, together = 1) => {
    const body = Buffer.from(await (await fetch(`${url}/${length}/${byte}/${together}`)).arrayBuffer());
    assert.equal(body.length, length);
    assert.ok(
      body.every((b) => b === byte),
      'the body as written',
    );
  };

  it('takes a body back once written out, and gives its memory to the next of its size', async () => {
    await get(100_000, 1);
    assert.deepEqual(pool.size, { bytes: 131_072, buffers: 1 }, 'a 100,000-byte body in a 128 KiB buffer');
    await get(70_000, 2);
    assert.equal(memories[1], memories[0], 'the same memory again');
    assert.deepEqual(pool.size, { bytes: 131_072, buffers: 1 });
  });

  it('gives concurrent responses buffers of their own', async () => {
    const from = memories.length;
    await Promise.all(Array.from({ length: 8 }, (_, i) => get(90_000 + i, 10 + i, 8)));
    assert.equal(new Set(memories.slice(from)).size, 8, 'eight bodies held at once, eight buffers');
    assert.deepEqual(pool.size, { bytes: 2 * 131_072, buffers: 2 }, 'two kept, within the bound; the rest let go');
  });

  it('leaves small bodies to Node', async () => {
    const before = pool.size;
    await get(1000, 3);
    assert.deepEqual(pool.size, before);
  });
});
