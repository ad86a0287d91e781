/**
 * The tags sub-resource (`/v2.0/<collection>/<id>/tags[/<tag>]`, standard-attr-tag and
 * tag-creation): list, check, replace, add and remove the tags of any taggable resource.
 *
 * As Neutron's TaggingController, the parent is looked up as an admin would (404
 * TagResourceNotFound only when it does not exist) and the `<action>_<resource>:tags` rule decides
 * on it: a parent the caller may not see is a 403, not hidden. A request that changes the tags
 * bumps the parent's revision once; one that changes nothing does not.
 */
import type { PolicyTarget } from '../authorizer.js';
import { elevated, type RequestContext } from '../context.js';
import type { CoreDeps } from '../deps.js';
import { BadRequest, InvalidInput, NeutronError, TagNotFound, TagResourceNotFound } from '../errors.js';
import type { ResourceService, View } from '../resource.js';
import { timestamp } from '../standard-attributes.js';
import { isPlainObject, isStringList, validateListOfUniqueStrings, validateString } from '../validators.js';
import type { Db, Tx } from '../../store/database.js';
import { getNetworkAccess, isExternal, isSharedWith } from '../../store/networks.js';
import { bumpRevision } from '../../store/rows.js';
import { addTags, loadTags, removeTags } from '../../store/tags.js';

export const MAX_TAG_LENGTH = 255;
export const MAX_TAGS_PER_RESOURCE = 50;

/** A resource whose tags this service manages. */
export interface TagParent {
  /** URL segment of the collection: `networks`, `security-groups`. */
  readonly path: string;
  /** The collection's table, whose revision a tag change bumps. */
  readonly table:
    'networks' | 'subnets' | 'ports' | 'security_groups' | 'routers' | 'floatingips' | 'subnetpools' | 'qos_policies';
  readonly service: ResourceService;
}

type TagAction = 'get' | 'create' | 'update' | 'delete';

export function validateTag(tag: string): void {
  const msg = validateString(MAX_TAG_LENGTH)(tag);
  if (msg) throw InvalidInput({ error_message: msg });
}

/** A `{"tags": [...]}` body: a dict with a list of unique strings of at most 255 characters. */
export function validateTagsBody(body: unknown): string[] {
  if (!isPlainObject(body) || !('tags' in body)) throw InvalidInput({ error_message: 'Invalid tags body' });
  const tags = body.tags;
  const msg = validateListOfUniqueStrings(MAX_TAG_LENGTH)(tags);
  // A list that passed is one of strings; `isStringList` only tells the compiler so.
  if (msg || !isStringList(tags)) throw InvalidInput({ error_message: msg ?? 'Invalid tags body' });
  return tags;
}

export class TagService {
  private readonly parents: Map<string, TagParent>;

  constructor(
    private readonly deps: CoreDeps,
    parents: readonly TagParent[],
  ) {
    this.parents = new Map(parents.map((p) => [p.path, p]));
  }

  get paths(): string[] {
    return [...this.parents.keys()];
  }

  /** The parent as the caller sees it, after the `<action>_<res>:tags` check. */
  private async authorize(
    ctx: RequestContext,
    path: string,
    id: string,
    action: TagAction,
  ): Promise<{ parent: TagParent; view: View }> {
    const parent = this.parents.get(path)!;
    let view: View;
    try {
      view = await parent.service.show(elevated(ctx), id);
    } catch (error) {
      if (error instanceof NeutronError && error.status === 404) {
        throw TagResourceNotFound({ resource: parent.service.spec.collection, resource_id: id });
      }
      throw error;
    }
    this.deps.authz.enforceRule(ctx, `${action}_${parent.service.spec.name}:tags`, await this.target(ctx, view));
    return { parent, view };
  }

  /**
   * The policy target: the parent, and for subnets and ports what the rules ask of its network
   * (owner, shared with the caller, external). A network's view already says both for the caller.
   */
  private async target(ctx: RequestContext, view: View): Promise<PolicyTarget> {
    if (typeof view.network_id !== 'string') return view;
    const network = await getNetworkAccess(this.deps.store.db, view.network_id);
    if (!network) return view;
    return {
      ...view,
      'network:project_id': network.row.project_id,
      shared: isSharedWith(network, ctx.projectId),
      'router:external': isExternal(network),
    };
  }

  private checkLimit(parent: TagParent, tags: readonly string[]): void {
    if (new Set(tags).size > MAX_TAGS_PER_RESOURCE) {
      throw BadRequest({
        resource: parent.service.spec.collection,
        msg: `The number of tags exceed the per-resource limit of ${MAX_TAGS_PER_RESOURCE}`,
      });
    }
  }

  private async current(tx: Db, id: string): Promise<string[]> {
    return (await loadTags(tx, [id])).get(id) ?? [];
  }

  private async bump(tx: Tx, parent: TagParent, id: string): Promise<void> {
    await bumpRevision(tx, parent.table, id, timestamp());
  }

  async list(ctx: RequestContext, path: string, id: string): Promise<string[]> {
    await this.authorize(ctx, path, id, 'get');
    return this.current(this.deps.store.db, id);
  }

  async check(ctx: RequestContext, path: string, id: string, tag: string): Promise<void> {
    validateTag(tag);
    await this.authorize(ctx, path, id, 'get');
    if (!(await this.current(this.deps.store.db, id)).includes(tag)) throw TagNotFound({ tag });
  }

  /** `PUT .../tags`: the tags become exactly `tags`. */
  async replace(ctx: RequestContext, path: string, id: string, tags: string[]): Promise<void> {
    const { parent } = await this.authorize(ctx, path, id, 'update');
    this.checkLimit(parent, tags);
    await this.deps.store.transaction(async (tx) => {
      const old = await this.current(tx, id);
      const removed = old.filter((t) => !tags.includes(t));
      const added = tags.filter((t) => !old.includes(t));
      await removeTags(tx, id, removed);
      await addTags(tx, parent.service.spec.name, id, added);
      if (removed.length || added.length) await this.bump(tx, parent, id);
    });
  }

  /** `PUT .../tags/<tag>` and `POST .../tags`: adds what is missing. */
  async add(ctx: RequestContext, path: string, id: string, tags: string[], action: 'update' | 'create'): Promise<void> {
    const { parent } = await this.authorize(ctx, path, id, action);
    await this.deps.store.transaction(async (tx) => {
      const old = await this.current(tx, id);
      this.checkLimit(parent, [...old, ...tags]);
      const added = tags.filter((t) => !old.includes(t));
      await addTags(tx, parent.service.spec.name, id, added);
      if (added.length) await this.bump(tx, parent, id);
    });
  }

  /** `DELETE .../tags` (every tag) and `DELETE .../tags/<tag>` (one, which must exist). */
  async remove(ctx: RequestContext, path: string, id: string, tag?: string): Promise<void> {
    const { parent } = await this.authorize(ctx, path, id, 'delete');
    await this.deps.store.transaction(async (tx) => {
      const removed = await removeTags(tx, id, tag === undefined ? undefined : [tag]);
      if (tag !== undefined && removed === 0) throw TagNotFound({ tag });
      if (removed) await this.bump(tx, parent, id);
    });
  }
}
