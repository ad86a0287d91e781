/**
 * One reconcile pass: what was observed (every owned object, one list per collection, by owner tag),
 * what the pass did (the object reports), the IDs it knows, and `ensure`, the one place where an
 * object is adopted, created, updated or refused. Attribute comparison treats arrays as sets, since
 * Neutron does not promise an order for routes, pools or groups.
 */
import type { Collection, NeutronClient, NeutronObject } from './neutron-client.js';
import { hasTags, nodeOf, ownedTags, roleOf, type Role } from './ownership.js';
import type { Action, ApplyOptions, MgmtNetIds, ObjectKind, ObjectReport } from './report.js';
import { ownerTag, type MgmtNetSpec } from './spec.js';

export interface Observed {
  networks: NeutronObject[];
  subnets: NeutronObject[];
  securityGroups: NeutronObject[];
  rules: NeutronObject[];
  routers: NeutronObject[];
  ports: NeutronObject[];
}

export async function observe(spec: MgmtNetSpec, client: NeutronClient): Promise<Observed> {
  const tag = { tags: ownerTag(spec) };
  const [networks, subnets, securityGroups, routers, ports] = await Promise.all([
    client.list('networks', tag),
    client.list('subnets', tag),
    client.list('security-groups', tag),
    client.list('routers', tag),
    client.list('ports', tag),
  ]);
  const rules =
    securityGroups.length > 0
      ? await client.list('security-group-rules', { security_group_id: securityGroups.map((g) => g.id) })
      : [];
  return { networks, subnets, securityGroups, rules, routers, ports };
}

/** Stops a pass: the message goes into the condition of the step that failed. */
export class StepFailed extends Error {
  constructor(
    readonly step: string,
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

export function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

/** Arrays compared as sets (Neutron does not promise an order for routes, pools, groups). */
function canonical(value: unknown): unknown {
  if (Array.isArray(value))
    return value
      .map(canonical)
      .map((v) => JSON.stringify(v))
      .sort();
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => [k, canonical(v)]),
    );
  }
  return value ?? null;
}

function differences(actual: NeutronObject, desired: Record<string, unknown>): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(desired)) {
    if (!sameValue(actual[key], value)) patch[key] = value;
  }
  return patch;
}

export const KIND_OF: Record<Collection, ObjectKind> = {
  networks: 'network',
  subnets: 'subnet',
  'security-groups': 'security_group',
  'security-group-rules': 'security_group_rule',
  routers: 'router',
  ports: 'port',
  agents: 'network',
};

/** One pass's state: what was observed, what it did, the IDs it knows. */
export class Pass {
  readonly objects: ObjectReport[] = [];
  readonly ids: MgmtNetIds = { subnets: {} };
  /** Untagged objects to adopt, found in the read phase: role(+node) → object. */
  readonly adoptable = new Map<string, NeutronObject>();
  /** Extra node ports found by `ensure`, deleted at the end of the pass. */
  readonly duplicatePorts: NeutronObject[] = [];
  projectId: string | undefined;

  constructor(
    readonly spec: MgmtNetSpec,
    readonly client: NeutronClient,
    readonly observed: Observed,
    readonly options: ApplyOptions,
  ) {}

  log(message: string, fields?: Record<string, unknown>): void {
    this.options.log?.(message, { mgmtNet: this.spec.metadata.name, ...fields });
  }

  report(collection: Collection, object: { id: string; name?: string }, action: Action, detail?: string): void {
    this.objects.push({
      kind: KIND_OF[collection],
      name: String(object.name ?? ''),
      id: object.id,
      action,
      ...(detail ? { detail } : {}),
    });
  }

  projectBody(): Record<string, unknown> {
    return this.projectId !== undefined ? { project_id: this.projectId } : {};
  }

