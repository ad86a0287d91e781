/**
 * A measurement proxy: a tiny HTTP forwarder put in the Keystone catalog as the `network` endpoint,
 * in front of octonet or of the real Neutron alike, so both sides' "Neutron calls Octavia and Nova
 * made" are counted and timed the same way. Each call's latency runs from the proxy having read the
 * request forwarded to the last byte of the answer written back: the server's time plus one loopback
 * hop and the proxy's own copying, the same on both sides. By default it changes nothing in the
 * exchange (the Host header is passed on, so the links Neutron builds point back at the proxy); a
 * side may give `prepare`, which rewrites a request before it is forwarded and before its clock
 * starts (the anchor's: Keystone's token check, see neutron-sides.ts).
 */
import {
  createServer,
  request,
  Agent,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedCall {
  readonly method: string;
  /** The request path with its query. */
  readonly path: string;
  readonly status: number;
  /** Request head read → answer's last byte written. */
  readonly ms: number;
}

/** What is forwarded: the path (with its query) and the headers. */
export interface Forwarded {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
}

/** Rewrites a request before it is forwarded; not timed. */
export type Prepare = (request: Forwarded) => Promise<Forwarded>;

export interface MeasurementProxy {
  /** The proxy's root, e.g. `http://127.0.0.1:40123` (what the catalog names). */
  readonly url: string;
  /** Every call answered so far, in the order they finished. */
  calls(): readonly ProxiedCall[];
  close(): Promise<void>;
}

export async function startMeasurementProxy(upstreamUrl: string, prepare?: Prepare): Promise<MeasurementProxy> {
  const upstream = new URL(upstreamUrl);
  const agent = new Agent({ keepAlive: true });
  const calls: ProxiedCall[] = [];

  const forward = (req: IncomingMessage, res: ServerResponse, to: Forwarded) => {
    const started = performance.now();
    const record = (status: number) =>
      calls.push({ method: req.method ?? '?', path: req.url ?? '', status, ms: performance.now() - started });
    const outgoing = request(
      { agent, host: upstream.hostname, port: upstream.port, method: req.method, path: to.path, headers: to.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
        answer.pipe(res);
        res.once('finish', () => record(answer.statusCode ?? 502));
      },
    );
    outgoing.once('error', (error) => {
      // The server went away mid-call: the client sees a 502, and the call is counted as one.
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`measurement proxy: ${error.message}`);
      record(502);
    });
    req.pipe(outgoing);
  };

  const server = createServer((req, res) => {
    const asIs = { path: req.url ?? '/', headers: req.headers };
    if (!prepare) return forward(req, res, asIs);
    // The body waits in the request stream (paused) until forward() pipes it.
    prepare(asIs).then(
      (to) => forward(req, res, to),
      (error: Error) => {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`measurement proxy: ${error.message}`);
      },
    );
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls: () => calls,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}
