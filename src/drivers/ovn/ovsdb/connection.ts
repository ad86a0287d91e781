/**
 * One JSON-RPC 1.0 connection to an ovsdb-server (RFC 7047 §4) over `tcp:HOST:PORT` or
 * `unix:PATH`: request ids and the pending-request map, notifications, and the `echo` keep-alive
 * in both directions. A connection is used once: when it closes, every pending request rejects
 * and whoever owns it opens a new one.
 *
 * This module owns the wire session only; it knows no database, schema or replica.
 */
import { EventEmitter } from 'node:events';
import { connect as netConnect, type Socket } from 'node:net';
import {
  OvsdbCallTimeout,
  OvsdbConnectionClosed,
  OvsdbProtocolError,
  OvsdbRpcError,
  OvsdbUnsupportedRemote,
} from './errors.js';
import { JsonTextSplitter } from './json-stream.js';

export type OvsdbRemote = { kind: 'tcp'; host: string; port: number } | { kind: 'unix'; path: string };

/** Probe ticks in a row without a byte from the server before an idle connection is dropped (30 s at
 * the default 5 s: a loaded SB was seen silent for more than 15 s while ovn-northd wrote 100,000 ports). */
const SILENT_INTERVALS = 6;

/** ovsdb's own default port when a `tcp:` remote names none. */
const DEFAULT_OVSDB_PORT = 6640;

/** Parses ovsdb's remote syntax: `tcp:IP[:PORT]` (IPv6 in brackets), `unix:PATH`. */
export function parseRemote(remote: string): OvsdbRemote {
  const colon = remote.indexOf(':');
  const scheme = colon < 0 ? '' : remote.slice(0, colon);
  const rest = remote.slice(colon + 1);
  if (scheme === 'unix' && rest) return { kind: 'unix', path: rest };
  if (scheme === 'tcp') {
    const match = /^(?:\[([^\]]+)\]|([^:]+))(?::(\d+))?$/.exec(rest);
    const port = match?.[3] === undefined ? DEFAULT_OVSDB_PORT : Number(match[3]);
    if (match && port > 0 && port < 65536) return { kind: 'tcp', host: (match[1] ?? match[2])!, port };
    throw new OvsdbUnsupportedRemote(`malformed tcp remote ${remote} (expected tcp:HOST:PORT)`);
  }
  if (scheme === 'ssl') throw new OvsdbUnsupportedRemote(`ssl remotes are not supported yet: ${remote}`);
  throw new OvsdbUnsupportedRemote(`unsupported ovsdb remote ${remote} (use tcp:HOST:PORT or unix:PATH)`);
}

export interface JsonRpcConnectionOptions {
  /** How often we send `echo`; 0 disables our probe (the server may still probe us). Default 5000. */
  echoIntervalMs?: number;
  /** How long `connect` may take before it fails. Default 10000. */
  connectTimeoutMs?: number;
  /** Aborting fails a `connect` in progress and closes the connection once open. */
  signal?: AbortSignal;
  /**
   * How long any request (transact, echo, monitor) may wait for its answer before it rejects with
   * `OvsdbCallTimeout`; an echo that times out closes the connection. 0 waits forever. Default 60000.
   */
  callTimeoutMs?: number;
}

interface PendingRequest {
  method: string;
  resolve(result: unknown): void;
  reject(error: Error): void;
}

interface JsonRpcConnectionEvents {
  /** A message with a method and a null id (`update2`, ...), in arrival order. */
  notification: [method: string, params: unknown[]];
  /** Emitted once; `reason` is undefined after a deliberate `close()` without one. */
  close: [reason: Error | undefined];
}

