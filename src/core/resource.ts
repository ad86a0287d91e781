/**
 * The contract between the API layer and each resource's core service: list, show, create
 * (single or bulk, all-or-nothing), update and delete, on prepared bodies.
 *
 * Services return views: every attribute of the resource as Neutron shows it to an admin, in
 * Neutron's key order. The API layer removes what policy hides and applies `fields`.
 */
import type { ResourceSpec } from './attributes.js';
import type { RequestContext } from './context.js';
import type { PolicyTarget } from './authorizer.js';
import type { ListQuery } from './list-query.js';

export type View = Record<string, unknown>;
export type Body = Record<string, unknown>;

/** `If-Match: revision_number=N`: the write only applies while the resource is at revision N. */
export interface Precondition {
  readonly revisionNumber?: number;
}

export interface ResourceService {
  readonly spec: ResourceSpec;
  list(ctx: RequestContext, query: ListQuery): Promise<View[]>;
  show(ctx: RequestContext, id: string): Promise<View>;
  /** Creates every item in one transaction; any failure creates none. */
  create(ctx: RequestContext, items: Body[]): Promise<View[]>;
  update(ctx: RequestContext, id: string, body: Body, precondition: Precondition): Promise<View>;
  delete(ctx: RequestContext, id: string, precondition: Precondition): Promise<void>;
  /** The NotFound error of this resource type for an id (used for unknown markers and collection PUT/DELETE). */
  notFound(id: string | null): Error;
}

/**
 * A field of a view or a prepared body that is always a string (an id, the project, the parent
 * network); anything else there is octonet's bug, never the client's, so not a Neutron error.
 */
export function stringField(item: View | Body, key: string): string {
  const value = item[key];
  if (typeof value !== 'string') throw new Error(`the ${key} field is ${typeof value}, not a string`);
  return value;
}

/** How many of `items` each project creates (quotas are counted per project). */
export function countByProject(items: readonly Body[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) {
    const project = stringField(item, 'project_id');
    counts.set(project, (counts.get(project) ?? 0) + 1);
  }
  return counts;
}

/** Neutron's PUT policy target: the stored resource with the body's values on top. */
export function policyTarget(original: View, body: Body): PolicyTarget {
  return { ...original, ...body };
}
