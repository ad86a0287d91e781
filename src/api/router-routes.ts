/**
 * The routers' member actions and the L3 agent scheduler URLs (the collection routes are the
 * generic ones): `PUT /v2.0/routers/<id>/{add,remove}_router_interface` (body: the interface
 * info itself), `PUT .../{add,remove}_extraroutes` (body: `{"router": {"routes": [...]}}`),
 * `GET /v2.0/routers/<id>/l3-agents`, and `GET/POST /v2.0/agents/<id>/l3-routers`,
 * `DELETE /v2.0/agents/<id>/l3-routers/<router id>`.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Body } from '../core/resource.js';
import { BadRequest } from '../core/errors.js';
import { isPlainObject, validateUuid } from '../core/validators.js';
import { renderViews } from './resource-routes.js';
import { jsonBody, route, type ApiDeps } from './http.js';

export function registerRouterRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const { routers, l3Agents } = deps.services;
  const params = (request: FastifyRequest) => request.params as { id: string; router_id?: string };
  const body = (request: FastifyRequest) => (jsonBody(request) ?? {}) as Body;
  const render = (request: FastifyRequest, view: Record<string, unknown>) =>
    renderViews(deps, request.ctx, routers, [view], undefined)[0];

  route(app, '/v2.0/routers/:id/add_router_interface', {
    PUT: async (request) => routers.addInterface(request.ctx, params(request).id, body(request)),
  });
  route(app, '/v2.0/routers/:id/remove_router_interface', {
    PUT: async (request) => routers.removeInterface(request.ctx, params(request).id, body(request)),
  });
  route(app, '/v2.0/routers/:id/add_extraroutes', {
    PUT: async (request) => ({
      router: render(request, await routers.changeRoutes(request.ctx, params(request).id, jsonBody(request), true)),
    }),
  });
  route(app, '/v2.0/routers/:id/remove_extraroutes', {
    PUT: async (request) => ({
      router: render(request, await routers.changeRoutes(request.ctx, params(request).id, jsonBody(request), false)),
    }),
  });

  route(app, '/v2.0/routers/:id/l3-agents', {
    GET: async (request) => ({ agents: await l3Agents.agentsOfRouter(request.ctx, params(request).id) }),
  });
  route(app, '/v2.0/agents/:id/l3-routers', {
    GET: async (request) => ({
      routers: renderViews(
        deps,
        request.ctx,
        routers,
        await l3Agents.routersOfAgent(request.ctx, params(request).id),
        undefined,
      ),
    }),
    POST: async (request, reply) => {
      const routerId = routerIdOf(jsonBody(request));
      await l3Agents.addRouter(request.ctx, params(request).id, routerId);
      // Neutron answers the scheduling with an empty (JSON null) body.
      return reply.code(201).type('application/json').send('null');
    },
  });
  route(app, '/v2.0/agents/:id/l3-routers/:router_id', {
    DELETE: async (request, reply) => {
      const { id, router_id } = params(request);
      await l3Agents.removeRouter(request.ctx, id, router_id!);
      return reply.code(204).send();
    },
  });
}

/** `{"router_id": <uuid>}`, the body `openstack network agent add router` sends. */
function routerIdOf(body: unknown): string {
  const routerId = isPlainObject(body) ? body.router_id : undefined;
  const msg = validateUuid(routerId);
  if (msg) throw BadRequest({ resource: 'l3-router', msg });
  return routerId as string;
}
