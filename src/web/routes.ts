/** The web side of the API server: `GET /topology` (or `/topology.json`, as Neutron strips the suffix), the topology feed (topology-feed.ts). */
import type { FastifyInstance } from 'fastify';
import { route, type ApiDeps } from '../api/http.js';
import { buildTopologyFeed } from './topology-feed.js';

export function registerWebRoutes(app: FastifyInstance, deps: ApiDeps): void {
  route(app, '/topology', {
    GET: async (request) => buildTopologyFeed(deps.services, request.ctx),
  });
}
