/**
 * Routes of the quotas extension (`/v2.0/quotas...`, semantics in `core/quotas/service.ts`).
 *
 * Neutron serves these from its legacy stack, whose routing quirks octonet does not copy: PUT and
 * DELETE on the collection, POST on a project, and writes to `project`, `tenant` and `default`
 * answer 405 instead of a 500, a listing, or a write to a project literally named "project".
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HTTPBadRequest, InvalidInput, httpError } from '../core/errors.js';
import { jsonBody, route, type ApiDeps } from './http.js';

const PROJECT_ID_MAX = 255;

export function registerQuotaRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const quotas = deps.services.quotaSets;
  const projectOf = (request: FastifyRequest) => {
    const { project } = request.params as { project: string };
    // The project id column holds 255 characters; validate_string's message, on every backend.
    if (project.length > PROJECT_ID_MAX) {
      throw InvalidInput({ error_message: `'${project}' exceeds maximum length of ${PROJECT_ID_MAX}` });
    }
    return project;
  };

  route(app, '/v2.0/quotas', {
    GET: async (request) => ({ quotas: await quotas.list(request.ctx) }),
    POST: async () => {
      throw httpError('HTTPNotImplemented', 'POST requests are not supported on this resource.');
    },
  });
  route(app, '/v2.0/quotas/project', {
    GET: async (request) => ({ project: { project_id: quotas.callerProject(request.ctx) } }),
  });
  // Deprecated spelling, still answered by Neutron master.
  route(app, '/v2.0/quotas/tenant', {
    GET: async (request) => ({ tenant: { tenant_id: quotas.callerProject(request.ctx) } }),
  });
  route(app, '/v2.0/quotas/:project', {
    GET: async (request) => ({ quota: await quotas.show(request.ctx, projectOf(request)) }),
    PUT: async (request) => ({ quota: await quotas.update(request.ctx, projectOf(request), jsonBody(request)) }),
    DELETE: async (request, reply) => {
      // Neutron's quota controller takes no body and fails with a 500; answer as other DELETEs do.
      if (typeof request.body === 'string' && request.body.length > 0) {
        throw HTTPBadRequest('Request body is not supported in DELETE.');
      }
      await quotas.delete(request.ctx, projectOf(request));
      return reply.code(204).send();
    },
  });
  route(app, '/v2.0/quotas/:project/default', {
    GET: async (request) => ({ quota: quotas.defaults(request.ctx, projectOf(request)) }),
  });
  route(app, '/v2.0/quotas/:project/details', {
    GET: async (request) => ({ quota: await quotas.details(request.ctx, projectOf(request)) }),
  });
}
