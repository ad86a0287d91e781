/**
 * The HTTP server: request ids, the caller's context, JSON bodies, Neutron's 404/405 answers, and
 * the registration of every route module.
 *
 * Route modules only translate HTTP to core calls and share `http.ts`; this module composes the
 * server from them and owns its hooks.
 */
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type HookHandlerDoneFunction,
} from 'fastify';
import { Counter, Histogram } from 'prom-client';
import { makeContext, type RequestContext } from '../core/context.js';
import { HTTPNotFound, httpError, NeutronError } from '../core/errors.js';
import type { HttpConfig } from '../config/config.js';
import { createAuthenticator } from '../auth/authenticator.js';
import { AuthenticationFailure } from '../auth/failures.js';
import { redactingLogger } from '../auth/log-redaction.js';
import { errorBody, sendError } from './errors.js';
import { route, type ApiDeps } from './http.js';
import { accessLine, lazyChildLoggerFactory, logAccessLine } from './request-log.js';
import { decodeBody, refuseNulInUrl } from './input-guard.js';
import { registerResourceRoutes } from './resource-routes.js';
import { registerTagRoutes } from './tag-routes.js';
import { registerQuotaRoutes } from './quota-routes.js';
import { registerAvailabilityZoneRoutes } from './availability-zone-routes.js';
import { registerAgentRoutes } from './agent-routes.js';
import { registerPortBindingRoutes } from './port-binding-routes.js';
import { registerDhcpAgentRoutes } from './dhcp-agent-routes.js';
import { registerRouterRoutes } from './router-routes.js';
import { registerBgpRoutes } from './bgp-routes.js';
import { registerServiceProviderRoutes } from './service-provider-routes.js';
import { registerIpAvailabilityRoutes } from './ip-availability-routes.js';
import { registerDiscoveryRoutes } from './discovery-routes.js';
import { registerQosRoutes } from './qos-routes.js';
import { registerWebRoutes } from '../web/routes.js';
import { isHealthPath, registerHealthRoutes } from './health-routes.js';

export type { ApiDeps } from './http.js';

/** The request id's name in log lines. */
const REQUEST_ID_LABEL = 'request_id';

/** Prometheus metrics (text format); outside the Neutron API's JSON conventions. */
const METRICS_PATH = '/metrics';
/** The topology page (`web/`): HTML, scripts and an event stream; it signs its callers in itself. */
const isWebPath = (url: string) => url === '/ui' || url.startsWith('/ui/');

/**
 * Whether Neutron serves this request outside keystonemiddleware's pipeline: the version document
 * (`/`) and any path outside `/v2.0` (a 404) need no token there. `/metrics` is octonet's own, for
 * scrapers that carry no token.
 */
function servedWithoutToken(request: FastifyRequest): boolean {
  const routeUrl = request.routeOptions.url;
  if (routeUrl === '/' || routeUrl === METRICS_PATH || isHealthPath(routeUrl)) return true;
  if (routeUrl !== undefined && isWebPath(routeUrl)) return true;
  return routeUrl === undefined && !request.url.startsWith('/v2.0');
}

/** Whether an `Accept` header allows a JSON answer (absent means anything goes). */
function acceptsJson(accept: string | undefined): boolean {
  if (!accept || accept === 'application/json') return true;
  return accept.split(',').some((range) => {
    const type = range.split(';')[0]!.trim().toLowerCase();
    return type === '*/*' || type === 'application/*' || type === 'application/json';
  });
}

/** `/v2.0/networks.json` → `/v2.0/networks`; the query string is kept. */
function stripJsonSuffix(url: string): string {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  if (!path.endsWith('.json')) return url;
  return path.slice(0, -'.json'.length) + (q < 0 ? '' : url.slice(q));
}