export class JsonRpcConnection extends EventEmitter<JsonRpcConnectionEvents> {
  private readonly splitter = new JsonTextSplitter();
  private readonly pending = new Map<number, PendingRequest>();
  private nextId = 1;
  private closeReason: Error | undefined;
  private isClosed = false;
  private echoTimer: NodeJS.Timeout | undefined;
  private echoOutstanding = false;
  private receivedSinceLastProbe = false;
  /** Ticks in a row with our echo unanswered and nothing received (see `probe`). */
  private silentIntervals = 0;
  /** Bytes read so far (a request's timeout starts over while a reply streams in). */
  private bytesReceived = 0;
  /** Resolves once the socket is fully closed (its handle released), after `close`. */
  readonly socketClosed: Promise<void>;
  /** Echo requests from the server that we answered (its inactivity probe). */
  serverEchoesAnswered = 0;
  /** Answers to our own echo requests. */
  echoRepliesReceived = 0;

  private constructor(
    readonly remote: string,
    private readonly socket: Socket,
    echoIntervalMs: number,
    private readonly callTimeoutMs: number,
  ) {
    super();
    this.socketClosed = new Promise((resolve) => socket.once('close', () => resolve()));
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('error', (error) => this.close(error));
    socket.on('close', () => this.close(new Error('connection closed by peer')));
    if (echoIntervalMs > 0) this.echoTimer = setInterval(() => this.probe(), echoIntervalMs);
  }

