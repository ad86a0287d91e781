/**
 * The web side of the API server: `GET /topology` (or `/topology.json`, as Neutron strips the
 * suffix), the topology feed (topology-feed.ts), for API clients with the API's token; and the
 * topology page under `/ui/` (also `GET /` for a browser): its files (static-assets.ts), who is
 * looking (sessions.ts), the feed as that viewer sees it, and its live updates (live-updates.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { route, jsonBody, type ApiDeps } from '../api/http.js';
import type { Authenticator } from '../auth/authenticator.js';
import { AuthenticationFailure } from '../auth/failures.js';
import { KeystoneClient } from '../auth/keystone-client.js';
import type { RequestContext } from '../core/context.js';
import { HTTPBadRequest, HTTPNotFound } from '../core/errors.js';
import { LiveUpdates } from './live-updates.js';
import { KeystoneSessions, SignInFailure, sessionCookie, sessionIdOf, type SignInForm } from './sessions.js';
import { PAGE_SECURITY_HEADERS, loadAssets, prefersHtml } from './static-assets.js';
import { buildTopologyFeed } from './topology-feed.js';

const isPagePath = (url: string) => url === '/ui' || url.startsWith('/ui/');

function signInForm(request: FastifyRequest): SignInForm {
  const body = jsonBody(request) as Record<string, unknown> | undefined;
  const field = (name: string, required: boolean) => {
    const value = body?.[name] ?? '';
    if (typeof value !== 'string' || (required && !value)) throw HTTPBadRequest(`${name} is required`);
    return value;
  };
  return {
    username: field('username', true),
    password: field('password', true),
    project: field('project', true),
    domain: field('domain', false),
  };
}

const isSecure = (request: FastifyRequest) =>
  request.protocol === 'https' || request.headers['x-forwarded-proto'] === 'https';

export function registerWebRoutes(app: FastifyInstance, deps: ApiDeps & { authenticator: Authenticator }): void {
  const { services, config } = deps;
  route(app, '/topology', {
    GET: async (request) => buildTopologyFeed(services, request.ctx),
  });

  const assets = loadAssets();
  const sendAsset = (reply: FastifyReply, name: string) => {
    const asset = assets.get(name);
    if (!asset) throw HTTPNotFound();
    return reply.headers(PAGE_SECURITY_HEADERS).header('cache-control', 'no-cache').type(asset.type).send(asset.body);
  };
  const keystone = config.auth === 'keystone' && config.keystone.url;
  const sessions = keystone
    ? new KeystoneSessions(new KeystoneClient(keystone, config.keystone.timeout * 1000), deps.authenticator)
    : undefined;
  const live = new LiveUpdates({
    build: (ctx) => buildTopologyFeed(services, ctx),
    logger: deps.logger.child({ component: 'topology-page' }),
  });
  const unsubscribe = services.deps.drivers.onChange(live.changed);
  app.addHook('preClose', async () => {
    unsubscribe();
    live.close();
  });

  app.addHook('onRequest', async (request, reply) => {
    if (isPagePath(request.url)) reply.headers(PAGE_SECURITY_HEADERS).header('cache-control', 'no-store');
  });
  // A browser asking for `/` gets the page; API clients keep the version document (discovery-routes.ts).
  app.addHook('preHandler', async (request, reply) => {
    if (request.routeOptions.url === '/' && request.method === 'GET' && prefersHtml(request.headers.accept)) {
      return sendAsset(reply, 'index.html');
    }
    return undefined;
  });

  /** The viewer: noauth's context (admin unless headers say otherwise) or the session's; undefined: sign in first. */
  const viewerOf = async (request: FastifyRequest): Promise<RequestContext | undefined> => {
    if (!sessions) return request.ctx;
    try {
      return await sessions.context(sessionIdOf(request.headers), request.id);
    } catch (error) {
      if (error instanceof AuthenticationFailure && error.status === 401) return undefined;
      throw error;
    }
  };
  const signInFirst = (reply: FastifyReply) =>
    reply.code(401).send({ error: { code: 401, title: 'Unauthorized', message: 'Sign in to see the topology.' } });

  route(app, '/ui', { GET: async (_request, reply) => sendAsset(reply, 'index.html') });
  route(app, '/ui/:asset', {
    GET: async (request, reply) => sendAsset(reply, (request.params as { asset: string }).asset),
  });

  route(app, '/ui/session', {
    GET: async (request) => {
      const viewer = await viewerOf(request);
      const names = sessions?.describe(sessionIdOf(request.headers));
      return {
        auth: sessions ? 'keystone' : 'noauth',
        signed_in: viewer !== undefined,
        user: names?.user ?? null,
        project: names?.project ?? viewer?.projectName ?? null,
        project_id: viewer?.projectId ?? null,
        admin: viewer?.isAdmin ?? false,
      };
    },
    POST: async (request, reply) => {
      if (!sessions) throw HTTPNotFound('There is no sign-in with auth: noauth.');
      const form = signInForm(request);
      try {
        const { id, maxAge } = await sessions.signIn(form);
        return reply
          .code(204)
          .header('set-cookie', sessionCookie(id, maxAge, isSecure(request)))
          .send();
      } catch (error) {
        if (!(error instanceof SignInFailure)) throw error;
        return reply.code(error.status).send({ error: { code: error.status, message: error.message } });
      }
    },
    DELETE: async (request, reply) => {
      const id = sessionIdOf(request.headers);
      if (sessions && id && (await sessions.signOut(id))) live.endSession(id);
      return reply
        .code(204)
        .header('set-cookie', sessionCookie('', 0, isSecure(request)))
        .send();
    },
  });

  route(app, '/ui/topology', {
    GET: async (request, reply) => {
      const viewer = await viewerOf(request);
      if (!viewer) return signInFirst(reply);
      return reply.type('application/json').send(await live.feed(viewer));
    },
  });

  route(app, '/ui/events', {
    GET: async (request, reply) => {
      const viewer = await viewerOf(request);
      if (!viewer) return signInFirst(reply);
      reply.hijack();
      await live.open(viewer, reply.raw, sessionIdOf(request.headers), {
        ...PAGE_SECURITY_HEADERS,
        'x-openstack-request-id': request.id,
      });
      return reply;
    },
  });
}
