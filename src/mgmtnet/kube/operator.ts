/**
 * `octonet operator`: the management-network reconcile driven by Kubernetes. Watches
 * OctaviaManagementNetwork objects in one namespace (and Nodes, for `spec.nodeSelector`, and the
 * per-node port resources, whose status the node agents change), and for each network, level-
 * triggered: resolves its nodes, validates the spec, calls the reconciler's `applySpec` (all Neutron
 * logic is there), writes the rendered ConfigMap, the heartbeat Secret, one OctaviaManagementPort
 * per node, and the status (the reconciler's conditions with observedGeneration). Deletion is held by a
 * finalizer until the reconciler's `deleteSpec` has removed what the network owns in Neutron.
 * A bad spec becomes a `Ready=False, reason InvalidSpec` condition naming the field, and no
 * Neutron call is made. A resync pass runs every `resyncMs` to repair drift made in Neutron.
 * Events on the network say what a pass did: Applied (Neutron or the ConfigMap changed),
 * ControllerListChanged, and Warnings InvalidSpec, NeutronUnavailable, ApplyFailed.
 * Which replica runs this is decided outside (./leader-election.ts): only the leader does.
 */
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { NeutronApiError, type NeutronClient } from '../neutron-client.js';
import { renderConfigMap } from '../octavia-config.js';
import { applySpec, deleteSpec, type MgmtNetStatus } from '../reconcile.js';
import { SpecError, validateSpec, type MgmtNetSpec } from '../spec.js';
import { mergeConditions } from '../conditions.js';
import { isConflict, type KubeClient, type KubeObject } from './client.js';
import { EventRecorder } from './events.js';
import {
  applyConfigMap,
  canonicalJson,
  deletePortResources,
  ensureHeartbeatSecret,
  syncPortResources,
} from './owned-objects.js';
import {
  CONFIGMAPS,
  FINALIZER,
  NETWORKS,
  NODES,
  PORTS,
  configMapName,
  heartbeatSecretName,
  type NetworkObject,
  type NetworkStatus,
  type PortObject,
} from './resources.js';
import { rollWorkloads, type WorkloadRef } from './rollout.js';
import { runWatchLoop } from './watch-loop.js';
import { WorkQueue } from './work-queue.js';

export interface OperatorOptions {
  kube: KubeClient;
  /** The namespace whose networks this operator reconciles (and where it writes ConfigMaps). */
  namespace: string;
  neutron: NeutronClient;
  signal: AbortSignal;
  logger?: Logger;
  /** Every network is reconciled again this often, to repair drift in Neutron. Default 60 s. */
  resyncMs?: number;
  /** First retry delay of a failed reconcile (doubles). Default 1 s. */
  retryDelayMs?: number;
  /** Health manager and worker workloads rolled when the controller list changes (rollout.ts). */
  rollWorkloads?: readonly WorkloadRef[];
  /** This replica's name in Events (reportingInstance). Default: the host name (the pod's). */
  identity?: string;
}

export interface ReconcileContext {
  kube: KubeClient;
  namespace: string;
  neutron: NeutronClient;
  logger?: Logger;
  rollWorkloads?: readonly WorkloadRef[];
  events?: EventRecorder;
}

type WrittenStatus = NetworkStatus;

/**
 * The object spec.ts validates: `spec.nodeSelector` turned into `spec.nodes` (the Node objects
 * whose labels match, not being deleted), as the contract says the adapter does.
 */
