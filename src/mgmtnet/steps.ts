/**
 * The reconcile steps every topology shares: the look-alike check of the read phase, networks,
 * subnets, and the two security groups with their rules kept by full diff (missing rules added,
 * rules the spec does not want removed, Neutron's default egress rules kept).
 */
import {
  describeRule,
  desiredNetworks,
  desiredSecurityGroups,
  desiredSubnets,
  ruleKey,
  type DesiredRule,
} from './desired.js';
import type { Collection, NeutronObject } from './neutron-client.js';
import { lookAlikes, type Role } from './ownership.js';
import { adoptKey, KIND_OF, type Observed, type Pass } from './pass.js';
import { SpecError } from './spec.js';

export async function findLookAlikes(pass: Pass): Promise<void> {
  const { spec, client } = pass;
  const wanted: { collection: Collection; observed: keyof Observed; role: Role; name: string; field: string }[] = [];
  for (const n of desiredNetworks(spec)) {
    wanted.push({
      collection: 'networks',
      observed: 'networks',
      role: n.role,
      name: String(n.attributes.name),
      field: n.role === 'mgmt-net' ? 'spec.network.name' : 'spec.linkRouter.networkName',
    });
  }
  for (const g of desiredSecurityGroups(spec)) {
    wanted.push({
      collection: 'security-groups',
      observed: 'securityGroups',
      role: g.role,
      name: g.name,
      field: g.role === 'amphora-sg' ? 'spec.securityGroups.amphoraName' : 'spec.securityGroups.healthManagerName',
    });
  }
  if (spec.spec.topology === 'link-router') {
    wanted.push({
      collection: 'routers',
      observed: 'routers',
      role: 'router',
      name: spec.spec.linkRouter.routerName,
      field: 'spec.linkRouter.routerName',
    });
  }
  for (const w of wanted) {
    if (pass.candidates(w.observed, w.role).length > 0) continue;
    const found = await lookAlikes(
      client,
      w.collection,
      w.name,
      pass.projectId !== undefined ? { project_id: pass.projectId } : {},
    );
    if (found.length === 0) continue;
    if (!spec.spec.adopt) {
      throw new SpecError(
        w.field,
        `an untagged ${KIND_OF[w.collection].replace('_', ' ')} named "${w.name}" already exists (${found.map((f) => f.id).join(', ')}); octonet never touches it unless spec.adopt is true (or choose another name)`,
      );
    }
    if (found.length > 1) throw new SpecError(w.field, `several objects are named "${w.name}": adopt is ambiguous`);
    pass.adoptable.set(adoptKey(w.role), found[0]!);
  }
}

export async function ensureNetworks(pass: Pass): Promise<Map<string, NeutronObject>> {
  const networks = new Map<string, NeutronObject>();
  for (const n of desiredNetworks(pass.spec)) {
    const providerKeys = Object.keys(n.attributes).filter((k) => k.startsWith('provider:'));
    const fixed = Object.fromEntries(providerKeys.map((k) => [k, n.attributes[k]]));
    const attributes = Object.fromEntries(Object.entries(n.attributes).filter(([k]) => !k.startsWith('provider:')));
    const object = await pass.ensure({
      collection: 'networks',
      observed: 'networks',
      role: n.role,
      attributes,
      fixed,
      step: 'NetworkReady',
    });
    networks.set(n.role, object);
    if (n.role === 'mgmt-net') pass.ids.network = object.id;
    else pass.ids.providerNetwork = object.id;
  }
  return networks;
}

export async function ensureSubnets(
  pass: Pass,
  networks: Map<string, NeutronObject>,
): Promise<Map<string, NeutronObject>> {
  const subnets = new Map<string, NeutronObject>();
  for (const s of desiredSubnets(pass.spec)) {
    const network = networks.get(s.network)!;
    const object = await pass.ensure({
      collection: 'subnets',
      observed: 'subnets',
      role: s.role,
      attributes: s.attributes,
      fixed: { ...s.fixed, network_id: network.id },
      step: 'NetworkReady',
    });
    subnets.set(s.role, object);
    pass.ids.subnets[s.role] = object.id;
  }
  return subnets;
}

export async function ensureSecurityGroups(pass: Pass): Promise<Map<string, NeutronObject>> {
  const groups = new Map<string, NeutronObject>();
  for (const g of desiredSecurityGroups(pass.spec)) {
    const existed = pass.candidates('securityGroups', g.role)[0];
    const object = await pass.ensure({
      collection: 'security-groups',
      observed: 'securityGroups',
      role: g.role,
      attributes: { name: g.name, description: g.description },
      step: 'SecurityGroupsReady',
    });
    groups.set(g.role, object);
    if (g.role === 'amphora-sg') pass.ids.amphoraSecurityGroup = object.id;
    else pass.ids.healthManagerSecurityGroup = object.id;
    // A new group comes with Neutron's default rules, which the create answer lists.
    const actual: NeutronObject[] =
      existed && existed.id === object.id
        ? pass.observed.rules.filter((r) => r.security_group_id === object.id)
        : (object.security_group_rules ?? []);
    await diffRules(pass, object, g.rules, actual);
  }
  return groups;
}

/** Full diff: missing rules are added, rules the spec does not want are removed. */
async function diffRules(
  pass: Pass,
  group: NeutronObject,
  desired: readonly DesiredRule[],
  actual: readonly NeutronObject[],
): Promise<void> {
  const want = new Map(desired.map((r) => [ruleKey(r), r]));
  const have = new Map<string, NeutronObject>();
  for (const rule of actual) {
    const key = ruleKey(rule);
    if (!want.has(key) || have.has(key)) {
      await pass.client.delete('security-group-rules', rule.id);
      pass.objects.push({ kind: 'security_group_rule', name: `${group.name} ${key}`, id: rule.id, action: 'deleted' });
      continue;
    }
    have.set(key, rule);
  }
  for (const [key, rule] of want) {
    const name = describeRule(String(group.name), rule);
    const existing = have.get(key);
    if (existing) {
      pass.objects.push({ kind: 'security_group_rule', name, id: existing.id, action: 'unchanged' });
      continue;
    }
    const created = await pass.client.create('security-group-rules', {
      ...rule,
      security_group_id: group.id,
      ...pass.projectBody(),
    });
    pass.objects.push({ kind: 'security_group_rule', name, id: created.id, action: 'created' });
  }
}
