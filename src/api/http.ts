/**
 * What every route module shares: the `route` registration with Neutron's 405, the request body
 * as JSON, the request's base URL, and the dependencies a route module receives. Route modules
 * (and `web/`) import this; `server.ts` only composes the server from them.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Config } from '../config/config.js';
import type { RequestContext } from '../core/context.js';
import { HTTPBadRequest, httpError } from '../core/errors.js';
import type { Services } from '../core/services.js';
import type { PolicyAuthorizer } from '../auth/policy.js';
import type { Authenticator } from '../auth/authenticator.js';
import { refuseNulInValues } from './input-guard.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who is calling: built once per request by the auth hook. */
    ctx: RequestContext;
  }
}

export interface ApiDeps {
  readonly config: Config;
  readonly services: Services;
  readonly authorizer: PolicyAuthorizer;
  readonly logger: Logger;
  /** What `GET /metrics` exposes (Prometheus text format). */
  readonly metrics: Registry;
  /** What `/readyz` reports as the running version (`octonet --version`). */
  readonly version?: string;
  /** Who is calling; by default the one `config.auth` names. */
  readonly authenticator?: Authenticator;
}

/** Methods a route answers 405 to when it does not serve them. */
const ALL_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;
export type Method = (typeof ALL_METHODS)[number];

/**
 * Registers `handlers` on `url` and answers every other method with Neutron's 405, so a known path
 * with a wrong method never looks like an unknown path.
 */
export function route(
  app: FastifyInstance,
  url: string,
  handlers: Partial<Record<Method, (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>>>,
): void {
  for (const [method, handler] of Object.entries(handlers)) app.route({ method, url, handler });
  const others = ALL_METHODS.filter((m) => !(m in handlers));
  if (others.length) {
    app.route({
      method: others as unknown as string[],
      url,
      handler: async () => {
        throw httpError(
          'HTTPMethodNotAllowed',
          'The server could not comply with the request since it is either malformed or otherwise incorrect.',
        );
      },
    });
  }
}

/**
 * The request body as JSON, or undefined when empty; anything but a JSON object is refused, and
 * so is a NUL character in any key or string (no backend stores one alike: PostgreSQL refuses it).
 * The body's UTF-8 and nesting depth were checked when it was read (`input-guard.ts`).
 */
export function jsonBody(request: FastifyRequest): unknown {
  const raw = request.body;
  if (typeof raw !== 'string' || raw.length === 0) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw HTTPBadRequest('Body contains invalid data');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw HTTPBadRequest('Body contains invalid data');
  }
  refuseNulInValues(parsed);
  return parsed;
}

/** `scheme://host` of the request, for the links Neutron puts in responses. */
export function baseUrl(request: FastifyRequest): string {
  const forwarded = request.headers['x-forwarded-proto'];
  const scheme = (Array.isArray(forwarded) ? forwarded[0] : forwarded) ?? request.protocol;
  return `${scheme}://${request.headers.host ?? 'localhost'}`;
}
