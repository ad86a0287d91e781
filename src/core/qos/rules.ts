/**
 * The QoS rule types octonet serves (ML2/OVN's: bandwidth limit, DSCP marking, minimum bandwidth):
 * their attribute maps, how each is stored in `qos_rules` and shown, and Neutron's checks of a
 * new or changed rule against the policy's others (`qos_policy_validator.py`). Pure: no I/O.
 */
import type { ResourceSpec } from '../attributes.js';
import type { QosRuleState } from '../../drivers/host.js';
import type { QosRuleTable } from '../../store/schema.js';
import type { View } from '../resource.js';
import type { QosRuleBody } from './body.js';
import { BANDWIDTH_LIMIT_RULE_SPEC, DSCP_MARKING_RULE_SPEC, MINIMUM_BANDWIDTH_RULE_SPEC } from './attributes.js';
import { QoSRuleParameterConflict, QoSRulesConflict } from './errors.js';

export type RuleType = 'bandwidth_limit' | 'dscp_marking' | 'minimum_bandwidth';
type RuleColumn = 'max_kbps' | 'max_burst_kbps' | 'dscp_mark' | 'min_kbps' | 'direction';

export interface RuleKind {
  readonly type: RuleType;
  /** The sub-resource's attribute map (`bandwidth_limit_rule`, under `/qos/policies/<id>/`). */
  readonly spec: ResourceSpec;
  /** The map of the `qos-rules-alias` URL (`/qos/alias_bandwidth_limit_rules/<id>`). */
  readonly aliasSpec: ResourceSpec;
  /** The attributes of the type, in Neutron's order (its object's fields). */
  readonly columns: readonly RuleColumn[];
}

const kind = (type: RuleType, spec: ResourceSpec, columns: readonly RuleColumn[]): RuleKind => ({
  type,
  spec,
  aliasSpec: {
    ...spec,
    name: `alias_${spec.name}`,
    collection: `alias_${spec.collection}`,
    path: `qos/alias_${spec.path}`,
  },
  columns,
});

export const RULE_KINDS: readonly RuleKind[] = [
  kind('bandwidth_limit', BANDWIDTH_LIMIT_RULE_SPEC, ['max_kbps', 'max_burst_kbps', 'direction']),
  kind('dscp_marking', DSCP_MARKING_RULE_SPEC, ['dscp_mark']),
  kind('minimum_bandwidth', MINIMUM_BANDWIDTH_RULE_SPEC, ['min_kbps', 'direction']),
];

export function ruleKindOf(type: string): RuleKind | undefined {
  return RULE_KINDS.find((k) => k.type === type);
}

/** A rule as its own URL shows it: the id and the type's attributes. */
export function ruleView(kind: RuleKind, rule: QosRuleTable): View {
  const view: View = { id: rule.id };
  for (const column of kind.columns) view[column] = rule[column];
  return view;
}

/** A rule inside its policy's `rules`: also its policy and its type (`QosRule.to_dict`). */
export function nestedRuleView(rule: QosRuleTable): View {
  const kind = ruleKindOf(rule.type)!;
  const view: View = { id: rule.id, qos_policy_id: rule.qos_policy_id };
  for (const column of kind.columns) view[column] = rule[column];
  view.type = rule.type;
  return view;
}

/** The stored columns of a new rule, from its prepared body. */
export function ruleColumns(kind: RuleKind, body: QosRuleBody): Pick<QosRuleTable, RuleColumn> {
  const value = (column: Exclude<RuleColumn, 'direction'>) =>
    kind.columns.includes(column) ? (body[column] ?? null) : null;
  return {
    max_kbps: value('max_kbps'),
    max_burst_kbps: value('max_burst_kbps'),
    dscp_mark: value('dscp_mark'),
    min_kbps: value('min_kbps'),
    direction: kind.columns.includes('direction') ? (body.direction ?? '') : '',
  };
}

/**
 * `check_bandwidth_rule_conflict`: a bandwidth limit below a minimum of the policy, or a minimum
 * above a limit, whatever their directions (Neutron compares them so).
 */
export function checkBandwidthConflict(policyId: string, rules: readonly QosRuleTable[], data: QosRuleBody): void {
  for (const rule of rules) {
    if (rule.type === 'minimum_bandwidth' && data.max_kbps !== undefined && rule.min_kbps! > data.max_kbps) {
      throw QoSRuleParameterConflict({
        rule_value: data.max_kbps,
        policy_id: policyId,
        existing_rule: rule.type,
        existing_value: rule.min_kbps,
      });
    }
    if (rule.type === 'bandwidth_limit' && data.min_kbps !== undefined && rule.max_kbps! < data.min_kbps) {
      throw QoSRuleParameterConflict({
        rule_value: data.min_kbps,
        policy_id: policyId,
        existing_rule: rule.type,
        existing_value: rule.max_kbps,
      });
    }
  }
}

/** `check_rules_conflict`: one rule per type and direction in a policy (`QosRule.duplicates`). */
export function checkDuplicate(
  policyId: string,
  rules: readonly QosRuleTable[],
  candidate: Pick<QosRuleTable, 'id' | 'type' | 'direction'>,
): void {
  const twin = rules.find(
    (r) => r.id !== candidate.id && r.type === candidate.type && r.direction === candidate.direction,
  );
  if (twin) throw QoSRulesConflict({ new_rule_type: candidate.type, rule_id: twin.id, policy_id: policyId });
}

/** A stored rule as drivers receive it. */
export function qosRuleState(rule: QosRuleTable): QosRuleState {
  const { id, type, direction, max_kbps, max_burst_kbps, dscp_mark, min_kbps } = rule;
  return { id, type, direction, max_kbps, max_burst_kbps, dscp_mark, min_kbps };
}
