/**
 * A server that keeps a connection open but never answers: a request rejects with
 * `OvsdbCallTimeout` instead of hanging, and an echo left unanswered closes the connection even
 * while the server keeps sending other traffic (its own echo probes). The server is a plain TCP
 * listener standing in for a stuck ovsdb-server (a fake, named as such).
 */
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { JsonRpcConnection } from './connection.js';
import { OvsdbCallTimeout } from './errors.js';

describe('OVSDB call timeouts (fake silent server)', () => {
  let server: Server;
  let port = 0;
  const sockets: Socket[] = [];
  const chatter: NodeJS.Timeout[] = [];

  before(async () => {
    server = createServer((socket) => {
      sockets.push(socket);
      socket.on('error', () => {});
      // Reads everything, answers nothing, but keeps probing the client as ovsdb-server does.
      let n = 0;
      chatter.push(setInterval(() => socket.write(JSON.stringify({ method: 'echo', params: [], id: `s${n++}` })), 20));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  after(async () => {
    for (const timer of chatter) clearInterval(timer);
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  it('rejects a transact that is never answered', async () => {
    const connection = await JsonRpcConnection.connect(`tcp:127.0.0.1:${port}`, {
      echoIntervalMs: 0,
      callTimeoutMs: 200,
    });
    try {
      await assert.rejects(connection.request('transact', ['OVN_Northbound']), OvsdbCallTimeout);
      assert.equal(connection.closed, false);
    } finally {
      connection.close();
    }
  });

  it('closes the connection when our echo is never answered, though the server keeps talking', async () => {
    const connection = await JsonRpcConnection.connect(`tcp:127.0.0.1:${port}`, {
      echoIntervalMs: 50,
      callTimeoutMs: 300,
    });
    const reason = await new Promise<Error | undefined>((resolve) => connection.once('close', resolve));
    assert.ok(reason instanceof OvsdbCallTimeout, String(reason));
    assert.equal(reason.method, 'echo');
  });
});

/**
 * A server busy with our request (a large transaction, a monitor snapshot) is silent but alive:
 * the connection waits for the request's own timeout instead of dropping on silence, and a reply
 * that keeps streaming in is not timed out. The servers are plain TCP listeners (fakes, named as
 * such): one that never writes a byte, one that answers its first request slowly, in pieces.
 */
describe('OVSDB silence while a request is under way (fake servers)', () => {
  const servers: Server[] = [];
  const sockets: Socket[] = [];

  async function listen(onConnection: (socket: Socket) => void): Promise<number> {
    const server = createServer((socket) => {
      sockets.push(socket);
      socket.on('error', () => {});
      onConnection(socket);
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as { port: number }).port;
  }

  after(async () => {
    for (const socket of sockets) socket.destroy();
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  });

  it('keeps the connection while our request waits, then drops it once the silence is idle', async () => {
    const port = await listen(() => {}); // never writes
    const connection = await JsonRpcConnection.connect(`tcp:127.0.0.1:${port}`, {
      echoIntervalMs: 20,
      callTimeoutMs: 400,
    });
    const closed = new Promise<Error | undefined>((resolve) => connection.once('close', resolve));
    // 400 ms is twenty silent intervals: the request must end by its own timeout, not by a drop.
    const outcome = await connection.request('transact', ['OVN_Northbound']).then(
      () => 'answered',
      (error: unknown) => ({ error, closed: connection.closed }),
    );
    assert.ok(typeof outcome === 'object' && outcome.error instanceof OvsdbCallTimeout, String(outcome));
    assert.equal(outcome.closed, false);
    // Nothing of ours waits now but the echo: the silence ends the connection.
    const reason = await closed;
    assert.match(reason?.message ?? '', /no answer to echo|timed out/);
  });

  it('does not time out a reply that is still arriving', async () => {
    const reply = JSON.stringify({ id: 1, result: 'x'.repeat(20_000), error: null });
    const port = await listen((socket) => {
      socket.once('data', () => {
        // Ten pieces 40 ms apart: the whole answer takes about four times the call timeout.
        let at = 0;
        const step = Math.ceil(reply.length / 10);
        const timer = setInterval(() => {
          socket.write(reply.slice(at, at + step));
          at += step;
          if (at >= reply.length) clearInterval(timer);
        }, 40);
      });
    });
    const connection = await JsonRpcConnection.connect(`tcp:127.0.0.1:${port}`, {
      echoIntervalMs: 0,
      callTimeoutMs: 100,
    });
    try {
      const result = await connection.request<string>('monitor_cond', ['OVN_Northbound']);
      assert.equal(result.length, 20_000);
    } finally {
      connection.close();
    }
  });
});
