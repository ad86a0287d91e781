/** Routes of the tags sub-resource of every taggable collection (`core/tags/service.ts`). */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { validateTag, validateTagsBody } from '../core/tags/service.js';
import { jsonBody, route, type ApiDeps } from './http.js';

export function registerTagRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const tags = deps.services.tags;
  for (const path of tags.paths) {
    const params = (request: FastifyRequest) => request.params as { id: string; tag?: string };
    route(app, `/v2.0/${path}/:id/tags`, {
      GET: async (request) => ({ tags: await tags.list(request.ctx, path, params(request).id) }),
      PUT: async (request) => {
        const body = validateTagsBody(jsonBody(request));
        await tags.replace(request.ctx, path, params(request).id, body);
        return { tags: body };
      },
      POST: async (request) => {
        const body = validateTagsBody(jsonBody(request));
        await tags.add(request.ctx, path, params(request).id, body, 'create');
        return { tags: body };
      },
      DELETE: async (request, reply) => {
        await tags.remove(request.ctx, path, params(request).id);
        return reply.code(204).send();
      },
    });
    route(app, `/v2.0/${path}/:id/tags/:tag`, {
      GET: async (request, reply) => {
        const { id, tag } = params(request);
        await tags.check(request.ctx, path, id, tag!);
        return reply.code(204).send();
      },
      PUT: async (request, reply) => {
        const { id, tag } = params(request);
        validateTag(tag!);
        await tags.add(request.ctx, path, id, [tag!], 'update');
        return reply.code(201).header('content-type', 'application/json').send('null');
      },
      DELETE: async (request, reply) => {
        const { id, tag } = params(request);
        validateTag(tag!);
        await tags.remove(request.ctx, path, id, tag);
        return reply.code(204).send();
      },
    });
  }
}
