/**
 * Security group rules: list (creating the caller's default group first), show, create (single
 * or bulk, all-or-nothing, with Neutron's duplicate detection) and delete. Rules are never
 * updated. Every rule written or removed bumps its group's revision by one.
 *
 * Who may see or touch a rule is decided by its group's project, whoever created the rule.
 */
import { ruleCreate } from './rule-body.js';
import type { ResourceContext } from '../../drivers/contract.js';
import { ruleState } from '../driver-states.js';
import { randomUUID } from 'node:crypto';
import type { RequestContext } from '../context.js';
import type { CoreDeps } from '../deps.js';
import { writeTransaction } from '../deps.js';
import {
  AddressGroupNotFound,
  BadRequest,
  DuplicateSecurityGroupRuleInPost,
  HTTPNotFound,
  SecurityGroupNotFound,
  SecurityGroupNotSingleGroupRules,
  SecurityGroupRuleExists,
  SecurityGroupRuleNotFound,
  SecurityGroupRulesNotSingleProject,
  httpError,
} from '../errors.js';
import type { ListQuery } from '../list-query.js';
import { countByProject, stringField } from '../resource.js';
import type { Body, Precondition, ResourceService, View } from '../resource.js';
import { checkRevision } from '../revisions.js';
import { timestamp } from '../standard-attributes.js';
import { isTruthy } from '../validators.js';
import type { Db, Tx } from '../../store/database.js';
import { TRUE } from '../../store/list.js';
import type { SecurityGroupRuleTable } from '../../store/schema.js';
import {
  bumpSecurityGroupRevision,
  deleteRuleRow,
  getRuleRecord,
  insertSecurityGroupRules,
  listRuleRecords,
  loadRuleRecords,
  lockSecurityGroupRow,
  rulesInGroupsOfProject,
  rulesOfGroup,
  securityGroupOwners,
  type SecurityGroupRuleRecord,
} from '../../store/security-groups.js';
import { SECURITY_GROUP_RULE_SPEC } from './attributes.js';
import { ensureDefaultSecurityGroupBeforeList } from './default-group.js';
import { canonicaliseRule, ruleKey } from './rule-validation.js';
import { ruleTarget, ruleView } from './views.js';

/** The owner of each group id that exists; ids that are not strings cannot name a group. */
async function ownersOf(tx: Tx, ids: readonly unknown[]): Promise<Map<unknown, string>> {
  return securityGroupOwners(tx, [...new Set(ids.filter((id): id is string => typeof id === 'string'))]);
}

/** `_validate_single_project_and_group`: a bulk request writes one group, for one project. */
function singleGroup(items: Body[]): string {
  const groups = new Set<unknown>();
  const projects = new Set<unknown>();
  for (const item of items) {
    groups.add(item.security_group_id);
    if (groups.size > 1) throw SecurityGroupNotSingleGroupRules({});
    projects.add(item.project_id);
    if (projects.size > 1) throw SecurityGroupRulesNotSingleProject({});
  }
  return stringField(items[0]!, 'security_group_id');
}

export class SecurityGroupRuleService implements ResourceService {
  readonly spec = SECURITY_GROUP_RULE_SPEC;

  constructor(private readonly deps: CoreDeps) {}

  notFound(id: string | null): Error {
    return SecurityGroupRuleNotFound({ id });
  }

  private canRead(ctx: RequestContext, record: SecurityGroupRuleRecord): boolean {
    return this.deps.authz.canRead(ctx, 'security_group_rule', ruleTarget(record));
  }

  async list(ctx: RequestContext, query: ListQuery): Promise<View[]> {
    await ensureDefaultSecurityGroupBeforeList(this.deps, ctx, query);
    // The API accepts it as a sort key (the attribute map says so); Neutron's database layer refuses it.
    if (query.sorts.some((s) => s.key === 'normalized_cidr')) {
      throw BadRequest({
        resource: 'securitygrouprules',
        msg: "'normalized_cidr' is an invalid attribute for sort key",
      });
    }
    // Every rule's remote_address_group_id is null: sorting on it changes nothing.
    const sorts = query.sorts.filter((s) => s.key !== 'remote_address_group_id');
    const scope = ctx.isAdmin ? TRUE : rulesInGroupsOfProject(ctx.projectId);
    const records = await listRuleRecords(
      { store: this.deps.store, projectId: ctx.projectId },
      { ...query, sorts },
      scope,
    );
    return records.filter((r) => this.canRead(ctx, r)).map(ruleView);
  }

  /** A rule the caller may read: SecurityGroupRuleNotFound if none, HTTPNotFound if hidden. */
  private async getReadable(db: Db, ctx: RequestContext, id: string): Promise<SecurityGroupRuleRecord> {
    const record = await getRuleRecord(db, id);
    if (!record) throw this.notFound(id);
    if (!this.canRead(ctx, record)) throw HTTPNotFound();
    return record;
  }

  async show(ctx: RequestContext, id: string): Promise<View> {
    return ruleView(await this.getReadable(this.deps.store.db, ctx, id));
  }

