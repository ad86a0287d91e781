/**
 * QoS rules (`/v2.0/qos/policies/<id>/<type>_rules`, and `qos-rules-alias`'s
 * `/v2.0/qos/alias_<type>_rules/<id>`), and the rule types the back end supports
 * (`/v2.0/qos/rule-types`, with `qos-rule-type-details`). A rule change bumps its policy's revision
 * (Neutron's `revises_on_change`) and reaches the drivers as an update of the policy, since every
 * port using the policy follows its rules.
 */
import { randomUUID } from 'node:crypto';
import type { ResourceContext } from '../../drivers/contract.js';
import type { Tx } from '../../store/database.js';
import { getQosPolicyRecord, type QosPolicyRecord } from '../../store/qos.js';
import type { QosRuleTable } from '../../store/schema.js';
import type { ResourceSpec } from '../attributes.js';
import type { RequestContext } from '../context.js';
import { writeTransaction, type CoreDeps } from '../deps.js';
import type { ListQuery } from '../list-query.js';
import type { Body, View } from '../resource.js';
import { timestamp } from '../standard-attributes.js';
import { DIRECTIONS, VALID_DSCP_MARKS } from './attributes.js';
import { HTTPNotFound } from '../errors.js';
import { NotAuthorized, QosRuleNotFound } from './errors.js';
import {
  checkBandwidthConflict,
  checkDuplicate,
  qosRuleState,
  RULE_KINDS,
  ruleColumns,
  ruleView,
  type RuleKind,
} from './rules.js';
import { qosRuleCreate, qosRuleUpdate } from './body.js';
import type { QosPolicyService } from './service.js';

/** ML2/OVN's QoS driver (`services/qos/drivers/ovn/driver.py` SUPPORTED_RULES), as `qos-rule-type-details` shows it. */
const DB_INTEGER_MAX = 2 ** 31 - 1;
const range = (name: string) => ({
  parameter_name: name,
  parameter_type: 'range',
  parameter_values: { start: 0, end: DB_INTEGER_MAX },
});
const values = (name: string, list: readonly unknown[]) => ({
  parameter_name: name,
  parameter_type: 'choices',
  parameter_values: [...list],
});
const SUPPORTED_PARAMETERS: Readonly<Record<string, readonly View[]>> = {
  bandwidth_limit: [range('max_kbps'), range('max_burst_kbps'), values('direction', DIRECTIONS)],
  dscp_marking: [values('dscp_mark', VALID_DSCP_MARKS)],
  minimum_bandwidth: [range('min_kbps'), values('direction', DIRECTIONS)],
};

/** `qos_consts.VALID_RULE_TYPES`: what `all_rules=true` lists, served or not. */
const ALL_RULE_TYPES = [
  'bandwidth_limit',
  'dscp_marking',
  'minimum_bandwidth',
  'minimum_packet_rate',
  'packet_rate_limit',
] as const;

/** Rules of a policy that match a list's filters (values compared as the API printed them). */
function matches(view: View, query: ListQuery): boolean {
  return Object.entries(query.filters).every(([key, wanted]) =>
    wanted.some((value) => String(value) === String(view[key])),
  );
}

export class QosRuleService {
  constructor(
    private readonly deps: CoreDeps,
    private readonly policies: QosPolicyService,
  ) {}

  /** The policy name of a rule operation: `create_policy_bandwidth_limit_rule`, `get_alias_…`. */
  private policySpec(kind: RuleKind, alias: boolean): ResourceSpec {
    return { ...kind.spec, name: alias ? `alias_${kind.spec.name}` : `policy_${kind.spec.name}` };
  }

  /** What a rule's policy checks see: the policy's owner and sharing (rules have neither). */
  private target(record: QosPolicyRecord, extra: Body = {}): Body {
    return {
      ...extra,
      project_id: record.row.project_id,
      tenant_id: record.row.project_id,
      shared: this.policies.view(record).shared,
    };
  }

  private findRule(record: QosPolicyRecord, kind: RuleKind, ruleId: string): QosRuleTable {
    const rule = record.rules.find((r) => r.id === ruleId && r.type === kind.type);
    if (!rule) throw QosRuleNotFound({ rule_id: ruleId, policy_id: record.row.id });
    return rule;
  }

  /** `_get_policy_id` of the alias URLs: the rule's policy, or QosRuleNotFound with no policy. */
  async policyOfRule(kind: RuleKind, ruleId: string): Promise<string> {
    const row = await this.deps.store.db
      .selectFrom('qos_rules')
      .select('qos_policy_id')
      .where('id', '=', ruleId)
      .where('type', '=', kind.type)
      .executeTakeFirst();
    if (!row) throw QosRuleNotFound({ rule_id: ruleId, policy_id: '' });
    return row.qos_policy_id;
  }

  async list(ctx: RequestContext, kind: RuleKind, policyId: string, query: ListQuery): Promise<View[]> {
    const record = await this.policies.getVisible(this.deps.store.db, ctx, policyId);
    const spec = this.policySpec(kind, false);
    return record.rules
      .filter((r) => r.type === kind.type)
      .map((r) => ruleView(kind, r))
      .filter((v) => matches(v, query) && this.deps.authz.canRead(ctx, spec.name, this.target(record, v)));
  }

