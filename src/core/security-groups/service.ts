/**
 * Security groups: list (creating the caller's default group first), show, create (each new
 * group starts with the two egress rules), update (name, description, stateful) and delete, with
 * Neutron's rules for the `default` group and for groups bound to ports.
 *
 * Groups are not shared: a non-admin sees its project's groups only. Rules are
 * `rule-service.ts`'s; a group's own rules are written here only when the group is created or
 * deleted.
 */
import { securityGroupCreate, securityGroupUpdate } from './body.js';
import type { ResourceContext } from '../../drivers/contract.js';
import { securityGroupState } from '../driver-states.js';
import { randomUUID } from 'node:crypto';
import type { RequestContext } from '../context.js';
import type { CoreDeps } from '../deps.js';
import { bulkCreate, writeTransaction } from '../deps.js';
import {
  SecurityGroupCannotRemoveDefault,
  SecurityGroupCannotUpdateDefault,
  SecurityGroupInUse,
  SecurityGroupNotFound,
} from '../errors.js';
import type { ListQuery } from '../list-query.js';
import { policyTarget, type Body, type Precondition, type ResourceService, type View } from '../resource.js';
import { checkRevision } from '../revisions.js';
import { timestamp } from '../standard-attributes.js';
import type { Db, Tx } from '../../store/database.js';
import { TRUE } from '../../store/list.js';
import { toBool, type SecurityGroupTable } from '../../store/schema.js';
import {
  bumpSecurityGroupRevision,
  deleteSecurityGroup,
  getSecurityGroupRecord,
  groupsOfProject,
  insertSecurityGroupRules,
  listSecurityGroupRecords,
  loadSecurityGroupRecords,
  lockSecurityGroupRow,
  securityGroupInUse,
  type SecurityGroupRecord,
} from '../../store/security-groups.js';
import { SECURITY_GROUP_SPEC } from './attributes.js';
import {
  DEFAULT_SECURITY_GROUP_NAME,
  ensureDefaultSecurityGroup,
  ensureDefaultSecurityGroupBeforeList,
  initialRules,
} from './default-group.js';
import { securityGroupView } from './views.js';
import { insertRow, type RowPatch, updateRow } from '../../store/rows.js';

/** Admins see every group; everyone else the groups of their project. */
export function canSeeSecurityGroup(ctx: RequestContext, row: Pick<SecurityGroupTable, 'project_id'>): boolean {
  return ctx.isAdmin || (ctx.projectId !== null && row.project_id === ctx.projectId);
}

/** Neutron's message for a group bound to ports (`SecurityGroupInUse` without a reason). */
const inUse = (id: string) => SecurityGroupInUse({ id, reason: 'in use' });

export class SecurityGroupService implements ResourceService {
  readonly spec = SECURITY_GROUP_SPEC;

  constructor(private readonly deps: CoreDeps) {}

  notFound(id: string | null): Error {
    return SecurityGroupNotFound({ id });
  }

  async list(ctx: RequestContext, query: ListQuery): Promise<View[]> {
    await ensureDefaultSecurityGroupBeforeList(this.deps, ctx, query);
    const scope = ctx.isAdmin ? TRUE : groupsOfProject(ctx.projectId);
    const records = await listSecurityGroupRecords({ store: this.deps.store, projectId: ctx.projectId }, query, scope);
    return records.map(securityGroupView).filter((v) => this.deps.authz.canRead(ctx, 'security_group', v));
  }

  /** A group the caller may see, or SecurityGroupNotFound. */
  async getVisible(db: Db, ctx: RequestContext, id: string): Promise<SecurityGroupRecord> {
    const record = await getSecurityGroupRecord(db, id);
    if (!record || !canSeeSecurityGroup(ctx, record.row)) throw this.notFound(id);
    return record;
  }

  async show(ctx: RequestContext, id: string): Promise<View> {
    const view = securityGroupView(await this.getVisible(this.deps.store.db, ctx, id));
    if (!this.deps.authz.canRead(ctx, 'security_group', view)) throw this.notFound(id);
    return view;
  }

  async create(ctx: RequestContext, items: Body[]): Promise<View[]> {
    // The quota is counted before the project's default group may be created, as Neutron's quota
    // hook does: a new project's first group is allowed even with a quota of one.
    return bulkCreate(this.deps, 'security_group', items, {
      authorize: async (_tx, item) => this.deps.authz.enforceCreate(ctx, this.spec, item),
      create: (tx, item) => this.createOne(tx, ctx, item),
    });
  }

