/**
 * `GET /v2.0/network-ip-availabilities[/<network id>]` (`core/ip-availability/service.ts`).
 *
 * Neutron prints `total_ips` as exact Python integers (an IPv6 /64 holds 2^64 addresses), which
 * `JSON.stringify` cannot do with bigints and doubles would round; so these bodies are written by
 * `toJsonWithBigInts`. A show ignores every query parameter but `fields`, as Neutron's legacy
 * controller does.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { IP_AVAILABILITY_SPEC } from '../core/ip-availability/service.js';
import { paginationLinks, parseFields, parseListQuery, selectFields, type RawQuery } from './query.js';
import { baseUrl, route, type ApiDeps } from './http.js';

/** JSON text of a JSON-like value in which bigints are printed as plain integers. */
export function toJsonWithBigInts(value: unknown): string {
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return `[${value.map(toJsonWithBigInts).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${JSON.stringify(k)}:${toJsonWithBigInts(v)}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function sendJson(reply: FastifyReply, body: unknown): FastifyReply {
  return reply.header('content-type', 'application/json').send(toJsonWithBigInts(body));
}

export function registerIpAvailabilityRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const availability = deps.services.ipAvailability;
  const collectionUrl = `/v2.0/${IP_AVAILABILITY_SPEC.path}`;
  const { collection, name } = IP_AVAILABILITY_SPEC;

  route(app, collectionUrl, {
    GET: async (request, reply) => {
      const query = request.query as RawQuery;
      const list = parseListQuery(IP_AVAILABILITY_SPEC, query, { maxLimit: deps.config.pagination_max_limit });
      const items = await availability.list(request.ctx, list);
      const body: Record<string, unknown> = { [collection]: selectFields(items, parseFields(query)) };
      const path = request.url.split('?')[0]!;
      const links = paginationLinks(
        baseUrl(request),
        path,
        query,
        list,
        items.map((item) => ({ id: item.network_id })),
      );
      if (links.length) body[`${collection}_links`] = links;
      return sendJson(reply, body);
    },
  });

  route(app, `${collectionUrl}/:id`, {
    GET: async (request, reply) => {
      const item = await availability.show(request.ctx, (request.params as { id: string }).id);
      return sendJson(reply, { [name]: selectFields([item], parseFields(request.query as RawQuery))[0] });
    },
  });
}
