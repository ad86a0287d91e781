/**
 * The policy engine: evaluates `policy-rules.ts` the way Neutron's `neutron/policy.py` does.
 *
 * Writes check `<action>_<res>` AND one `<action>_<res>:<attr>` rule per attribute the request
 * sets explicitly (with `enforce_policy`), and a refusal names that whole tree. Reads drop the
 * attributes whose `get_<res>:<attr>` rule fails. Nothing here knows about the database: targets
 * arrive complete from core.
 */
import type { AttributeSpec, ResourceSpec } from '../core/attributes.js';
import type { Authorizer, PolicyTarget } from '../core/authorizer.js';
import type { RequestContext } from '../core/context.js';
import { HTTPNotFound, PolicyNotAuthorized } from '../core/errors.js';
import { isPlainObject, jsonEqual } from '../core/validators.js';
import { BASE_RULES, type PolicyRuleSet } from './policy-file.js';
import { evaluatePolicy, type PolicyEvaluation } from './policy-language.js';
import { DEFAULT, POLICY_RULES, type Check } from './policy-rules.js';

/** Where operator overrides come from (`policy-file.ts`); read on every check, so a reload applies at once. */
export interface PolicyOverrideSource {
  rules(): PolicyRuleSet;
}

/** A `rule:` chain deeper than this is a loop (`a: rule:b`, `b: rule:a`) and denies. */
const MAX_RULE_DEPTH = 32;

/** oslo's credentials: what a GenericCheck's left side (`project_id:`, `user_id:`, ...) reads. */
function credentialsOf(ctx: RequestContext): PolicyEvaluation['creds'] {
  return {
    roles: ctx.roles,
    project_id: ctx.projectId,
    tenant_id: ctx.projectId,
    user_id: ctx.userId,
    project_name: ctx.projectName,
    is_admin: ctx.isAdmin,
  };
}

/** Neutron's targets carry `tenant_id` beside `project_id` (and `network:tenant_id` ...); octonet's the latter only. */
function withTenantAliases(target: PolicyTarget): PolicyTarget {
  const aliased: Record<string, unknown> = { ...target };
  for (const [key, value] of Object.entries(target)) {
    if (!key.endsWith('project_id')) continue;
    const alias = key.slice(0, -'project_id'.length) + 'tenant_id';
    if (!(alias in aliased)) aliased[alias] = value;
  }
  return aliased;
}

/**
 * The check a rule name stands for: the operator's override when there is one, else octonet's
 * default, else (for `rule:` references) Neutron's base rules; a name nothing defines is checked
 * against the `default` rule at the top level and denies as a reference, as in oslo.policy.
 */
function createRuleResolver(overrides: PolicyOverrideSource | undefined): {
  ruleFor(name: string): Check;
  overridden(name: string): boolean;
} {
  const evaluateNamed = (
    rules: PolicyRuleSet | undefined,
    name: string,
    ctx: RequestContext,
    target: PolicyTarget,
    depth: number,
  ): boolean => {
    if (depth > MAX_RULE_DEPTH) return false;
    const override = rules?.get(name);
    const builtin = POLICY_RULES[name];
    if (!override && builtin) return builtin(ctx, target);
    const node = override ?? BASE_RULES.get(name);
    if (!node) return false;
    return evaluatePolicy(node, {
      creds: credentialsOf(ctx),
      target: withTenantAliases(target),
      rule: (other) => evaluateNamed(rules, other, ctx, target, depth + 1),
    });
  };
  return {
    ruleFor(name: string): Check {
      return (ctx, target) => {
        const rules = overrides?.rules();
        if (rules?.has(name) || POLICY_RULES[name]) return evaluateNamed(rules, name, ctx, target, 0);
        if (rules?.has('default')) return evaluateNamed(rules, 'default', ctx, target, 0);
        return DEFAULT(ctx, target);
      };
    },
    overridden: (name) => overrides?.rules().has(name) ?? false,
  };
}

/** Whether octonet itself defines a rule of that name (for warnings about references to nothing). */
export function isKnownRule(name: string): boolean {
  return name in POLICY_RULES || BASE_RULES.has(name);
}

/** A node of the rule tree, printed as oslo.policy prints it. */
type RuleTree = { rule: string } | { and: RuleTree[] };

function printTree(tree: RuleTree): string {
  return 'rule' in tree ? `rule:${tree.rule}` : `(${tree.and.map(printTree).join(' and ')})`;
}

/**
 * Sub-rules (`_build_subattr_match_rule`): for a list of dicts (`fixed_ips:ip_address`) one per key
 * per element; for a dict (`external_gateway_info:enable_snat`) one per key it sets, in the
 * validator's order.
 */