  async create(ctx: RequestContext, items: Body[]): Promise<View[]> {
    const { deps } = this;
    return writeTransaction(deps, async (tx) => {
      for (const [project, count] of countByProject(items))
        await deps.quotas.enforce(tx, project, { security_group_rule: count });
      await this.authorizeCreate(tx, ctx, items);
      const groupId = singleGroup(items);
      for (const item of items) await this.validate(tx, ctx, item);
      // Serialises rule writes to the group, so concurrent duplicates cannot both pass the check.
      await lockSecurityGroupRow(deps.store, tx, groupId);
      await this.refuseDuplicates(tx, groupId, items);

      const now = timestamp();
      const rows: SecurityGroupRuleTable[] = items.map(ruleCreate).map((rule) => ({
        id: randomUUID(),
        project_id: rule.project_id,
        security_group_id: groupId,
        remote_group_id: rule.remote_group_id,
        direction: rule.direction,
        ethertype: rule.ethertype,
        protocol: rule.protocol,
        port_range_min: rule.port_range_min,
        port_range_max: rule.port_range_max,
        remote_ip_prefix: rule.remote_ip_prefix,
        description: rule.description,
        revision_number: 0,
        created_at: now,
        updated_at: now,
      }));
      await insertSecurityGroupRules(tx, rows);
      await bumpSecurityGroupRevision(tx, groupId, rows.length, now);
      const views = (await loadRuleRecords(tx, rows)).map(ruleView);
      const events = views.map((view): ResourceContext => ({
        resource: 'security_group_rule',
        operation: 'create',
        request: ctx,
        current: ruleState(view),
      }));
      return { result: views, events };
    });
  }

  /**
   * `create_security_group_rule` is about the group's project, so policy needs the group: a
   * non-admin naming a group that does not exist gets SecurityGroupNotFound, as Neutron's policy
   * lookup answers.
   */
  private async authorizeCreate(tx: Tx, ctx: RequestContext, items: Body[]): Promise<void> {
    const owners = await ownersOf(
      tx,
      items.map((i) => i.security_group_id),
    );
    for (const item of items) {
      const owner = owners.get(item.security_group_id);
      if (owner === undefined && !ctx.isAdmin) throw SecurityGroupNotFound({ id: item.security_group_id });
      this.deps.authz.enforceCreate(ctx, this.spec, { ...item, 'security_group:project_id': owner });
    }
  }

  /** Whether the rule's project may reference the group: its own, or any for an admin. */
  private async groupVisibleTo(tx: Tx, ctx: RequestContext, groupId: unknown, projectId: unknown): Promise<boolean> {
    const owner = (await ownersOf(tx, [groupId])).get(groupId);
    return owner !== undefined && (ctx.isAdmin || owner === projectId);
  }

  /** `_validate_security_group_rule`: the rule's own checks, then the groups it names. */
  private async validate(tx: Tx, ctx: RequestContext, rule: Body): Promise<void> {
    canonicaliseRule(rule);
    // Neutron ignores empty remote ids (`if remote_group_id:`); store them as none.
    if (!isTruthy(rule.remote_group_id)) rule.remote_group_id = null;
    else if (!(await this.groupVisibleTo(tx, ctx, rule.remote_group_id, rule.project_id))) {
      throw SecurityGroupNotFound({ id: rule.remote_group_id });
    }
    if (isTruthy(rule.remote_address_group_id)) {
      throw AddressGroupNotFound({ address_group_id: rule.remote_address_group_id });
    }
    rule.remote_address_group_id = null;
    if (!(await this.groupVisibleTo(tx, ctx, rule.security_group_id, rule.project_id))) {
      throw SecurityGroupNotFound({ id: rule.security_group_id });
    }
  }

  /** `_check_for_duplicate_rules`: first within the request, then against the group's rules. */
  private async refuseDuplicates(tx: Tx, groupId: string, items: Body[]): Promise<void> {
    const keys = new Set<string>();
    for (const item of items) {
      const key = ruleKey(item);
      if (keys.has(key)) throw DuplicateSecurityGroupRuleInPost({});
      keys.add(key);
    }
    for (const existing of await rulesOfGroup(tx, groupId)) {
      if (keys.has(ruleKey(existing))) throw SecurityGroupRuleExists({ rule_id: existing.id });
    }
  }

  /**
   * Rules are immutable. A PUT naming any attribute was refused by the attribute map already; an
   * empty one (a 500 in Neutron, which has no update for rules) is answered like any unsupported
   * method, once the rule is known to exist.
   */
  async update(ctx: RequestContext, id: string): Promise<View> {
    await this.getReadable(this.deps.store.db, ctx, id);
    throw httpError(
      'HTTPMethodNotAllowed',
      'The server could not comply with the request since it is either malformed or otherwise incorrect.',
    );
  }

  async delete(ctx: RequestContext, id: string, precondition: Precondition): Promise<void> {
    const { deps } = this;
    await writeTransaction(deps, async (tx) => {
      const found = await getRuleRecord(tx, id);
      if (!found) throw this.notFound(id);
      deps.authz.enforceDelete(ctx, this.spec, ruleTarget(found));
      // Take the group's lock first, then make sure a concurrent delete did not win meanwhile.
      await lockSecurityGroupRow(deps.store, tx, found.row.security_group_id);
      const record = await getRuleRecord(tx, id);
      if (!record) throw this.notFound(id);
      checkRevision(record.row.revision_number, precondition);
      await deleteRuleRow(tx, id);
      await bumpSecurityGroupRevision(tx, record.row.security_group_id, 1, timestamp());
      const event: ResourceContext = {
        resource: 'security_group_rule',
        operation: 'delete',
        request: ctx,
        current: ruleState(ruleView(record)),
      };
      return { result: undefined, events: [event] };
    });
  }
}
