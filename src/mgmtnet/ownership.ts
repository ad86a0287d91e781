/**
 * Which Neutron objects belong to a spec, and the two explicit ways an object changes hands.
 *
 * An object is ours only if it carries the owner tag `octonet-mgmt-net:<metadata.name>`; a role tag
 * (`octonet-role:<role>`) says which part it plays, so a rename in the spec is an update, not a
 * second object. Per-node ports also carry `octonet-node:<node>`. Nothing untagged is ever changed:
 * an untagged object with one of our names is reported, and taken over only when the spec says
 * `adopt: true` (logged as `adopted`). On delete, what is still in use is handed back the other way
 * (`orphan`): renamed with `-orphaned` and its tags replaced by `octonet-orphaned:<name>`.
 */
import type { Collection, NeutronClient, NeutronObject } from './neutron-client.js';
import { nodeTag, ownerTag, type MgmtNetSpec } from './spec.js';

const ROLE_PREFIX = 'octonet-role:';
const NODE_PREFIX = 'octonet-node:';
const ORPHAN_SUFFIX = '-orphaned';

export type Role =
  | 'mgmt-net'
  | 'mgmt-subnet-v4'
  | 'mgmt-subnet-v6'
  | 'provider-net'
  | 'provider-subnet'
  | 'amphora-sg'
  | 'health-sg'
  | 'router'
  | 'router-port'
  | 'hm-port';

function roleTag(role: Role): string {
  return `${ROLE_PREFIX}${role}`;
}

function orphanTag(spec: MgmtNetSpec): string {
  return `octonet-orphaned:${spec.metadata.name}`;
}

/** The tags an object playing `role` (for `node`) must carry, sorted. */
export function ownedTags(spec: MgmtNetSpec, role: Role, node?: string): string[] {
  return [ownerTag(spec), roleTag(role), ...(node !== undefined ? [nodeTag(node)] : [])].sort();
}

export function roleOf(object: { tags?: string[] }): Role | undefined {
  const tag = (object.tags ?? []).find((t) => t.startsWith(ROLE_PREFIX));
  return tag?.slice(ROLE_PREFIX.length) as Role | undefined;
}

export function nodeOf(object: { tags?: string[] }): string | undefined {
  return (object.tags ?? []).find((t) => t.startsWith(NODE_PREFIX))?.slice(NODE_PREFIX.length);
}

/** Tags in our namespace (`octonet-...`); anyone else's tags on our objects are left alone. */
function isOctonetTag(tag: string): boolean {
  return tag.startsWith('octonet-');
}

/** Whether the object's octonet tags are exactly `tags` (other tags do not matter). */
export function hasTags(object: { tags?: string[] }, tags: readonly string[]): boolean {
  const have = (object.tags ?? []).filter(isOctonetTag).sort();
  return have.length === tags.length && have.every((t, i) => t === tags[i]);
}

/** The object's tags with our namespace replaced by `tags`: what `PUT .../tags` should send. */
export function withTags(object: { tags?: string[] }, tags: readonly string[]): string[] {
  return [...(object.tags ?? []).filter((t) => !isOctonetTag(t)), ...tags].sort();
}

/**
 * Untagged objects named `name` (one read): the candidates for adoption, and the reason to stop
 * when adoption was not asked for. Objects tagged for another spec are not candidates either.
 */
export async function lookAlikes(
  client: NeutronClient,
  collection: Collection,
  name: string,
  query: Record<string, string> = {},
): Promise<NeutronObject[]> {
  const found = await client.list(collection, { name, ...query });
  return found.filter((o) => !(o.tags ?? []).some((t: string) => t.startsWith('octonet-mgmt-net:')));
}

/** Renames an object we can no longer delete and hands it back: a later apply never adopts it. */
export async function orphan(
  client: NeutronClient,
  spec: MgmtNetSpec,
  collection: Collection,
  object: NeutronObject,
): Promise<string> {
  const name = String(object.name ?? '').endsWith(ORPHAN_SUFFIX)
    ? String(object.name)
    : `${object.name ?? ''}${ORPHAN_SUFFIX}`;
  if (object.name !== name) await client.update(collection, object.id, { name });
  await client.setTags(collection, object.id, withTags(object, [orphanTag(spec)]));
  return name;
}