  /** Owned objects of `collection` playing `role` (for `node`), the stored ID first. */
  candidates(collection: keyof Observed, role: Role, node?: string): NeutronObject[] {
    const found = this.observed[collection].filter(
      (o) => roleOf(o) === role && (node === undefined || nodeOf(o) === node),
    );
    const stored = this.storedId(role);
    return found.sort((a, b) =>
      a.id === stored ? -1 : b.id === stored ? 1 : String(a.created_at ?? '').localeCompare(String(b.created_at ?? '')),
    );
  }

  private storedId(role: Role): string | undefined {
    const ids = this.options.previous?.ids;
    if (!ids) return undefined;
    switch (role) {
      case 'mgmt-net':
        return ids.network;
      case 'provider-net':
        return ids.providerNetwork;
      case 'amphora-sg':
        return ids.amphoraSecurityGroup;
      case 'health-sg':
        return ids.healthManagerSecurityGroup;
      case 'router':
        return ids.router;
      case 'router-port':
        return ids.routerPort;
      default:
        return ids.subnets[role];
    }
  }

  /**
   * Makes one object match: adopt (found in the read phase) or create it when missing, update the
   * attributes that differ, refuse when a create-only attribute differs.
   */
  async ensure(input: {
    collection: Exclude<Collection, 'agents' | 'security-group-rules'>;
    observed: keyof Observed;
    role: Role;
    node?: string;
    attributes: Record<string, unknown>;
    fixed?: Record<string, unknown>;
    createOnly?: Record<string, unknown>;
    step: string;
  }): Promise<NeutronObject> {
    const tags = ownedTags(this.spec, input.role, input.node);
    const [current, ...duplicates] = this.candidates(input.observed, input.role, input.node);
    for (const extra of duplicates) {
      this.log('duplicate owned object; the oldest (or stored) one is kept', {
        kind: KIND_OF[input.collection],
        id: extra.id,
        kept: current!.id,
      });
      // A second port for one node (a crash between create and tag, a copy) is ours and useless:
      // it goes. Other duplicates may carry amphorae, so they are only reported.
      if (input.role === 'hm-port') this.duplicatePorts.push(extra);
    }
    let object: NeutronObject;
    let action: Action = 'unchanged';
    if (current) {
      object = current;
    } else {
      const lookAlike = this.adoptable.get(adoptKey(input.role, input.node));
      if (lookAlike) {
        await this.client.setTags(input.collection, lookAlike.id, tags);
        this.log('adopted an untagged object (spec.adopt is true)', {
          kind: KIND_OF[input.collection],
          id: lookAlike.id,
          name: lookAlike.name,
        });
        object = { ...lookAlike, tags };
        action = 'adopted';
      } else {
        const created = await this.client.create(input.collection, {
          ...input.attributes,
          ...input.fixed,
          ...input.createOnly,
          ...this.projectBody(),
        });
        await this.client.setTags(input.collection, created.id, tags);
        this.report(input.collection, created, 'created');
        return { ...created, tags };
      }
    }
    for (const [key, value] of Object.entries(input.fixed ?? {})) {
      if (!sameValue(object[key], value)) {
        throw new StepFailed(
          input.step,
          'CannotChange',
          `${KIND_OF[input.collection]} ${object.name} (${object.id}) has ${key}=${JSON.stringify(object[key])}, the spec wants ${JSON.stringify(value)}; Neutron cannot change it in place: delete the management network and apply again`,
        );
      }
    }
    const patch = differences(object, input.attributes);
    const changed = Object.keys(patch);
    if (changed.length > 0) {
      object = { ...(await this.client.update(input.collection, object.id, patch)), tags: object.tags };
      if (action === 'unchanged') action = 'updated';
    }
    if (!hasTags(object, tags)) {
      await this.client.setTags(input.collection, object.id, tags);
      object = { ...object, tags };
      changed.push('tags');
      if (action === 'unchanged') action = 'updated';
    }
    this.report(input.collection, object, action, changed.length > 0 ? changed.join(',') : undefined);
    return object;
  }
}

export function adoptKey(role: Role, node?: string): string {
  return node === undefined ? role : `${role}:${node}`;
}

/** Read phase: untagged objects with our names, refused (or noted for adoption) before any write. */
