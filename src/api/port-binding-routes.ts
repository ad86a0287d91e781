/**
 * `/v2.0/ports/{id}/bindings[/{host}[/activate]]` (`core/ports/bindings.ts`), with Neutron's
 * bodies: `{"binding": …}` and `{"bindings": […]}`, 201 on create, 204 on delete, and the activate
 * answer as a bare binding dict (what the legacy extension controller returns and Nova reads);
 * activate takes no body.
 */
import type { FastifyInstance } from 'fastify';
import { prepareRequestBody } from '../core/attributes.js';
import { BINDING_SPEC } from '../core/ports/bindings.js';
import { parseFields, parseFilters, selectFields, type RawQuery } from './query.js';
import { jsonBody, route, type ApiDeps } from './http.js';

export function registerPortBindingRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const bindings = deps.services.portBindings;
  route(app, '/v2.0/ports/:id/bindings', {
    GET: async (request) => {
      const { id } = request.params as { id: string };
      const query = request.query as RawQuery;
      const views = await bindings.list(request.ctx, id, parseFilters(BINDING_SPEC, query));
      return { bindings: selectFields(views, parseFields(query)) };
    },
    POST: async (request, reply) => {
      const { id } = request.params as { id: string };
      const { items } = prepareRequestBody(request.ctx, BINDING_SPEC, jsonBody(request), true);
      return reply.code(201).send({ binding: await bindings.create(request.ctx, id, items[0]!) });
    },
  });
  route(app, '/v2.0/ports/:id/bindings/:host', {
    GET: async (request) => {
      const { id, host } = request.params as { id: string; host: string };
      const [view] = selectFields([await bindings.show(request.ctx, id, host)], parseFields(request.query as RawQuery));
      return { binding: view };
    },
    PUT: async (request) => {
      const { id, host } = request.params as { id: string; host: string };
      const { items } = prepareRequestBody(request.ctx, BINDING_SPEC, jsonBody(request), false);
      return { binding: await bindings.update(request.ctx, id, host, items[0]!) };
    },
    DELETE: async (request, reply) => {
      const { id, host } = request.params as { id: string; host: string };
      await bindings.delete(request.ctx, id, host);
      return reply.code(204).send();
    },
  });
  route(app, '/v2.0/ports/:id/bindings/:host/activate', {
    PUT: async (request) => {
      const { id, host } = request.params as { id: string; host: string };
      return bindings.activate(request.ctx, id, host);
    },
  });
}