  async show(ctx: RequestContext, kind: RuleKind, policyId: string, ruleId: string, alias = false): Promise<View> {
    const record = await this.policies.getVisible(this.deps.store.db, ctx, policyId);
    const view = ruleView(kind, this.findRule(record, kind, ruleId));
    if (!this.deps.authz.canRead(ctx, this.policySpec(kind, alias).name, this.target(record, view)))
      throw QosRuleNotFound({ rule_id: ruleId, policy_id: policyId });
    return view;
  }

  async create(ctx: RequestContext, kind: RuleKind, policyId: string, body: Body): Promise<View> {
    // Neutron enforces `create_policy_<type>_rule` before it looks the policy up: a member naming a
    // policy that is not there (or not visible to it) is refused (403), not told that it is missing.
    try {
      await this.policies.getVisible(this.deps.store.db, ctx, policyId);
    } catch (error) {
      this.deps.authz.enforceCreate(ctx, this.policySpec(kind, false), { ...body });
      throw error;
    }
    return this.write(ctx, policyId, async (tx, record) => {
      this.deps.authz.enforceCreate(ctx, this.policySpec(kind, false), this.target(record, body));
      const given = qosRuleCreate(body);
      checkBandwidthConflict(policyId, record.rules, given);
      const rule: QosRuleTable = {
        id: randomUUID(),
        qos_policy_id: policyId,
        type: kind.type,
        ...ruleColumns(kind, given),
        // Milliseconds: rules are listed in creation order (never shown, so not the API's format).
        created_at: new Date().toISOString(),
      };
      checkDuplicate(policyId, record.rules, rule);
      await tx.insertInto('qos_rules').values(rule).execute();
      return ruleView(kind, rule);
    });
  }

  async update(
    ctx: RequestContext,
    kind: RuleKind,
    policyId: string,
    ruleId: string,
    body: Body,
    alias = false,
  ): Promise<View> {
    return this.write(ctx, policyId, async (tx, record) => {
      const rule = this.findRule(record, kind, ruleId);
      this.deps.authz.enforceUpdate(ctx, this.policySpec(kind, alias), this.target(record, ruleView(kind, rule)), body);
      const given = qosRuleUpdate(body);
      checkBandwidthConflict(policyId, record.rules, given);
      // The type's map admits only its own attributes, so `given` holds nothing of another type.
      const changed: QosRuleTable = { ...rule, ...given };
      checkDuplicate(policyId, record.rules, changed);
      const { max_kbps, max_burst_kbps, dscp_mark, min_kbps, direction } = changed;
      await tx
        .updateTable('qos_rules')
        .set({ max_kbps, max_burst_kbps, dscp_mark, min_kbps, direction })
        .where('id', '=', ruleId)
        .execute();
      return ruleView(kind, changed);
    });
  }

  async delete(ctx: RequestContext, kind: RuleKind, policyId: string, ruleId: string, alias = false): Promise<void> {
    await this.write(ctx, policyId, async (tx, record) => {
      const rule = this.findRule(record, kind, ruleId);
      this.deps.authz.enforceDelete(ctx, this.policySpec(kind, alias), this.target(record, ruleView(kind, rule)));
      await tx.deleteFrom('qos_rules').where('id', '=', ruleId).execute();
      return undefined;
    });
  }

  /**
   * One rule write in one transaction: the policy must be visible (QosPolicyNotFound), then
   * `change` writes; the policy's revision goes up and the drivers hear of its new rules.
   */
  private async write<T>(
    ctx: RequestContext,
    policyId: string,
    change: (tx: Tx, record: QosPolicyRecord) => Promise<T>,
  ): Promise<T> {
    const { deps } = this;
    return writeTransaction(deps, async (tx) => {
      await deps.store.lockKey(tx, `qos_policy:${policyId}`);
      const record = await this.policies.getVisible(tx, ctx, policyId);
      const result = await change(tx, record);
      await tx
        .updateTable('qos_policies')
        .set({ revision_number: record.row.revision_number + 1, updated_at: timestamp() })
        .where('id', '=', policyId)
        .execute();
      const after = (await getQosPolicyRecord(tx, policyId))!;
      const event: ResourceContext = {
        resource: 'qos_policy',
        operation: 'update',
        request: ctx,
        current: { id: policyId, revision_number: after.row.revision_number, rules: after.rules.map(qosRuleState) },
      };
      return { result, events: [event] };
    });
  }

  // -------------------------------------------------------------------------------------------
  // Rule types

  /**
   * `get_rule_types`: the types the loaded driver supports (every type octonet serves), or with
   * `all_rules` every type Neutron implements (`qos-rule-type-filter`), each judged by `get_rule_type`.
   */
  listRuleTypes(ctx: RequestContext, allRules: boolean): View[] {
    const types = allRules ? ALL_RULE_TYPES : RULE_KINDS.map((k) => k.type);
    return types.map((type) => ({ type })).filter((v) => this.deps.authz.canRead(ctx, 'rule_type', v));
  }

  /** `get_rule_type`: admins only (the plugin's own check), with the driver's parameters. */
  showRuleType(ctx: RequestContext, type: string): View {
    if (!ctx.isAdmin) throw NotAuthorized({});
    const parameters = SUPPORTED_PARAMETERS[type];
    if (!parameters) throw HTTPNotFound();
    return { type, drivers: [{ name: 'ovn', supported_parameters: parameters }] };
  }
}
