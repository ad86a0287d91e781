/**
 * The management-network reconcile: level-triggered and idempotent. Each pass reads everything the
 * spec owns (one list per collection, by owner tag), runs the checks that need the cloud, and only
 * then writes what differs, in dependency order: networks, subnets, security groups and their rules
 * (full diff), the link router, the per-node ports; ports of nodes that left are deleted. A pass
 * over a converged cloud reports every object `unchanged` and writes nothing.
 *
 * Entry points (the shared contract): `applySpec`, `deleteSpec`, `readStatus`. Deletion lives in
 * `cleanup.ts`; what the spec wants in `desired.ts`; ownership rules in `ownership.ts`.
 */
import { collectDeletions, deleteObjects } from './cleanup.js';
import {
  controllerCidrs,
  controllerNetworkRole,
  describeRule,
  desiredNetworks,
  desiredSecurityGroups,
  desiredSubnets,
  linkGatewayIp,
  routerAddress,
  ruleKey,
  type DesiredRule,
  type DesiredSubnet,
} from './desired.js';
import type { Collection, NeutronClient, NeutronObject } from './neutron-client.js';
import { NeutronApiError } from './neutron-client.js';
import {
  controllerListChanged,
  octaviaOptions,
  type ControllerAddress,
  type OctaviaOptions,
} from './octavia-config.js';
import { hasTags, lookAlikes, nodeOf, ownedTags, roleOf, type Role } from './ownership.js';
import { preflight } from './preflight.js';
import {
  cidrContains,
  HEALTH_MGR_DEVICE_OWNER,
  nodeDeviceId,
  nodePortName,
  SpecError,
  type MgmtNetSpec,
} from './spec.js';
import { condition, mergeConditions, readyCondition, type Condition, type ConditionInput } from './status.js';

export type Action = 'created' | 'updated' | 'unchanged' | 'adopted' | 'deleted' | 'orphaned';
export type ObjectKind =
  'network' | 'subnet' | 'security_group' | 'security_group_rule' | 'router' | 'router_interface' | 'port';

export interface ObjectReport {
  readonly kind: ObjectKind;
  readonly name: string;
  readonly id: string;
  readonly action: Action;
  /** What changed, or why (attribute names for `updated`). */
  readonly detail?: string;
}

export interface NodeReport {
  readonly name: string;
  readonly portId: string | null;
  readonly mac: string | null;
  readonly fixedIps: readonly string[];
  /** `binding:host_id` as Neutron has it (empty until the core or the node agent sets it). */
  readonly chassis: string | null;
  /** Neutron's port status (`ACTIVE` once the node agent plugged it and OVN bound it). */
  readonly status: string;
  /** Routes the node's interface needs besides its own subnet (link-router: the amphora CIDRs). */
  readonly routes: readonly { destination: string; nexthop: string }[];
  /** The controllers' network MTU (the node agent applies it to the interface). */
  readonly mtu: number | null;
}

export interface MgmtNetIds {
  network?: string;
  subnets: Record<string, string>;
  providerNetwork?: string;
  amphoraSecurityGroup?: string;
  healthManagerSecurityGroup?: string;
  router?: string;
  routerPort?: string;
}

export interface MgmtNetStatus {
  observedGeneration?: number;
  conditions: Condition[];
  ids: MgmtNetIds;
  nodes: NodeReport[];
  octavia: OctaviaOptions;
}

export interface ApplyReport {
  readonly objects: ObjectReport[];
  readonly status: MgmtNetStatus;
  readonly nodes: NodeReport[];
  readonly octavia: OctaviaOptions;
  readonly controllerListChanged: boolean;
  /** Neutron calls made by this pass. */
  readonly calls: { reads: number; writes: number };
  /** The error that stopped the pass, if one did (also in the conditions). */
  readonly error?: string;
}

export interface ApplyOptions {
  /** Structured log lines (adoptions, orphans, notes). Never receives secrets. */
  readonly log?: (message: string, fields?: Record<string, unknown>) => void;
  /** The status of the previous pass: stored IDs, condition times, the last controller list. */
  readonly previous?: MgmtNetStatus;
  readonly now?: () => Date;
}

