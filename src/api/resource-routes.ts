/**
 * The five routes of every collection (`GET/POST /v2.0/<path>`, `GET/PUT/DELETE /v2.0/<path>/<id>`),
 * generic over the resource: parse the query or body, call the core service, render the views
 * (policy-hidden attributes removed, `fields` applied), add pagination links.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { prepareRequestBody } from '../core/attributes.js';
import type { RequestContext } from '../core/context.js';
import { BadRequest, HTTPBadRequest } from '../core/errors.js';
import type { ListQuery } from '../core/list-query.js';
import {
  listsAsTexts,
  showsAsText,
  viewTextBytes,
  viewTextString,
  writeViewText,
  type ListedTexts,
  type ViewText,
} from '../core/ports/view-cache.js';
import type { Precondition, ResourceService, View } from '../core/resource.js';
import { parseFields, parseListQuery, paginationLinks, type RawQuery } from './query.js';
import { baseUrl, jsonBody, route, type ApiDeps } from './http.js';
import { BodyPool } from './body-pool.js';

/**
 * The attributes of `sample`'s views the caller gets: those whose `get_<res>:<attr>` rule passes
 * (judged on the first item, as Neutron does) and, when given, among the requested `fields`.
 */
function keptKeys(
  deps: ApiDeps,
  ctx: RequestContext,
  service: ResourceService,
  sample: View,
  fields: string[] | undefined,
): string[] {
  const spec = service.spec;
  const candidates = Object.keys(sample).filter((k) => spec.attributes[k]?.visible !== false);
  const readable = deps.authorizer.readableAttributes(ctx, spec.name, sample, candidates);
  if (!readable.has('project_id') || !readable.has('tenant_id')) {
    readable.delete('project_id');
    readable.delete('tenant_id');
  }
  return Object.keys(sample).filter((k) => readable.has(k) && (!fields || fields.includes(k)));
}

/** Removes what the caller may not see and keeps only the requested `fields` (see `keptKeys`). */
export function renderViews(
  deps: ApiDeps,
  ctx: RequestContext,
  service: ResourceService,
  views: View[],
  fields: string[] | undefined,
): View[] {
  if (views.length === 0) return views;
  const kept = keptKeys(deps, ctx, service, views[0]!, fields);
  // The common case (an admin, no `fields`): nothing to remove, so no copies.
  if (kept.length === Object.keys(views[0]!).length) return views;
  return views.map((view) => {
    const out: View = {};
    for (const key of kept) out[key] = view[key];
    return out;
  });
}

/** Whether the caller sees every attribute of this whole view (policy judged on it, as `renderViews` does). */
function seesWholeView(deps: ApiDeps, ctx: RequestContext, service: ResourceService, text: ViewText): boolean {
  const view = JSON.parse(viewTextString(text)) as View;
  return keptKeys(deps, ctx, service, view, undefined).length === Object.keys(view).length;
}

/**
 * The list as whole views' cached JSON texts, when the service offers them for this caller and
 * the caller sees every attribute (no `fields`, nothing hidden by policy: judged on the first
 * view, as `renderViews` judges a list); else undefined.
 */
async function listedTexts(
  deps: ApiDeps,
  ctx: RequestContext,
  service: ResourceService,
  list: ListQuery,
  fields: string[] | undefined,
): Promise<ListedTexts | undefined> {
  if (fields || !listsAsTexts(service)) return undefined;
  const listed = await service.listTexts(ctx, list);
  if (!listed || listed.texts.length === 0) return listed;
  return seesWholeView(deps, ctx, service, listed.texts[0]!) ? listed : undefined;
}

/**
 * The show as the whole view's cached JSON text, when the service offers it for this caller and
 * the caller sees every attribute of it (no `fields`, nothing hidden by policy); else undefined.
 */
