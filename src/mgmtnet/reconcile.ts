/**
 * The management-network reconcile: level-triggered and idempotent. Each pass reads everything the
 * spec owns (one list per collection, by owner tag), runs the checks that need the cloud, and only
 * then writes what differs, in dependency order: networks, subnets, security groups and their rules
 * (full diff), the link router, the per-node ports; ports of nodes that left are deleted. A pass
 * over a converged cloud reports every object `unchanged` and writes nothing.
 *
 * Entry points (the shared contract): `applySpec`, `deleteSpec`, `readStatus`. This module only
 * orders the steps and builds the report and conditions. The rest: what the spec wants
 * (`desired.ts`), ownership and orphaning (`ownership.ts`), the pass and `ensure` (`pass.ts`), the
 * checks before any write (`preflight.ts`), shared steps (`steps.ts`), the link router
 * (`topologies/link-router.ts`), node ports (`node-ports.ts`), deletion (`cleanup.ts`), report shapes
 * (`report.ts`).
 */
import { collectDeletions, deleteObjects } from './cleanup.js';
import { desiredNetworks, desiredSubnets } from './desired.js';
import { NeutronApiError, type NeutronClient, type NeutronObject } from './neutron-client.js';
import { controllerListChanged, octaviaOptions } from './octavia-config.js';
import { roleOf, type Role } from './ownership.js';
import { controllersOf, ensureNodePorts, nodeReports } from './node-ports.js';
import { observe, Pass, StepFailed, type Observed } from './pass.js';
import { preflight } from './preflight.js';
import type { ApplyOptions, ApplyReport, MgmtNetIds, MgmtNetStatus, NodeReport, ObjectReport } from './report.js';
import { SpecError, type MgmtNetSpec } from './spec.js';
import { condition, mergeConditions, networkReady, type ConditionInput } from './conditions.js';
import { ensureNetworks, ensureSecurityGroups, ensureSubnets, findLookAlikes } from './steps.js';
import { ensureRouter } from './topologies/link-router.js';

export type * from './report.js';
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

  const { reached, networks, ports, error } = await ensureAll(pass, observed);
  const nodes = nodeReports(spec, ports, networks);
  const conditions: ConditionInput[] = STEPS.filter(
    (s) => s !== 'RouterReady' || spec.spec.topology === 'link-router',
  ).map(
    (s) => reached.get(s) ?? { type: s, status: 'Unknown', reason: 'NotReached', message: 'an earlier step failed' },
  );
  const bound = portsBound(nodes);
  const octavia = octaviaFor(spec, nodes, pass.ids);
  const status: MgmtNetStatus = {
    ...(spec.metadata.generation !== undefined ? { observedGeneration: spec.metadata.generation } : {}),
    conditions: mergeConditions(
      options.previous?.conditions,
      [networkReady(conditions), ...conditions, bound],
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

interface Ensured {
  /** Each step's condition, once it succeeded or failed (steps not reached are absent). */
  readonly reached: Map<string, ConditionInput>;
  readonly networks: Map<string, NeutronObject>;
  readonly ports: NeutronObject[];
  /** Why the pass stopped, when a step failed. */
  readonly error?: string;
}

/**
 * The writes, in dependency order: networks and subnets, security groups, the link router, the
 * node ports, then what no longer belongs. A failed step stops the pass and names itself.
 */
async function ensureAll(pass: Pass, observed: Observed): Promise<Ensured> {
  const spec = pass.spec;
  const reached = new Map<string, ConditionInput>();
  let networks = new Map<string, NeutronObject>();
  let ports: NeutronObject[] = [];
  let step: string = 'NetworkReady';
  try {
    networks = await ensureNetworks(pass);
    const subnets = await ensureSubnets(pass, networks);
    const network = `network ${pass.ids.network} with ${Object.keys(pass.ids.subnets).length} subnet(s)`;
    reached.set('NetworkReady', condition('NetworkReady', true, 'Reconciled', network));
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
    const duplicates = pass.duplicatePorts.map((object) => ({ collection: 'ports' as const, object }));
    const deleted = await deleteObjects(pass.client, spec, [...duplicates, ...stale], (m, f) => pass.log(m, f));
    pass.objects.push(...deleted);
    reached.set('PortsReady', condition('PortsReady', true, 'Reconciled', `${ports.length} node port(s)`));
    return { reached, networks, ports };
  } catch (failure) {
    if (failure instanceof SpecError) throw failure;
    const reason =
      failure instanceof StepFailed ? failure.reason : failure instanceof NeutronApiError ? failure.type : 'Error';
    const error = failure instanceof NeutronApiError ? failure.describe() : (failure as Error).message;
    const failedStep = failure instanceof StepFailed ? failure.step : step;
    reached.set(failedStep, condition(failedStep, false, reason, error));
    return { reached, networks, ports, error };
  }
}

/** `PortsBound`: every node's port ACTIVE, or which are not yet (their node agent binds them). */
function portsBound(nodes: readonly NodeReport[]): ConditionInput {
  const unbound = nodes.filter((n) => n.status !== 'ACTIVE');
  if (unbound.length === 0) return condition('PortsBound', true, 'AllActive', 'every node port is ACTIVE');
  return condition(
    'PortsBound',
    false,
    'WaitingForNodeAgent',
    `not ACTIVE yet: ${unbound.map((n) => `${n.name} (${n.status})`).join(', ')}`,
  );
}

/** The Octavia options for what is in Neutron now (apply and status render the same). */
function octaviaFor(spec: MgmtNetSpec, nodes: readonly NodeReport[], ids: MgmtNetIds) {
  return octaviaOptions({
    controllers: controllersOf(nodes),
    bindPort: spec.spec.securityGroups.healthManagerPort,
    mgmtNetworkId: ids.network,
    amphoraSecurityGroupId: ids.amphoraSecurityGroup,
  });
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
  const bound = portsBound(nodes);
  const octavia = octaviaFor(spec, nodes, ids);
  return {
    ...(spec.metadata.generation !== undefined ? { observedGeneration: spec.metadata.generation } : {}),
    conditions: mergeConditions(
      options.previous?.conditions,
      [networkReady(parts), ...parts, bound],
      options.now?.() ?? new Date(),
      spec.metadata.generation,
    ),
    ids,
    nodes,
    octavia,
  };
}