/** Everything the spec owns, read in one list call per collection. */
export interface Observed {
  networks: NeutronObject[];
  subnets: NeutronObject[];
  securityGroups: NeutronObject[];
  rules: NeutronObject[];
  routers: NeutronObject[];
  ports: NeutronObject[];
}

export async function observe(spec: MgmtNetSpec, client: NeutronClient): Promise<Observed> {
  const tag = { tags: `octonet-mgmt-net:${spec.metadata.name}` };
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
class StepFailed extends Error {
  constructor(
    readonly step: string,
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

function sameValue(a: unknown, b: unknown): boolean {
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

const KIND_OF: Record<Collection, ObjectKind> = {
  networks: 'network',
  subnets: 'subnet',
  'security-groups': 'security_group',
  'security-group-rules': 'security_group_rule',
  routers: 'router',
  ports: 'port',
  agents: 'network',
};

/** One pass's state: what was observed, what it did, the IDs it knows. */
class Pass {
  readonly objects: ObjectReport[] = [];
  readonly ids: MgmtNetIds = { subnets: {} };
  /** Untagged objects to adopt, found in the read phase: role(+node) → object. */
  readonly adoptable = new Map<string, NeutronObject>();
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

function adoptKey(role: Role, node?: string): string {
  return node === undefined ? role : `${role}:${node}`;
}

/** Read phase: untagged objects with our names, refused (or noted for adoption) before any write. */
async function findLookAlikes(pass: Pass): Promise<void> {
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

async function ensureNetworks(pass: Pass): Promise<Map<string, NeutronObject>> {
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

async function ensureSubnets(pass: Pass, networks: Map<string, NeutronObject>): Promise<Map<string, NeutronObject>> {
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

async function ensureSecurityGroups(pass: Pass): Promise<Map<string, NeutronObject>> {
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

async function ensureRouter(
  pass: Pass,
  networks: Map<string, NeutronObject>,
  subnets: Map<string, NeutronObject>,
): Promise<void> {
  const s = pass.spec.spec;
  const provider = networks.get('provider-net')!;
  const providerSubnet = subnets.get('provider-subnet')!;
  const gateway = {
    network_id: provider.id,
    enable_snat: false,
    external_fixed_ips: [{ subnet_id: providerSubnet.id, ip_address: linkGatewayIp(pass.spec) }],
  };
  const current = pass.candidates('routers', 'router')[0] ?? pass.adoptable.get('router');
  // Compare the gateway by what matters; Neutron adds fields (external_fixed_ips of other subnets, qos).
  const gatewayMatches =
    current?.external_gateway_info?.network_id === gateway.network_id &&
    current?.external_gateway_info?.enable_snat === false &&
    sameValue(
      (current?.external_gateway_info?.external_fixed_ips ?? []).map((f: { ip_address: string }) => f.ip_address),
      [linkGatewayIp(pass.spec)],
    );
  const router = await pass.ensure({
    collection: 'routers',
    observed: 'routers',
    role: 'router',
    attributes: {
      name: s.linkRouter.routerName,
      description: `Octavia link router, SNAT off (octonet mgmt-net ${pass.spec.metadata.name})`,
      admin_state_up: true,
      ...(current && gatewayMatches ? {} : { external_gateway_info: gateway }),
    },
    createOnly: { external_gateway_info: gateway },
    step: 'RouterReady',
  });
  pass.ids.router = router.id;
  const tenantRole = subnets.has('mgmt-subnet-v4') ? 'mgmt-subnet-v4' : 'mgmt-subnet-v6';
  const tenantSubnet = subnets.get(tenantRole)!;
  const address = routerAddress(String(tenantSubnet.cidr));
  const port = await pass.ensure({
    collection: 'ports',
    observed: 'ports',
    role: 'router-port',
    attributes: { name: s.linkRouter.routerPortName },
    fixed: { network_id: networks.get('mgmt-net')!.id },
    createOnly: { fixed_ips: [{ subnet_id: tenantSubnet.id, ip_address: address }] },
    step: 'RouterReady',
  });
  pass.ids.routerPort = port.id;
  if (port.device_id !== router.id) {
    await pass.client.addRouterInterface(router.id, { port_id: port.id });
    pass.objects.push({ kind: 'router_interface', name: `${router.name} ${address}`, id: port.id, action: 'created' });
  } else {
    pass.objects.push({
      kind: 'router_interface',
      name: `${router.name} ${address}`,
      id: port.id,
      action: 'unchanged',
    });
  }
}

/** Each node's port: created when missing, kept in line; addresses pinned only when the spec pins them. */
async function ensureNodePorts(
  pass: Pass,
  networks: Map<string, NeutronObject>,
  subnets: Map<string, NeutronObject>,
  groups: Map<string, NeutronObject>,
): Promise<NeutronObject[]> {
  const spec = pass.spec;
  const netRole = controllerNetworkRole(spec);
  const network = networks.get(netRole)!;
  const controllerSubnets: NeutronObject[] = desiredSubnets(spec)
    .filter((d: DesiredSubnet) => d.network === netRole)
    .map((d) => subnets.get(d.role)!);
  const ports: NeutronObject[] = [];
  for (const node of spec.spec.nodes) {
    const existing = pass.candidates('ports', 'hm-port', node.name)[0];
    const wantedIps = controllerSubnets.map((subnet) => {
      const pinned = node.fixedIps?.find((ip) => cidrContains(String(subnet.cidr), ip));
      const current = (existing?.fixed_ips ?? []).find((f: { subnet_id: string }) => f.subnet_id === subnet.id);
      return pinned
        ? { subnet_id: subnet.id, ip_address: pinned }
        : current
          ? { subnet_id: subnet.id, ip_address: current.ip_address }
          : { subnet_id: subnet.id };
    });
    const ipsMatch =
      existing !== undefined &&
      sameValue(
        (existing.fixed_ips ?? []).map(
          (f: { subnet_id: string; ip_address: string }) => `${f.subnet_id}/${f.ip_address}`,
        ),
        wantedIps.map((f) => `${f.subnet_id}/${'ip_address' in f ? f.ip_address : '?'}`),
      );
    const port = await pass.ensure({
      collection: 'ports',
      observed: 'ports',
      role: 'hm-port',
      node: node.name,
      attributes: {
        name: nodePortName(node.name),
        device_owner: HEALTH_MGR_DEVICE_OWNER,
        device_id: nodeDeviceId(spec, node.name),
        security_groups: [groups.get('health-sg')!.id],
        admin_state_up: true,
        ...(node.chassis !== undefined ? { 'binding:host_id': node.chassis } : {}),
        ...(existing && !ipsMatch ? { fixed_ips: wantedIps } : {}),
      },
      fixed: { network_id: network.id },
      createOnly: { fixed_ips: wantedIps },
      step: 'PortsReady',
    });
    ports.push(port);
  }
  return ports;
}

function nodeReports(
  spec: MgmtNetSpec,
  ports: readonly NeutronObject[],
  networks: Map<string, NeutronObject>,
): NodeReport[] {
  const mtu = networks.get(controllerNetworkRole(spec))?.mtu ?? null;
  const routes =
    spec.spec.topology === 'link-router'
      ? spec.spec.network.cidrs.map((destination) => ({ destination, nexthop: linkGatewayIp(spec) }))
      : [];
  return spec.spec.nodes.map((node) => {
    const port = ports.find((p) => nodeOf(p) === node.name);
    return {
      name: node.name,
      portId: port?.id ?? null,
      mac: port?.mac_address ?? null,
      fixedIps: (port?.fixed_ips ?? []).map((f: { ip_address: string }) => f.ip_address),
      chassis: port?.['binding:host_id'] || null,
      status: port?.status ?? 'MISSING',
      routes,
      mtu,
    };
  });
}

function controllersOf(nodes: readonly NodeReport[]): ControllerAddress[] {
  return nodes.filter((n) => n.fixedIps.length > 0).map((n) => ({ node: n.name, addresses: n.fixedIps }));
}

const STEPS = ['NetworkReady', 'SecurityGroupsReady', 'RouterReady', 'PortsReady'] as const;

export async function applySpec(
  spec: MgmtNetSpec,
  client: NeutronClient,
  options: ApplyOptions = {},
): Promise<ApplyReport> {
  const before = { ...client.calls };
  const now = options.now?.() ?? new Date();
  const observed = await observe(spec, client);
  const pass = new Pass(spec, client, observed, options);
  // Checks that need the cloud come before the first write; a SpecError leaves nothing behind.
  const checked = await preflight(spec, client);
  pass.projectId = checked.projectId;
  for (const note of checked.notes) pass.log(note);
  await findLookAlikes(pass);

  const reached = new Map<string, ConditionInput>();
  let error: string | undefined;
  let networks = new Map<string, NeutronObject>();
  let ports: NeutronObject[] = [];
  let step: string = 'NetworkReady';
  try {
    networks = await ensureNetworks(pass);
    const subnets = await ensureSubnets(pass, networks);
    reached.set(
      'NetworkReady',
      condition(
        'NetworkReady',
        true,
        'Reconciled',
        `network ${pass.ids.network} with ${Object.keys(pass.ids.subnets).length} subnet(s)`,
      ),
    );
    step = 'SecurityGroupsReady';
    const groups = await ensureSecurityGroups(pass);
    reached.set(
      'SecurityGroupsReady',
      condition('SecurityGroupsReady', true, 'Reconciled', 'both groups and their rules match the spec'),
    );
    step = 'RouterReady';
    if (spec.spec.topology === 'link-router') {
      await ensureRouter(pass, networks, subnets);
      reached.set('RouterReady', condition('RouterReady', true, 'Reconciled', `router ${pass.ids.router}, SNAT off`));
    }
    step = 'PortsReady';
    ports = await ensureNodePorts(pass, networks, subnets, groups);
    const stale = collectDeletions(spec, observed, {
      keepNodes: new Set(spec.spec.nodes.map((n) => n.name)),
      keepRoles: wantedRoles(spec),
    });
    const deleted = await deleteObjects(pass.client, spec, stale, (m, f) => pass.log(m, f));
    pass.objects.push(...deleted);
    reached.set('PortsReady', condition('PortsReady', true, 'Reconciled', `${ports.length} node port(s)`));
  } catch (failure) {
    if (failure instanceof SpecError) throw failure;
    const reason =
      failure instanceof StepFailed ? failure.reason : failure instanceof NeutronApiError ? failure.type : 'Error';
    error = failure instanceof NeutronApiError ? failure.describe() : (failure as Error).message;
    const failedStep = failure instanceof StepFailed ? failure.step : step;
    reached.set(failedStep, condition(failedStep, false, reason, error));
  }
  const nodes = nodeReports(spec, ports, networks);
  const conditions: ConditionInput[] = STEPS.filter(
    (s) => s !== 'RouterReady' || spec.spec.topology === 'link-router',
  ).map(
    (s) => reached.get(s) ?? { type: s, status: 'Unknown', reason: 'NotReached', message: 'an earlier step failed' },
  );
  const unbound = nodes.filter((n) => n.status !== 'ACTIVE');
  const bound: ConditionInput =
    unbound.length === 0
      ? condition('PortsBound', true, 'AllActive', 'every node port is ACTIVE')
      : condition(
          'PortsBound',
          false,
          'WaitingForNodeAgent',
          `not ACTIVE yet: ${unbound.map((n) => `${n.name} (${n.status})`).join(', ')}`,
        );
  const octavia = octaviaOptions({
    controllers: controllersOf(nodes),
    bindPort: spec.spec.securityGroups.healthManagerPort,
    mgmtNetworkId: pass.ids.network,
    amphoraSecurityGroupId: pass.ids.amphoraSecurityGroup,
    denylist: [pass.ids.network, pass.ids.providerNetwork],
  });
  const status: MgmtNetStatus = {
    ...(spec.metadata.generation !== undefined ? { observedGeneration: spec.metadata.generation } : {}),
    conditions: mergeConditions(
      options.previous?.conditions,
      [readyCondition(conditions), ...conditions, bound],
      now,
      spec.metadata.generation,
    ),
    ids: pass.ids,
    nodes,
    octavia,
  };
  return {
    objects: pass.objects,
    status,
    nodes,
    octavia,
    controllerListChanged: controllerListChanged(
      options.previous?.octavia.health_manager.controller_ip_port_list,
      octavia.health_manager.controller_ip_port_list,
    ),
    calls: { reads: client.calls.reads - before.reads, writes: client.calls.writes - before.writes },
    ...(error !== undefined ? { error } : {}),
  };
}

function wantedRoles(spec: MgmtNetSpec): Set<Role> {
  const roles = new Set<Role>(['amphora-sg', 'health-sg', 'hm-port']);
  for (const n of desiredNetworks(spec)) roles.add(n.role);
  for (const s of desiredSubnets(spec)) roles.add(s.role);
  if (spec.spec.topology === 'link-router') {
    roles.add('router');
    roles.add('router-port');
  }
  return roles;
}

export interface DeleteReport {
  readonly objects: ObjectReport[];
  readonly calls: { reads: number; writes: number };
}

/** Removes everything the spec owns, in reverse order; what is still in use is orphaned. */
export async function deleteSpec(
  spec: MgmtNetSpec,
  client: NeutronClient,
  options: ApplyOptions = {},
): Promise<DeleteReport> {
  const before = { ...client.calls };
  const observed = await observe(spec, client);
  const all = collectDeletions(spec, observed, { keepNodes: new Set(), keepRoles: new Set() });
  const objects = await deleteObjects(client, spec, all, (m, f) =>
    options.log?.(m, { mgmtNet: spec.metadata.name, ...f }),
  );
  return { objects, calls: { reads: client.calls.reads - before.reads, writes: client.calls.writes - before.writes } };
}

/** The status as Neutron has it now, without writing anything. */
export async function readStatus(
  spec: MgmtNetSpec,
  client: NeutronClient,
  options: ApplyOptions = {},
): Promise<MgmtNetStatus> {
  const observed = await observe(spec, client);
  const networks = new Map<string, NeutronObject>();
  for (const n of observed.networks) networks.set(roleOf(n) ?? '', n);
  const ids: MgmtNetIds = { subnets: {} };
  const byRole = (list: NeutronObject[], role: Role) => list.find((o) => roleOf(o) === role)?.id;
  ids.network = byRole(observed.networks, 'mgmt-net');
  ids.providerNetwork = byRole(observed.networks, 'provider-net');
  ids.amphoraSecurityGroup = byRole(observed.securityGroups, 'amphora-sg');
  ids.healthManagerSecurityGroup = byRole(observed.securityGroups, 'health-sg');
  ids.router = byRole(observed.routers, 'router');
  ids.routerPort = byRole(observed.ports, 'router-port');
  for (const s of observed.subnets) ids.subnets[roleOf(s) ?? s.id] = s.id;
  const nodes = nodeReports(
    spec,
    observed.ports.filter((p) => roleOf(p) === 'hm-port'),
    networks,
  );
  const missing = (what: string, present: boolean) =>
    condition(what, present, present ? 'Present' : 'Missing', present ? 'present in Neutron' : 'not found (run apply)');
  const parts: ConditionInput[] = [
    missing(
      'NetworkReady',
      ids.network !== undefined && Object.keys(ids.subnets).length >= spec.spec.network.cidrs.length,
    ),
    missing(
      'SecurityGroupsReady',
      ids.amphoraSecurityGroup !== undefined && ids.healthManagerSecurityGroup !== undefined,
    ),
    ...(spec.spec.topology === 'link-router' ? [missing('RouterReady', ids.router !== undefined)] : []),
    missing(
      'PortsReady',
      nodes.every((n) => n.portId !== null),
    ),
  ];
  const unbound = nodes.filter((n) => n.status !== 'ACTIVE');
  const bound =
    unbound.length === 0
      ? condition('PortsBound', true, 'AllActive', 'every node port is ACTIVE')
      : condition(
          'PortsBound',
          false,
          'WaitingForNodeAgent',
          `not ACTIVE yet: ${unbound.map((n) => `${n.name} (${n.status})`).join(', ')}`,
        );
  const octavia = octaviaOptions({
    controllers: controllersOf(nodes),
    bindPort: spec.spec.securityGroups.healthManagerPort,
    mgmtNetworkId: ids.network,
    amphoraSecurityGroupId: ids.amphoraSecurityGroup,
    denylist: [ids.network, ids.providerNetwork],
  });
  return {
    ...(spec.metadata.generation !== undefined ? { observedGeneration: spec.metadata.generation } : {}),
    conditions: mergeConditions(
      options.previous?.conditions,
      [readyCondition(parts), ...parts, bound],
      options.now?.() ?? new Date(),
      spec.metadata.generation,
    ),
    ids,
    nodes,
    octavia,
  };
}

export { controllerCidrs };