async function shownText(
  deps: ApiDeps,
  ctx: RequestContext,
  service: ResourceService,
  id: string,
  fields: string[] | undefined,
): Promise<ViewText | undefined> {
  if (fields || !showsAsText(service)) return undefined;
  const text = await service.showText(ctx, id);
  return text !== undefined && seesWholeView(deps, ctx, service, text) ? text : undefined;
}

/** Free list bodies kept between answers: a few pages of 1,000 ports, many networks' lists. */
const LIST_BODY_POOL_BYTES = 8 * 1024 * 1024;

/**
 * Bodies of lists the service keeps (`ListedTexts.kept`): the same object again means the same
 * views (the port service keeps a list while the database is unchanged), so a body with the same
 * head and tail is the same bytes. Only those: an entry for every list lived, with its body, until
 * the next full collection (a WeakMap's entries outlive young collections), and at 100,000 ports
 * that grew the old generation enough to start one every ~500 filtered lists: their p99.
 */
const listBodies = new WeakMap<ListedTexts, { head: string; tail: string; body: Buffer }>();

/** Bodies of the other lists, in buffers used again once written out (body-pool.ts). */
const listBodyPool = new BodyPool(LIST_BODY_POOL_BYTES);

function listBody(head: string, listed: ListedTexts, tail: string, response: ServerResponse): Buffer {
  const kept = listBodies.get(listed);
  if (kept !== undefined && kept.head === head && kept.tail === tail) return kept.body;
  if (!listed.kept) return joinedBody(head, listed.texts, tail, (length) => listBodyPool.take(length, response));
  const body = joinedBody(head, listed.texts, tail);
  listBodies.set(listed, { head, tail, body });
  return body;
}

/**
 * `prefix`, the texts separated by commas, then `suffix`: a JSON body in one buffer (one copy of
 * each text; packed ones are written straight into it).
 */
function joinedBody(
  prefix: string,
  texts: readonly ViewText[],
  suffix: string,
  allocate: (length: number) => Buffer = Buffer.allocUnsafe,
): Buffer {
  const head = Buffer.from(prefix);
  const tail = Buffer.from(suffix);
  let length = head.length + tail.length + Math.max(0, texts.length - 1);
  for (const text of texts) length += viewTextBytes(text);
  const body = allocate(length);
  let at = head.copy(body, 0);
  for (let i = 0; i < texts.length; i++) {
    if (i > 0) body[at++] = 0x2c; // ','
    at += writeViewText(texts[i]!, body, at);
  }
  tail.copy(body, at);
  return body;
}

/**
 * `If-Match: revision_number=N` (webob's strong ETag list; a header with no quoted tag is one
 * tag). Other tags are ignored; two revision tags or a non-integer are refused.
 */
export function parseIfMatch(header: string | string[] | undefined): Precondition {
  const value = Array.isArray(header) ? header.join(', ') : header;
  if (!value || value.trim() === '*') return {};
  const quoted = [...value.matchAll(/(?:^|\s)(W\/)?"((?:\\"|.)*?)"/g)];
  const tags = quoted.length ? quoted.filter((m) => !m[1]).map((m) => m[2]!) : [value];
  let revisionNumber: number | undefined;
  for (const tag of tags) {
    if (!tag.startsWith('revision_number=')) continue;
    if (revisionNumber !== undefined) {
      throw BadRequest({ resource: 'if-match', msg: 'Multiple revision_number etags are not supported.' });
    }
    const rest = tag.slice('revision_number='.length);
    if (!/^\s*[-+]?\d+\s*$/.test(rest)) {
      throw BadRequest({
        resource: 'if-match',
        msg: 'Revision number etag must be in the format of revision_number=<int>',
      });
    }
    revisionNumber = Number(rest.trim());
  }
  return { revisionNumber };
}

/** Collections Neutron serves with pecan, whose `fields` handling differs from the legacy stack's. */
const PECAN_COLLECTIONS = new Set(['networks', 'subnets', 'subnetpools', 'ports']);