/**
 * Answers what Node's HTTP parser refuses before any route sees it (a malformed request line or
 * header, a body without its length, headers too large) with Neutron's error body, then closes
 * the connection, as Node's own handler does.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, type, message]: [number, string, string] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'HTTPRequestTimeout', 'The server has waited too long for the request to be sent by the client.']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'HTTPRequestHeaderFieldsTooLarge', 'The request header fields were too large.']
        : [400, 'HTTPBadRequest', 'Malformed request'];
  const body = JSON.stringify(errorBody(new NeutronError(type, status, message)));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Content-Type: application/json\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/**
 * How long a client may take to send its request, and how many connections may be open. A slow
 * client costs one socket and a timer until its timeout answers it 408; the cap only keeps the
 * process below its open-file limit, so it sits far above what normal clients use.
 */
function httpServerLimits(http: HttpConfig) {
  const ms = (seconds: number) => Math.round(seconds * 1000);
  return {
    requestTimeout: ms(http.request_timeout),
    keepAliveTimeout: ms(http.keep_alive_timeout),
    connectionTimeout: ms(http.idle_timeout), // 0: never
    http: {
      headersTimeout: ms(Math.min(http.headers_timeout, http.request_timeout)),
      requestTimeout: ms(http.request_timeout),
      // Node enforces the two timeouts above on this tick (default 30 s, too coarse for them).
      connectionsCheckingInterval: Math.min(1000, ms(http.headers_timeout)),
    },
  };
}

/** What every request must pass once its caller is known: no NUL in the URL, an `Accept` allowing JSON. */
function checkRequest(request: FastifyRequest, done: HookHandlerDoneFunction): void {
  try {
    refuseNulInUrl(request.url);
    const ownAcceptRules = request.url === METRICS_PATH || isWebPath(request.url) || isHealthPath(request.url);
    if (!ownAcceptRules && !acceptsJson(request.headers.accept)) {
      throw httpError(
        'HTTPNotAcceptable',
        'The server could not comply with the request since it is either malformed or otherwise incorrect.',
      );
    }
  } catch (error) {
    return done(error as Error);
  }
  done();
}

/** Answers an `AuthenticationFailure` with its own status, headers and body; passes anything else on. */
function authenticationFailed(reply: FastifyReply, error: unknown, done: HookHandlerDoneFunction): void {
  if (!(error instanceof AuthenticationFailure)) return done(error as Error);
  // Answered here: the request goes no further (done is not called).
  void reply.code(error.status).headers(error.headers).type('application/json').send(error.body);
}

