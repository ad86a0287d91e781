/**
 * `GET /v2.0/service-providers` (service-type): the drivers behind Neutron's advanced services.
 * With OVN the one provider is the L3 router driver, as ML2/OVN's L3 plugin lists it; `fields`
 * and exact-match filters work as on every collection.
 */
import type { FastifyInstance } from 'fastify';
import { parseFields, selectFields, type RawQuery } from './query.js';
import { route, type ApiDeps } from './http.js';

const PROVIDERS = [{ service_type: 'L3_ROUTER_NAT', name: 'ovn', default: true }];

export function registerServiceProviderRoutes(app: FastifyInstance, _deps: ApiDeps): void {
  route(app, '/v2.0/service-providers', {
    GET: async (request) => {
      const query = request.query as RawQuery;
      const filtered = PROVIDERS.filter((p) =>
        Object.entries(query).every(([key, value]) => {
          if (!(key in p)) return true;
          const wanted = (Array.isArray(value) ? value : [value]).map(String);
          return wanted.includes(String(p[key as keyof typeof p]));
        }),
      );
      return { service_providers: selectFields(filtered, parseFields(query)) };
    },
  });
}