async function resolveNodes(kube: KubeClient, network: NetworkObject): Promise<NetworkObject> {
  const selector = network.spec?.nodeSelector as Record<string, string> | undefined;
  if (!selector || typeof selector !== 'object') return network;
  if (network.spec.nodes !== undefined) {
    throw new SpecError('spec.nodeSelector', 'give spec.nodes or spec.nodeSelector, not both');
  }
  const labelSelector = Object.entries(selector)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  const nodes = (await kube.list(NODES, undefined, { labelSelector })).items
    .filter((n) => !n.metadata.deletionTimestamp)
    .map((n) => ({ name: n.metadata.name }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { ...network, spec: { ...network.spec, nodes } };
}

async function writeStatus(ctx: ReconcileContext, network: NetworkObject, status: WrittenStatus): Promise<boolean> {
  if (canonicalJson(network.status ?? {}) === canonicalJson(status)) return false;
  // The whole status is ours: replace it, so keys we no longer write (an old router ID) go. A
  // stale resourceVersion fails with 409 Conflict and the queue looks again.
  await ctx.kube.replaceStatus(NETWORKS, ctx.namespace, { ...network, status });
  return true;
}

function describeError(error: unknown): string {
  if (error instanceof NeutronApiError) return error.describe();
  const cause = (error as { cause?: { message?: string } }).cause?.message;
  return `${(error as Error).message}${cause ? ` (${cause})` : ''}`;
}

/** Ready=False for a reason outside the reconciler's pass; the rest of the last status is kept. */
function failedStatus(network: NetworkObject, reason: string, message: string, extra: string[] = []): WrittenStatus {
  const generation = network.metadata.generation;
  const previous = network.status;
  return {
    ...previous,
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
    conditions: mergeConditions(
      previous?.conditions,
      [
        { type: 'Ready', status: 'False', reason, message },
        ...extra.map((type) => ({ type, status: 'False' as const, reason, message })),
      ],
      new Date(),
      generation,
    ),
  };
}

function invalidStatus(network: NetworkObject, error: SpecError): WrittenStatus {
  return failedStatus(network, 'InvalidSpec', error.message, ['SpecValid']);
}

/** Adds or removes our finalizer with an optimistic-concurrency write; returns the stored object. */
async function setFinalizer(ctx: ReconcileContext, network: NetworkObject, present: boolean): Promise<NetworkObject> {
  const others = (network.metadata.finalizers ?? []).filter((f) => f !== FINALIZER);
  const finalizers = present ? [...others, FINALIZER] : others;
  return ctx.kube.replace<NetworkObject>(NETWORKS, ctx.namespace, {
    ...network,
    metadata: { ...network.metadata, finalizers },
  });
}

/**
 * What the reconciler's cleanup is given. Cleanup finds objects by the owner tag alone (the contract:
 * own only what it tagged), so when the stored spec no longer validates (edited into a bad state,
 * then deleted) a minimal spec with the same name finds the same objects; blocking the deletion
 * on a spec the user is throwing away would only leave them stuck.
 */
function deletionSpec(network: NetworkObject): MgmtNetSpec {
  try {
    // Nodes do not matter for deletion (every tagged port goes); an empty list keeps a
    // nodeSelector spec valid without listing Nodes.
    const selector = network.spec?.nodeSelector !== undefined;
    return validateSpec(selector ? { ...network, spec: { ...network.spec, nodes: [] } } : network);
  } catch (error) {
    if (!(error instanceof SpecError)) throw error;
    return validateSpec({
      apiVersion: network.apiVersion,
      kind: network.kind,
      metadata: { name: network.metadata.name },
      spec: { network: { cidr: '192.0.2.0/24' }, nodes: [] },
    });
  }
}

/**
 * The deletion path: Neutron first (the reconciler's deleteSpec; anything still in use is orphaned and
 * reported), then our Kubernetes objects, then the finalizer. A name the reconciler cannot take (it
 * wants a DNS label) keeps the finalizer, with the reason in the status.
 */
async function finalize(ctx: ReconcileContext, network: NetworkObject): Promise<void> {
  const name = network.metadata.name;
  let spec: MgmtNetSpec;
  try {
    spec = deletionSpec(network);
  } catch (error) {
    if (!(error instanceof SpecError)) throw error;
    await writeStatus(ctx, network, invalidStatus(network, error));
    ctx.logger?.warn({ mgmtNet: name, err: error.message }, 'cannot clean up Neutron');
    return;
  }
  const report = await deleteSpec(spec, ctx.neutron, {
    log: (message, fields) => ctx.logger?.info({ mgmtNet: name, ...fields }, message),
  });
  for (const o of report.objects) ctx.logger?.info({ mgmtNet: name, ...o }, `neutron ${o.kind} ${o.action}`);
  await deletePortResources(ctx.kube, ctx.namespace, name);
  await ctx.kube.delete(CONFIGMAPS, ctx.namespace, configMapName(name));
  await setFinalizer(ctx, network, false);
}

/** One level-triggered pass for the network `name`. */
export async function reconcileNetwork(ctx: ReconcileContext, name: string): Promise<void> {
  let network = await ctx.kube.get<NetworkObject>(NETWORKS, ctx.namespace, name);
  if (!network) return;
  if (network.metadata.deletionTimestamp) {
    if (network.metadata.finalizers?.includes(FINALIZER)) await finalize(ctx, network);
    return;
  }
  if (!network.metadata.finalizers?.includes(FINALIZER)) network = await setFinalizer(ctx, network, true);

  let spec: MgmtNetSpec;
  try {
    spec = validateSpec(await resolveNodes(ctx.kube, network));
  } catch (error) {
    if (!(error instanceof SpecError)) throw error;
    ctx.logger?.warn({ mgmtNet: name, err: error.message }, 'invalid spec; nothing applied');
    await writeStatus(ctx, network, invalidStatus(network, error));
    await ctx.events?.record(network, 'Warning', 'InvalidSpec', error.message);
    return;
  }

  const secretName = spec.spec.heartbeatKey.secretName ?? heartbeatSecretName(name);
  await ensureHeartbeatSecret(ctx.kube, ctx.namespace, network, secretName, spec.spec.heartbeatKey.secretKey);

  const stored = network.status;
  const previous: MgmtNetStatus | undefined =
    stored?.conditions && stored.ids && stored.nodes && stored.octavia
      ? { ...stored, conditions: stored.conditions, ids: stored.ids, nodes: stored.nodes, octavia: stored.octavia }
      : undefined;
  let report;
  try {
    report = await applySpec(spec, ctx.neutron, {
      ...(previous ? { previous } : {}),
      log: (message, fields) => ctx.logger?.info({ mgmtNet: name, ...fields }, message),
    });
  } catch (error) {
    // Preflight (project, chassis…) refuses before the first Neutron write, like validation.
    if (error instanceof SpecError) {
      await writeStatus(ctx, network, invalidStatus(network, error));
      await ctx.events?.record(network, 'Warning', 'InvalidSpec', error.message);
      return;
    }
    // Neutron unreachable or refusing before the pass could start (the reconciler reports failures
    // inside the pass in its conditions): say so on the resource, then let the queue retry.
    await writeStatus(ctx, network, failedStatus(network, 'NeutronUnavailable', describeError(error)));
    await ctx.events?.record(network, 'Warning', 'NeutronUnavailable', describeError(error));
    throw error;
  }
  for (const o of report.objects.filter((x) => x.action !== 'unchanged')) {
    ctx.logger?.info(
      { mgmtNet: name, kind: o.kind, object: o.name, id: o.id, detail: o.detail },
      `neutron ${o.kind} ${o.action}`,
    );
  }

  const active = report.nodes.filter((n) => n.status === 'ACTIVE').length;
  const columns = { topology: spec.spec.topology, nodesReady: `${active}/${report.nodes.length}` };
  if (report.error) {
    // A pass stopped half-way knows only part of the nodes: rendering from it would hand the
    // health managers a shorter (or empty) controller list. Keep the last good ConfigMap and
    // port resources; the conditions say what failed; the queue retries with backoff.
    await writeStatus(ctx, network, { ...report.status, ...columns, configMap: network.status?.configMap });
    await ctx.events?.record(network, 'Warning', 'ApplyFailed', report.error);
    throw new Error(`apply stopped: ${report.error}`);
  }
  const controllers = report.nodes.map((n) => ({ node: n.name, addresses: n.fixedIps }));
  const configMap = renderConfigMap({ name, namespace: ctx.namespace, options: report.octavia, controllers });
  const cmAction = await applyConfigMap(ctx.kube, ctx.namespace, network, configMap);
  const list = report.octavia.health_manager.controller_ip_port_list;
  if (cmAction !== 'unchanged' && report.controllerListChanged && !ctx.rollWorkloads?.length) {
    ctx.logger?.info(
      { mgmtNet: name, controllers: list },
      'controller_ip_port_list changed: roll the health managers and workers (see --roll-workload)',
    );
  }
  // Level-triggered: every pass puts the list on the workloads; only a changed one rolls them.
  for (const r of await rollWorkloads(ctx.kube, ctx.namespace, ctx.rollWorkloads ?? [], name, list)) {
    if (r.action === 'unchanged') continue;
    const level = r.action === 'rolled' ? 'info' : 'warn';
    ctx.logger?.[level](
      { mgmtNet: name, workload: r.workload, detail: r.detail },
      `controller list: workload ${r.action}`,
    );
  }
  await syncPortResources(ctx.kube, ctx.namespace, network, report.nodes);
  await writeStatus(ctx, network, { ...report.status, ...columns, configMap: configMap.metadata.name });
  await recordApplied(ctx, network, report.objects, cmAction);
  if (cmAction !== 'unchanged' && report.controllerListChanged) {
    const message = `controller_ip_port_list is now ${list.join(', ')}: health managers and workers must reload`;
    await ctx.events?.record(network, 'Normal', 'ControllerListChanged', message);
  }
}

/** An `Applied` Event when the pass changed something: "created 3 (port…), updated 1 (subnet…)". */
async function recordApplied(
  ctx: ReconcileContext,
  network: NetworkObject,
  objects: readonly { kind: string; action: string }[],
  cmAction: string,
): Promise<void> {
  const changes = new Map<string, string[]>();
  for (const o of objects.filter((x) => x.action !== 'unchanged')) {
    changes.set(o.action, [...(changes.get(o.action) ?? []), o.kind]);
  }
  if (cmAction !== 'unchanged') changes.set(cmAction, [...(changes.get(cmAction) ?? []), 'ConfigMap']);
  if (changes.size === 0) return;
  const parts = [...changes].map(([action, kinds]) => `${action} ${kinds.length} (${[...new Set(kinds)].join(', ')})`);
  await ctx.events?.record(network, 'Normal', 'Applied', parts.join('; '));
}

/** What the operator's three watches share. */
interface Watches {
  readonly options: OperatorOptions;
  /** The networks as last seen, by name. */
  readonly known: Map<string, NetworkObject>;
  /** Node name → its labels (canonical JSON), to tell a label change from a kubelet heartbeat. */
  readonly nodeLabels: Map<string, string>;
  /** The generation last handed to the queue: status-only updates (our own writes) are skipped. */
  readonly queuedGeneration: Map<string, number | undefined>;
  enqueue(object: KubeObject): void;
}

/** What every watch of the operator is given. */
const watching = ({ options }: Watches) => ({ client: options.kube, signal: options.signal, logger: options.logger });

/** The networks: a new generation, a deletion or a missing finalizer is worth a reconcile. */
function watchNetworks(w: Watches): Promise<void> {
  return runWatchLoop<NetworkObject>({
    ...watching(w),
    type: NETWORKS,
    namespace: w.options.namespace,
    onSync: (items) => {
      w.known.clear();
      for (const item of items) {
        w.known.set(item.metadata.name, item);
        w.enqueue(item);
      }
    },
    onEvent: ({ type, object }) => {
      if (type === 'DELETED') {
        w.known.delete(object.metadata.name);
        return;
      }
      w.known.set(object.metadata.name, object);
      const sameGeneration = w.queuedGeneration.get(object.metadata.name) === object.metadata.generation;
      const needsWork =
        type === 'ADDED' ||
        !sameGeneration ||
        object.metadata.deletionTimestamp !== undefined ||
        !object.metadata.finalizers?.includes(FINALIZER);
      if (needsWork) w.enqueue(object);
    },
  });
}

/**
 * Node labels decide the node set of nodeSelector networks. Kubelets update their Node every few
 * seconds (heartbeats, conditions): only a change of labels, or a node coming or going, is worth a
 * reconcile.
 */
function watchNodes(w: Watches): Promise<void> {
  const withSelector = () => [...w.known.values()].filter((n) => n.spec?.nodeSelector !== undefined);
  return runWatchLoop<KubeObject>({
    ...watching(w),
    type: NODES,
    onSync: (items) => {
      w.nodeLabels.clear();
      for (const n of items) w.nodeLabels.set(n.metadata.name, canonicalJson(n.metadata.labels ?? {}));
      withSelector().forEach((n) => w.enqueue(n));
    },
    onEvent: ({ type, object }) => {
      const labels = canonicalJson(object.metadata.labels ?? {});
      const before = w.nodeLabels.get(object.metadata.name);
      if (type === 'DELETED') w.nodeLabels.delete(object.metadata.name);
      else w.nodeLabels.set(object.metadata.name, labels);
      if (type === 'MODIFIED' && before === labels && !object.metadata.deletionTimestamp) return;
      withSelector().forEach((n) => w.enqueue(n));
    },
  });
}

/** A node agent's status write means Neutron changed (binding host, ACTIVE): refresh the network. */
function watchPorts(w: Watches): Promise<void> {
  return runWatchLoop<PortObject>({
    ...watching(w),
    type: PORTS,
    namespace: w.options.namespace,
    onSync: () => undefined,
    onEvent: ({ object }) => {
      const owner = w.known.get(object.spec?.network);
      if (owner) w.enqueue(owner);
    },
  });
}

/** Runs until the signal aborts. */
export async function runOperator(options: OperatorOptions): Promise<void> {
  const { kube, namespace, logger } = options;
  const events = new EventRecorder(kube, 'octonet-operator', options.identity ?? hostname(), logger);
  const ctx: ReconcileContext = {
    kube,
    namespace,
    neutron: options.neutron,
    logger,
    events,
    ...(options.rollWorkloads ? { rollWorkloads: options.rollWorkloads } : {}),
  };
  const queue: WorkQueue = new WorkQueue({
    work: async (name: string): Promise<void> => {
      try {
        await reconcileNetwork(ctx, name);
      } catch (error) {
        // Someone else wrote in between: not a failure, just look again.
        if (isConflict(error)) return queue.add(name);
        throw error;
      }
    },
    onError: (name, error) =>
      logger?.warn({ mgmtNet: name, err: (error as Error).message }, 'reconcile failed; retrying'),
    baseDelayMs: options.retryDelayMs ?? 1000,
  });
  const queuedGeneration = new Map<string, number | undefined>();
  const w: Watches = {
    options,
    known: new Map(),
    nodeLabels: new Map(),
    queuedGeneration,
    enqueue: (object) => {
      queuedGeneration.set(object.metadata.name, object.metadata.generation);
      queue.add(object.metadata.name);
    },
  };
  const resync = setInterval(() => [...w.known.values()].forEach((n) => w.enqueue(n)), options.resyncMs ?? 60_000);
  resync.unref();
  try {
    await Promise.all([watchNetworks(w), watchNodes(w), watchPorts(w)]);
  } finally {
    clearInterval(resync);
    queue.stop();
  }
}
