/**
 * `/v2.0/networks/{id}/dhcp-agents` and `/v2.0/agents/{id}/dhcp-networks[/{network}]`
 * (`core/dhcp-agents.ts`): Neutron's bodies and errors, with no DHCP agent anywhere.
 */
import type { FastifyInstance } from 'fastify';
import { HTTPBadRequest } from '../core/errors.js';
import { jsonBody, route, type ApiDeps } from './http.js';

export function registerDhcpAgentRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const scheduler = deps.services.dhcpAgents;
  route(app, '/v2.0/networks/:id/dhcp-agents', {
    GET: async (request) => ({ agents: scheduler.agentsOfNetwork(request.ctx) }),
  });
  route(app, '/v2.0/agents/:id/dhcp-networks', {
    GET: async (request) => {
      const { id } = request.params as { id: string };
      return { networks: await scheduler.networksOfAgent(request.ctx, id) };
    },
    POST: async (request) => {
      const { id } = request.params as { id: string };
      const body = jsonBody(request) as { network_id?: unknown } | undefined;
      // Neutron reads body['network_id'] unchecked (a KeyError, 500); a missing one is the client's error.
      if (typeof body?.network_id !== 'string') throw HTTPBadRequest("Unable to find 'network_id' in request body");
      return scheduler.addNetwork(request.ctx, id, body.network_id);
    },
  });
  route(app, '/v2.0/agents/:id/dhcp-networks/:network', {
    DELETE: async (request) => {
      const { id, network } = request.params as { id: string; network: string };
      return scheduler.removeNetwork(request.ctx, id, network);
    },
  });
}
