/**
 * neutron-dynamic-routing's URLs besides the generic collections: the speakers' member actions
 * (`PUT /v2.0/bgp-speakers/<id>/{add,remove}_bgp_peer`, `.../{add,remove}_gateway_network`, whose
 * raw JSON body is the action's argument; `GET .../get_advertised_routes`) and the DR agent
 * scheduler (`GET /v2.0/bgp-speakers/<id>/bgp-dragents`, `GET/POST /v2.0/agents/<id>/bgp-drinstances`,
 * `DELETE /v2.0/agents/<id>/bgp-drinstances/<speaker id>`), and octonet's service-only
 * `GET /v2.0/octonet/bgp-dragents/<id>/speakers` (the hosted speaker with its peers' secrets).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { BadRequest } from '../core/errors.js';
import { isPlainObject, validateUuid } from '../core/validators.js';
import { renderViews } from './resource-routes.js';
import { jsonBody, route, type ApiDeps } from './http.js';

export function registerBgpRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const { bgpSpeakers, bgpDrAgents } = deps.services;
  const params = (request: FastifyRequest) => request.params as { id: string; speaker_id?: string };

  route(app, '/v2.0/bgp-speakers/:id/add_bgp_peer', {
    PUT: async (request) => bgpSpeakers.addPeer(request.ctx, params(request).id, jsonBody(request)),
  });
  route(app, '/v2.0/bgp-speakers/:id/remove_bgp_peer', {
    // n-d-r's plugin returns nothing: the body is JSON null.
    PUT: async (request, reply) => {
      await bgpSpeakers.removePeer(request.ctx, params(request).id, jsonBody(request));
      return reply.type('application/json').send('null');
    },
  });
  route(app, '/v2.0/bgp-speakers/:id/add_gateway_network', {
    PUT: async (request) => bgpSpeakers.addGatewayNetwork(request.ctx, params(request).id, jsonBody(request)),
  });
  route(app, '/v2.0/bgp-speakers/:id/remove_gateway_network', {
    PUT: async (request) => bgpSpeakers.removeGatewayNetwork(request.ctx, params(request).id, jsonBody(request)),
  });
  route(app, '/v2.0/bgp-speakers/:id/get_advertised_routes', {
    GET: async (request) => bgpSpeakers.advertisedRoutes(request.ctx, params(request).id),
  });

  route(app, '/v2.0/bgp-speakers/:id/bgp-dragents', {
    GET: async (request) => ({ agents: await bgpDrAgents.agentsOfSpeaker(request.ctx, params(request).id) }),
  });
  route(app, '/v2.0/agents/:id/bgp-drinstances', {
    GET: async (request) => ({
      bgp_speakers: renderViews(
        deps,
        request.ctx,
        bgpSpeakers,
        await bgpDrAgents.speakersOfAgent(request.ctx, params(request).id),
        undefined,
      ),
    }),
    POST: async (request, reply) => {
      await bgpDrAgents.addSpeaker(request.ctx, params(request).id, speakerIdOf(jsonBody(request)));
      // The scheduler's create returns nothing: 201 with a JSON null body.
      return reply.code(201).type('application/json').send('null');
    },
  });
  // octonet's own, for the node's agent only (the peers' MD5 secrets): see docs/bgp-agent.md.
  route(app, '/v2.0/octonet/bgp-dragents/:id/speakers', {
    GET: async (request) => ({ bgp_speakers: await bgpDrAgents.hostedSpeakersFor(request.ctx, params(request).id) }),
  });
  route(app, '/v2.0/agents/:id/bgp-drinstances/:speaker_id', {
    DELETE: async (request, reply) => {
      const { id, speaker_id } = params(request);
      await bgpDrAgents.removeSpeaker(request.ctx, id, speaker_id!);
      return reply.code(204).send();
    },
  });
}

/** `{"bgp_speaker_id": <uuid>}`, the body `openstack bgp dragent add speaker` sends. */
function speakerIdOf(body: unknown): string {
  const speakerId = isPlainObject(body) ? body.bgp_speaker_id : undefined;
  const msg = validateUuid(speakerId);
  if (msg) throw BadRequest({ resource: 'bgp-drinstance', msg });
  return speakerId as string;
}