export async function createApiServer(deps: ApiDeps): Promise<FastifyInstance> {
  const { config } = deps;
  const logger = redactingLogger(deps.logger);
  const authenticator = deps.authenticator ?? createAuthenticator(config, logger);
  const app: FastifyInstance = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    // Our own one-line access log below replaces fastify's two lines per request.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: REQUEST_ID_LABEL }),
    childLoggerFactory: lazyChildLoggerFactory,
    genReqId: () => `req-${randomUUID()}`,
    bodyLimit: config.max_request_body_size,
    ...httpServerLimits(config.http),
    exposeHeadRoutes: false,
    rewriteUrl: (req) => stripJsonSuffix(req.url ?? '/'),
    routerOptions: { maxParamLength: 1024, ignoreTrailingSlash: true, ignoreDuplicateSlashes: true },
    clientErrorHandler: answerClientError,
    // A path the router cannot decode (`%zz`) or an id past maxParamLength: no route matches it,
    // and it is answered as any unknown path is.
    // No hook runs on this path, so the answer is written as the hooks would have shaped it.
    frameworkErrors: (_error, request, reply) => {
      const body = JSON.stringify(errorBody(HTTPNotFound()));
      reply.hijack();
      reply.raw.writeHead(404, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        'x-openstack-request-id': request.id,
      });
      reply.raw.end(body);
    },
  });

  app.server.maxConnections = config.http.max_connections;
  const dropped = new Counter({
    name: 'octonet_api_connections_dropped_total',
    help: 'Connections closed at once because http.max_connections were open',
    registers: [deps.metrics],
  });
  app.server.on('drop', () => dropped.inc());

  // Neutron reads the body as JSON whatever its Content-Type says. Read as bytes: a string
  // parser would turn invalid UTF-8 into U+FFFD instead of refusing it.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => {
    try {
      done(null, decodeBody(body as Buffer));
    } catch (error) {
      done(error as Error, undefined);
    }
  });

  app.decorateRequest('ctx', null as unknown as RequestContext);
  // The hooks take callbacks rather than being async: every request runs them, and a promise per
  // hook is measurable on a port show.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-openstack-request-id', request.id);
    // As in Neutron, where keystonemiddleware runs first, a missing token is answered before anything else.
    if (authenticator.requiresCredentials && servedWithoutToken(request)) {
      request.ctx = makeContext({ requestId: request.id, roles: [] });
      return checkRequest(request, done);
    }
    let ctx: RequestContext | Promise<RequestContext>;
    try {
      ctx = authenticator.authenticate(request.headers, request.id);
    } catch (error) {
      return authenticationFailed(reply, error, done);
    }
    if (!(ctx instanceof Promise)) {
      request.ctx = ctx;
      return checkRequest(request, done);
    }
    ctx.then(
      (resolved) => {
        request.ctx = resolved;
        checkRequest(request, done);
      },
      (error: unknown) => authenticationFailed(reply, error, done),
    );
  });
  if (authenticator.warmUp) {
    const warmUp = authenticator.warmUp.bind(authenticator);
    // Not awaited: the API opens even while Keystone is down (and answers 503 until it is back).
    app.addHook('onReady', async () => void warmUp());
  }
  // Neutron answers `application/json` without a charset; some clients compare the header.
  app.addHook('onSend', (_request, reply, payload, done) => {
    const type = reply.getHeader('content-type');
    if (typeof type === 'string' && type !== 'application/json' && type.startsWith('application/json')) {
      reply.header('content-type', 'application/json');
    }
    done(null, payload);
  });
  const requestSeconds = new Histogram({
    name: 'octonet_api_request_seconds',
    help: 'API requests by method, route and status, with their duration',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [deps.metrics],
  });
  app.addHook('onResponse', (request, reply, done) => {
    const routeUrl = request.routeOptions.url;
    requestSeconds.observe(
      { method: request.method, route: routeUrl ?? 'unknown', status: reply.statusCode },
      reply.elapsedTime / 1000,
    );
    // One line per request; headers (tokens) are never logged. Probes every few seconds are not news.
    logAccessLine(request, isHealthPath(routeUrl) ? 'debug' : 'info', REQUEST_ID_LABEL, () =>
      accessLine(request, reply),
    );
    done();
  });

  app.setErrorHandler((error, request, reply) => sendError(request, reply, error));
  app.setNotFoundHandler((request, reply) => sendError(request, reply, HTTPNotFound()));

  route(app, METRICS_PATH, {
    GET: async (_request, reply) => {
      reply.header('content-type', deps.metrics.contentType);
      return deps.metrics.metrics();
    },
  });
  registerHealthRoutes(app, deps, deps.version ?? 'unknown');
  registerDiscoveryRoutes(app, deps);
  for (const service of deps.services.resources) registerResourceRoutes(app, deps, service);
  registerTagRoutes(app, deps);
  registerQuotaRoutes(app, deps);
  registerAvailabilityZoneRoutes(app, deps);
  registerAgentRoutes(app, deps);
  registerPortBindingRoutes(app, deps);
  registerDhcpAgentRoutes(app, deps);
  registerRouterRoutes(app, deps);
  registerBgpRoutes(app, deps);
  registerWebRoutes(app, { ...deps, authenticator });
  registerServiceProviderRoutes(app, deps);
  registerIpAvailabilityRoutes(app, deps);
  registerQosRoutes(app, deps);
  return app;
}
