/**
 * `GET /v2.0/availability_zones` (`core/availability-zones.ts`). Neutron serves this collection
 * without sorting or pagination, so `sort_key`, `limit` and friends are ignored, not validated;
 * filters go through filter-validation and `fields` applies.
 */
import type { FastifyInstance } from 'fastify';
import { AVAILABILITY_ZONE_SPEC } from '../core/availability-zones.js';
import { HTTPNotFound } from '../core/errors.js';
import { parseFields, parseFilters, selectFields, type RawQuery } from './query.js';
import { route, type ApiDeps } from './http.js';

export function registerAvailabilityZoneRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const zones = deps.services.availabilityZones;
  route(app, '/v2.0/availability_zones', {
    GET: async (request) => {
      const query = request.query as RawQuery;
      const filters = parseFilters(AVAILABILITY_ZONE_SPEC, query);
      return { availability_zones: selectFields(await zones.list(request.ctx, filters), parseFields(query)) };
    },
  });
  // Zones have no show: Neutron's plugin lacks the method and fails with a 500.
  route(app, '/v2.0/availability_zones/:name', {
    GET: async () => {
      throw HTTPNotFound();
    },
  });
}