export function registerResourceRoutes(app: FastifyInstance, deps: ApiDeps, service: ResourceService): void {
  const spec = service.spec;
  const collectionUrl = `/v2.0/${spec.path}`;
  const memberUrl = `${collectionUrl}/:id`;
  const maxLimit = deps.config.pagination_max_limit;
  const query = (request: FastifyRequest) => request.query as RawQuery;
  const idOf = (request: FastifyRequest) => (request.params as { id: string }).id;
  const fieldsOf = (q: RawQuery) => parseFields(q, PECAN_COLLECTIONS.has(spec.path));

  const head = `{${JSON.stringify(spec.collection)}:[`;
  route(app, collectionUrl, {
    GET: async (request, reply) => {
      const q = query(request);
      const list = parseListQuery(spec, q, { maxLimit });
      const path = request.url.split('?')[0]!;
      const texts = await listedTexts(deps, request.ctx, service, list, fieldsOf(q));
      if (texts) {
        // The same bytes JSON.stringify would write for the body below.
        const links = paginationLinks(
          baseUrl(request),
          path,
          q,
          list,
          texts.ids.map((id) => ({ id })),
        );
        const tail = links.length ? `],${JSON.stringify(`${spec.collection}_links`)}:${JSON.stringify(links)}}` : ']}';
        reply.header('content-type', 'application/json');
        return listBody(head, texts, tail, reply.raw);
      }
      const views = await service.list(request.ctx, list);
      const body: Record<string, unknown> = {
        [spec.collection]: renderViews(deps, request.ctx, service, views, fieldsOf(q)),
      };
      const links = paginationLinks(baseUrl(request), path, q, list, views);
      if (links.length) body[`${spec.collection}_links`] = links;
      return body;
    },
    POST: async (request, reply) => {
      const { items, bulk } = prepareRequestBody(request.ctx, spec, jsonBody(request), true);
      const views = renderViews(
        deps,
        request.ctx,
        service,
        await service.create(request.ctx, items),
        fieldsOf(query(request)),
      );
      reply.code(201);
      return bulk ? { [spec.collection]: views } : { [spec.name]: views[0] };
    },
    // Neutron looks the resource up with id None before it notices there is no id.
    PUT: async () => {
      throw service.notFound(null);
    },
    DELETE: async () => {
      throw service.notFound(null);
    },
  });

  route(app, memberUrl, {
    GET: async (request, reply) => {
      const q = query(request);
      parseListQuery(spec, q, { maxLimit }); // validated, as Neutron does, though a show ignores filters
      const text = await shownText(deps, request.ctx, service, idOf(request), fieldsOf(q));
      if (text !== undefined) {
        // The same bytes JSON.stringify would write for the body below.
        reply.header('content-type', 'application/json');
        return joinedBody(`{${JSON.stringify(spec.name)}:`, [text], '}');
      }
      const view = await service.show(request.ctx, idOf(request));
      return { [spec.name]: renderViews(deps, request.ctx, service, [view], fieldsOf(q))[0] };
    },
    PUT: async (request) => {
      const { items } = prepareRequestBody(request.ctx, spec, jsonBody(request), false);
      const precondition = parseIfMatch(request.headers['if-match']);
      const view = await service.update(request.ctx, idOf(request), items[0]!, precondition);
      return { [spec.name]: renderViews(deps, request.ctx, service, [view], fieldsOf(query(request)))[0] };
    },
    DELETE: async (request, reply) => {
      const precondition = parseIfMatch(request.headers['if-match']);
      if (typeof request.body === 'string' && request.body.length > 0) {
        await service.show(request.ctx, idOf(request)); // an invisible resource is a 404 first
        throw HTTPBadRequest('Request body is not supported in DELETE.');
      }
      await service.delete(request.ctx, idOf(request), precondition);
      return reply.code(204).send();
    },
  });
}
