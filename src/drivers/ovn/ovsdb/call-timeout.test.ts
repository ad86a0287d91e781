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
