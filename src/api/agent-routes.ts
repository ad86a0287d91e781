/**
 * `/v2.0/agents[/{id}]` (`core/agents.ts`): list with exact-match filters and `fields`, show,
 * update (description only) and delete. Agents are never created through the API.
 */
import type { FastifyInstance } from 'fastify';
import { prepareRequestBody } from '../core/attributes.js';
import { AGENT_SPEC } from '../core/agents.js';
import { parseFields, parseFilters, selectFields, type RawQuery } from './query.js';
import { jsonBody, route, type ApiDeps } from './http.js';

export function registerAgentRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const agents = deps.services.agents;
  route(app, '/v2.0/agents', {
    GET: async (request) => {
      const query = request.query as RawQuery;
      const views = await agents.list(request.ctx, parseFilters(AGENT_SPEC, query));
      return { agents: selectFields(views, parseFields(query)) };
    },
  });
  route(app, '/v2.0/agents/:id', {
    GET: async (request) => {
      const { id } = request.params as { id: string };
      const [view] = selectFields([await agents.show(request.ctx, id)], parseFields(request.query as RawQuery));
      return { agent: view };
    },
    PUT: async (request) => {
      const { id } = request.params as { id: string };
      const { items } = prepareRequestBody(request.ctx, AGENT_SPEC, jsonBody(request), false);
      return { agent: await agents.update(request.ctx, id, items[0]!) };
    },
    DELETE: async (request, reply) => {
      const { id } = request.params as { id: string };
      await agents.delete(request.ctx, id);
      return reply.code(204).send();
    },
  });
}