function subAttributeRules(ruleName: string, attr: AttributeSpec, value: unknown): RuleTree | undefined {
  if (Array.isArray(attr.policySubKeys)) {
    if (!isPlainObject(value)) return undefined;
    const keys = attr.policySubKeys.filter((key) => key in value);
    return keys.length ? { and: keys.map((key) => ({ rule: `${ruleName}:${key}` })) } : undefined;
  }
  if (!attr.policySubKeys || !Array.isArray(value)) return undefined;
  const rules: RuleTree[] = [];
  for (const item of value) {
    if (isPlainObject(item)) for (const key of Object.keys(item)) rules.push({ rule: `${ruleName}:${key}` });
  }
  return rules.length ? { and: rules } : undefined;
}

/** `_build_match_rule`: the action, AND-ed left-deep with each explicitly set attribute's rule. */
function buildWriteRule(
  action: string,
  spec: ResourceSpec,
  attributes: Readonly<Record<string, unknown>>,
  isExplicit: (name: string, attr: AttributeSpec, value: unknown) => boolean,
): RuleTree {
  let tree: RuleTree = { rule: action };
  for (const [name, attr] of Object.entries(spec.attributes)) {
    if (!attr.enforcePolicy || !(name in attributes)) continue;
    const value = attributes[name];
    if (!isExplicit(name, attr, value)) continue;
    let attrTree: RuleTree = { rule: `${action}:${name}` };
    const sub = subAttributeRules(`${action}:${name}`, attr, value);
    if (sub) attrTree = { and: [attrTree, sub] };
    tree = { and: [tree, attrTree] };
  }
  return tree;
}

/** On POST an attribute counts when it differs from its default (`_is_attribute_explicitly_set`). */
function explicitOnCreate(_name: string, attr: AttributeSpec, value: unknown): boolean {
  return !('default' in attr) || !jsonEqual(value, attr.default);
}

/** `get_<resource>:<attribute>` by resource and attribute, built once: every shown item asks for them. */
const READ_RULE_NAMES = new Map<string, Map<string, string>>();
function readRuleNames(resource: string): Map<string, string> {
  let names = READ_RULE_NAMES.get(resource);
  if (!names) READ_RULE_NAMES.set(resource, (names = new Map()));
  return names;
}

export function createPolicyAuthorizer(overrides?: PolicyOverrideSource): Authorizer & {
  readableAttributes(
    ctx: RequestContext,
    resource: string,
    sample: PolicyTarget,
    attributes: readonly string[],
  ): Set<string>;
} {
  const { ruleFor, overridden } = createRuleResolver(overrides);
  const evaluate = (tree: RuleTree, ctx: RequestContext, target: PolicyTarget): boolean =>
    'rule' in tree ? ruleFor(tree.rule)(ctx, target) : tree.and.every((t) => evaluate(t, ctx, target));
  const deny = (tree: RuleTree) => PolicyNotAuthorized({ rule: printTree(tree) });

  const authorizer = {
    enforceCreate(ctx: RequestContext, spec: ResourceSpec, target: PolicyTarget) {
      const tree = buildWriteRule(`create_${spec.name}`, spec, target, explicitOnCreate);
      if (!evaluate(tree, ctx, target)) throw deny(tree);
    },
    enforceUpdate(
      ctx: RequestContext,
      spec: ResourceSpec,
      target: PolicyTarget,
      body: Readonly<Record<string, unknown>>,
    ) {
      const tree = buildWriteRule(`update_${spec.name}`, spec, body, () => true);
      if (evaluate(tree, ctx, target)) return;
      if (!ruleFor(`get_${spec.name}`)(ctx, target)) throw HTTPNotFound();
      throw deny(tree);
    },
    enforceDelete(ctx: RequestContext, spec: ResourceSpec, target: PolicyTarget) {
      const tree: RuleTree = { rule: `delete_${spec.name}` };
      if (evaluate(tree, ctx, target)) return;
      if (!ruleFor(`get_${spec.name}`)(ctx, target)) throw HTTPNotFound();
      throw deny(tree);
    },
    enforceRule(ctx: RequestContext, action: string, target: PolicyTarget) {
      if (!ruleFor(action)(ctx, target)) throw deny({ rule: action });
    },
    canRead(ctx: RequestContext, resource: string, target: PolicyTarget) {
      return ruleFor(`get_${resource}`)(ctx, target);
    },
    allows(ctx: RequestContext, action: string, target: PolicyTarget) {
      return ruleFor(action)(ctx, target);
    },
    /**
     * The attributes of `resource` the caller may see, judged on one sample item as Neutron does
     * for a whole list. Attributes without a `get_<res>:<attr>` rule are always readable.
     */
    readableAttributes(ctx: RequestContext, resource: string, sample: PolicyTarget, attributes: readonly string[]) {
      const readable = new Set<string>();
      const rules = readRuleNames(resource);
      for (const name of attributes) {
        let rule = rules.get(name);
        if (rule === undefined) rules.set(name, (rule = `get_${resource}:${name}`));
        if ((!POLICY_RULES[rule] && !overridden(rule)) || ruleFor(rule)(ctx, sample)) readable.add(name);
      }
      return readable;
    },
  };
  return authorizer;
}

export type PolicyAuthorizer = ReturnType<typeof createPolicyAuthorizer>;