  /** Opens a connection; rejects when the remote cannot be reached within the timeout. */
  static connect(remote: string, options: JsonRpcConnectionOptions = {}): Promise<JsonRpcConnection> {
    const target = parseRemote(remote);
    const { echoIntervalMs = 5000, connectTimeoutMs = 10_000, callTimeoutMs = 60_000, signal } = options;
    return new Promise((resolve, reject) => {
      const socket =
        target.kind === 'unix'
          ? netConnect({ path: target.path })
          : netConnect({ host: target.host, port: target.port });
      // Rejects only once the socket is gone, so a failed or aborted attempt leaves no handle behind.
      const fail = (reason: Error) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', abort);
        socket.removeListener('error', fail);
        socket.on('error', () => {}); // a late error from the dying socket has nobody left to tell
        socket.once('close', () => reject(new OvsdbConnectionClosed(remote, reason)));
        socket.destroy();
      };
      const abort = () => fail(new Error('aborted'));
      const timer = setTimeout(
        () => fail(new Error(`connect timed out after ${connectTimeoutMs} ms`)),
        connectTimeoutMs,
      );
      socket.once('error', fail);
      if (signal?.aborted) return abort();
      signal?.addEventListener('abort', abort, { once: true });
      socket.once('connect', () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', abort);
        socket.removeListener('error', fail);
        if (target.kind === 'tcp') socket.setNoDelay(true);
        const connection = new JsonRpcConnection(remote, socket, echoIntervalMs, callTimeoutMs);
        if (signal) {
          const closeOnAbort = () => connection.close(new Error('aborted'));
          signal.addEventListener('abort', closeOnAbort, { once: true });
          connection.once('close', () => signal.removeEventListener('abort', closeOnAbort));
        }
        resolve(connection);
      });
    });
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /** Sends a request; rejects with `OvsdbRpcError` on an error reply, `OvsdbConnectionClosed` on close. */
  request<T = unknown>(method: string, params: readonly unknown[]): Promise<T> {
    if (this.isClosed) return Promise.reject(new OvsdbConnectionClosed(this.remote, this.closeReason));
    const id = this.nextId++;
    const timeoutMs = this.callTimeoutMs;
    return new Promise<T>((resolve, reject) => {
      // A server that keeps the connection alive but never answers must not hold the caller forever.
      // A reply still streaming in (a monitor snapshot of 100,000 rows on a loaded server takes
      // longer than the timeout to arrive) is progress, not silence: the wait starts over.
      let timer: NodeJS.Timeout | undefined;
      const arm = (bytesSeen: number) => {
        timer = setTimeout(() => {
          if (this.splitter.bufferedBytes > 0 && this.bytesReceived > bytesSeen) return arm(this.bytesReceived);
          this.pending.delete(id);
          reject(new OvsdbCallTimeout(method, timeoutMs));
        }, timeoutMs);
      };
      if (timeoutMs > 0) arm(this.bytesReceived);
      this.pending.set(id, {
        method,
        resolve: (result) => {
          clearTimeout(timer);
          resolve(result as T);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      this.send({ method, params, id });
    });
  }

  /** Closes the socket and rejects every pending request. Safe to call more than once. */
  close(reason?: Error): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.closeReason = reason;
    clearInterval(this.echoTimer);
    this.socket.destroy();
    const error = new OvsdbConnectionClosed(this.remote, reason);
    for (const request of this.pending.values()) request.reject(error);
    this.pending.clear();
    this.emit('close', reason);
  }

  private send(message: object): void {
    this.socket.write(JSON.stringify(message));
  }

  /**
   * Our keep-alive. The peer counts as alive when it answered the last echo or sent anything at
   * all since the last tick: a large monitor reply queues our echo's answer behind megabytes, and
   * declaring such a busy but healthy server dead would make us reconnect and ask for it again.
   *
   * Silence ends the connection only after `SILENT_INTERVALS` ticks in a row, and not at all while
   * a request of ours other than the echo waits: ovsdb-server is single-threaded, and one large
   * transaction, or the snapshot it composes for a monitor, keeps it silent for seconds on a loaded
   * machine. Dropping it then costs a full re-read that loads it further (at 100,000 ports this
   * turned one pass into twenty minutes of re-reads); the request's own call timeout (and the
   * echo's) still ends a connection to a server that hung.
   */
  private probe(): void {
    if (this.receivedSinceLastProbe || !this.echoOutstanding) this.silentIntervals = 0;
    else if (++this.silentIntervals >= SILENT_INTERVALS && !this.busyWithRequests()) {
      this.close(new Error(`no answer to echo within ${SILENT_INTERVALS} intervals`));
      return;
    }
    this.receivedSinceLastProbe = false;
    if (this.echoOutstanding) return;
    this.echoOutstanding = true;
    this.request('echo', ['octonet']).then(
      () => {
        this.echoOutstanding = false;
        this.echoRepliesReceived++;
      },
      (error: unknown) => {
        if (error instanceof OvsdbCallTimeout) this.close(error);
      },
    );
  }

  /** Whether a request other than our echo waits for its answer. */
  private busyWithRequests(): boolean {
    for (const request of this.pending.values()) if (request.method !== 'echo') return true;
    return false;
  }

  private receive(chunk: Buffer): void {
    this.receivedSinceLastProbe = true;
    this.bytesReceived += chunk.length;
    let messages: unknown[];
    try {
      messages = this.splitter.push(chunk);
    } catch (error) {
      this.close(error as Error);
      return;
    }
    for (const message of messages) {
      if (this.isClosed) return;
      this.dispatch(message);
    }
  }

  private dispatch(message: unknown): void {
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      this.close(new OvsdbProtocolError('JSON-RPC message is not an object'));
      return;
    }
    const { method, params, id, result, error } = message as Record<string, unknown>;
    if (typeof method === 'string') {
      const args = Array.isArray(params) ? params : [];
      if (id === null || id === undefined) this.emit('notification', method, args);
      // The server's inactivity probe: the reply repeats the params (RFC 7047 §4.1.11).
      else if (method === 'echo') {
        this.send({ result: args, error: null, id });
        this.serverEchoesAnswered++;
      } else this.send({ result: null, error: `unknown method ${method}`, id });
      return;
    }
    const request = typeof id === 'number' ? this.pending.get(id) : undefined;
    if (!request) return; // an answer to a request we gave up on; nothing waits for it
    this.pending.delete(id as number);
    if (error !== null && error !== undefined) request.reject(new OvsdbRpcError(request.method, error));
    else request.resolve(result);
  }
}