  private async createOne(tx: Tx, ctx: RequestContext, item: Body): Promise<{ view: View; event: ResourceContext }> {
    const { deps } = this;
    const body = securityGroupCreate(item);
    const projectId = body.project_id;
    await ensureDefaultSecurityGroup(deps.store, deps.quotas, tx, projectId);
    const id = randomUUID();
    const now = timestamp();
    const rules = initialRules(id, projectId, false, now);
    await deps.quotas.enforce(tx, projectId, { security_group_rule: rules.length });
    await insertRow(deps.store, tx, 'security_groups', {
      id,
      project_id: projectId,
      name: body.name,
      description: body.description,
      stateful: body.stateful,
      // Neutron's first revision is 1: writing the initial rules bumps the new group once.
      revision_number: 1,
      created_at: now,
      updated_at: now,
    });
    await insertSecurityGroupRules(tx, rules);
    const view = securityGroupView((await getSecurityGroupRecord(tx, id))!);
    const current = securityGroupState(view);
    return { view, event: { resource: 'security_group', operation: 'create', request: ctx, current } };
  }

  /** The group locked for a write, as the caller sees it, or SecurityGroupNotFound. */
  private async lockVisible(tx: Tx, ctx: RequestContext, id: string): Promise<SecurityGroupRecord> {
    const row = await lockSecurityGroupRow(this.deps.store, tx, id);
    if (!row || !canSeeSecurityGroup(ctx, row)) throw this.notFound(id);
    return (await loadSecurityGroupRecords(tx, [row]))[0]!;
  }

  async update(ctx: RequestContext, id: string, body: Body, precondition: Precondition): Promise<View> {
    const { deps } = this;
    return writeTransaction(deps, async (tx) => {
      const record = await this.lockVisible(tx, ctx, id);
      const { row } = record;
      const original = securityGroupView(record);
      deps.authz.enforceUpdate(ctx, this.spec, policyTarget(original, body), body);
      if (Object.keys(body).length === 0) return { result: original, events: [] };
      // OVN cannot switch a group's ACLs between stateful and stateless under bound ports.
      if ('stateful' in body && body.stateful !== toBool(row.stateful) && (await securityGroupInUse(tx, id)))
        throw inUse(id);
      // Neutron knows the default group by its name here, and refuses even an unchanged name.
      if (row.name === DEFAULT_SECURITY_GROUP_NAME && 'name' in body) throw SecurityGroupCannotUpdateDefault({});
      checkRevision(row.revision_number, precondition);

      const patch: RowPatch<'security_groups'> = { revision_number: row.revision_number + 1, updated_at: timestamp() };
      const change = securityGroupUpdate(body);
      if (change.name !== undefined) patch.name = change.name;
      if (change.description !== undefined) patch.description = change.description;
      if (change.stateful !== undefined) patch.stateful = change.stateful;
      await updateRow(deps.store, tx, 'security_groups', id, patch);
      const current = securityGroupView((await getSecurityGroupRecord(tx, id))!);
      const event: ResourceContext = {
        resource: 'security_group',
        operation: 'update',
        request: ctx,
        current: securityGroupState(current),
        original: securityGroupState(original),
      };
      return { result: current, events: [event] };
    });
  }

  async delete(ctx: RequestContext, id: string, precondition: Precondition): Promise<void> {
    const { deps } = this;
    await writeTransaction(deps, async (tx) => {
      const record = await this.lockVisible(tx, ctx, id);
      const current = securityGroupView(record);
      deps.authz.enforceDelete(ctx, this.spec, current);
      if (await securityGroupInUse(tx, id)) throw inUse(id);
      // An admin may delete a project's default group; the project's next trigger makes a new one.
      if (record.row.name === DEFAULT_SECURITY_GROUP_NAME && !ctx.isAdmin) throw SecurityGroupCannotRemoveDefault({});
      checkRevision(record.row.revision_number, precondition);
      const now = timestamp();
      // Rules elsewhere that allowed traffic from this group go with it; their groups change.
      for (const other of await deleteSecurityGroup(tx, id)) await bumpSecurityGroupRevision(tx, other, 1, now);
      const state = securityGroupState(current);
      const event: ResourceContext = { resource: 'security_group', operation: 'delete', request: ctx, current: state };
      return { result: undefined, events: [event] };
    });
  }
}
