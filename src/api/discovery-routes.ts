/**
 * What clients read to find their way: the version document (`GET /`), the v2.0 resource index,
 * and the extension list. openstacksdk discovers the endpoint from `GET /` and then follows the
 * `self` link, so the hrefs carry the host the client used.
 */
import type { FastifyInstance } from 'fastify';
import { EXTENSIONS, findExtension } from '../core/extensions.js';
import { HTTPNotFound } from '../core/errors.js';
import { baseUrl, route, type ApiDeps } from './http.js';

const CORE_COLLECTIONS = [
  ['subnet', 'subnets'],
  ['network', 'networks'],
  ['port', 'ports'],
] as const;

export function registerDiscoveryRoutes(app: FastifyInstance, _deps: ApiDeps): void {
  route(app, '/', {
    GET: async (request) => ({
      versions: [{ id: 'v2.0', status: 'CURRENT', links: [{ rel: 'self', href: `${baseUrl(request)}/v2.0/` }] }],
    }),
  });

  route(app, '/v2.0', {
    GET: async (request) => ({
      resources: CORE_COLLECTIONS.map(([name, collection]) => ({
        name,
        collection,
        links: [{ rel: 'self', href: `${baseUrl(request)}/v2.0/${collection}` }],
      })),
    }),
  });

  route(app, '/v2.0/extensions', {
    GET: async () => ({ extensions: EXTENSIONS.map((e) => ({ ...e, links: [] })) }),
  });

  route(app, '/v2.0/extensions/:alias', {
    GET: async (request) => {
      const alias = (request.params as { alias: string }).alias;
      const extension = findExtension(alias);
      if (!extension) throw HTTPNotFound(`Extension with alias ${alias} does not exist`);
      return { extension: { ...extension, links: [] } };
    },
  });
}
