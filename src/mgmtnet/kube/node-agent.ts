/**
 * The node agent driven by Kubernetes (the DaemonSet): for its own node (NODE_NAME from the
 * downward API) it watches the OctaviaManagementPort resources labelled for that node, runs the
 * node agent's pass (`runNodeAgentPass`: all plugging logic lives there) for each network they
 * name, and writes the pass's conditions and the chassis it read from OVS into the resource's
 * status (a merge patch of the fields the agent owns; the operator owns portId/mac/fixedIps).
 * When a resource goes away, it runs the pass once more so the interface is unplugged (the
 * operator deletes the Neutron port first, so the pass finds no port and removes the interface).
 * A change in the node's OVS Interface table (an `ovsdb-client monitor`) and a periodic pass repair what changes
 * outside Kubernetes (a reboot, an OVS restart, MAC drift); a pass whose change is still settling
 * asks to be requeued, and the queue runs it again after the delay it names.
 */
import type { Logger } from 'pino';
import {
  runNodeAgentPass,
  type NodeAgentLog,
  type NodeAgentNeutron,
  type NodeAgentReport,
  type NodeAgentSpec,
  type NodeHost,
} from '../node-agent/index.js';
import { watchOvsInterfaces } from '../node-agent/ovs-watch.js';
import { isNotFound, type KubeClient } from './client.js';
import { canonicalJson } from './owned-objects.js';
import { NETWORKS, NODE_LABEL, PORTS, type NetworkObject, type PortObject } from './resources.js';
import { runWatchLoop } from './watch-loop.js';
import { WorkQueue } from './work-queue.js';

export interface KubeNodeAgentOptions {
  kube: KubeClient;
  namespace: string;
  /** This node's Kubernetes name (the port resources' `octonet.dev/node` label). */
  node: string;
  neutron: NodeAgentNeutron;
  /** Where OVS and ip commands run: `[]` on the node itself (hostNetwork pod). */
  host: NodeHost | readonly string[];
  signal: AbortSignal;
  logger?: Logger;
  /** Time between repair passes. Default 30 s. */
  intervalMs?: number;
  /** Run the active heartbeat-path probe. Default true. */
  probe?: boolean;
  /**
   * Pass at once when the node's OVS Interface table changes (an `ovsdb-client monitor`, where
   * the host prefix runs commands). Default true when `host` is a prefix; a runner function
   * cannot start a long-running monitor, so there the timer alone repairs.
   */
  watchOvs?: boolean;
}

/** What the agent writes into a port resource's status. */
function agentStatus(report: NodeAgentReport, generation: number | undefined) {
  return {
    ...(report.chassis ? { chassis: report.chassis } : {}),
    conditions: report.conditions,
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
  };
}

/** What the agent keeps between passes, per network name. */
interface AgentState {
  readonly options: KubeNodeAgentOptions;
  /** Port resources of this node, by network name. */
  readonly resources: Map<string, PortObject>;
  /** Networks served before, with the spec last used: needed to unplug after the resource is gone. */
  readonly served: Map<string, NodeAgentSpec>;
  readonly previous: Map<string, NodeAgentReport>;
  readonly log: NodeAgentLog;
  readonly queue: WorkQueue;
}

/** The spec the pass reads: the network's, else the one last served (its resource is gone). */
async function specFor(state: AgentState, network: string): Promise<NodeAgentSpec> {
  const { kube, namespace } = state.options;
  if (state.resources.has(network)) {
    const owner = await kube.get<NetworkObject>(NETWORKS, namespace, network);
    // Only what the pass reads (name, interface, topology): the operator has validated the rest.
    if (owner) return { metadata: { name: network }, spec: { ...owner.spec } };
  }
  return state.served.get(network) ?? { metadata: { name: network }, spec: {} };
}

/** One pass for `network`, and its conditions written into the port resource's status. */
async function passFor(state: AgentState, network: string): Promise<void> {
  const { options, resources, served, previous } = state;
  const { kube, namespace } = options;
  const resource = resources.get(network);
  const spec = await specFor(state, network);
  const report = await runNodeAgentPass({
    client: options.neutron,
    spec,
    node: options.node,
    host: options.host,
    log: state.log,
    probe: options.probe ?? true,
    previous: previous.get(network),
  });
  previous.set(network, report);
  // A change still settling (the port not yet ACTIVE): the pass asks to run again soon.
  if (report.requeue) state.queue.addAfter(network, report.requeue.afterMs);
  if (!resource) {
    // Gone from Kubernetes: forget the network once a complete pass found no port (and so
    // unplugged). A pass that could not even reach OVS proves nothing: the timer tries again.
    const unplugged = report.conditions.some((c) => c.type === 'Plugged' && c.reason === 'PortNotFound');
    if (unplugged) {
      served.delete(network);
      previous.delete(network);
    }
    return;
  }
  served.set(network, spec);
  const status = agentStatus(report, resource.metadata.generation);
  const current = resource.status ?? {};
  const changed = (Object.keys(status) as (keyof typeof status)[]).some(
    (k) => canonicalJson(current[k]) !== canonicalJson(status[k]),
  );
  if (!changed) return;
  try {
    const written = await kube.mergePatch<PortObject>(PORTS, namespace, resource.metadata.name, { status }, 'status');
    resources.set(network, written);
  } catch (error) {
    // Deleted while the pass ran: the DELETED event queues the unplugging pass.
    if (!isNotFound(error)) throw error;
  }
}

export async function runKubeNodeAgent(options: KubeNodeAgentOptions): Promise<void> {
  const { kube, namespace, node, signal, logger } = options;
  const log: NodeAgentLog = {
    info: (fields: object, message: string) => logger?.info({ node, ...fields }, message),
    warn: (fields: object, message: string) => logger?.warn({ node, ...fields }, message),
  };
  const state: AgentState = {
    options,
    resources: new Map(),
    served: new Map(),
    previous: new Map(),
    log,
    queue: new WorkQueue({
      work: (network) => passFor(state, network),
      onError: (network, error) =>
        log.warn({ mgmtNet: network, err: (error as Error).message }, 'pass failed; retrying'),
      baseDelayMs: 1000,
    }),
  };
  const { resources, served, queue } = state;
  const networkOf = (p: PortObject) => p.spec?.network;
  const all = () => new Set([...resources.keys(), ...served.keys()]).forEach((n) => queue.add(n));

  const interval = setInterval(all, options.intervalMs ?? 30_000);
  interval.unref();
  const ovs =
    Array.isArray(options.host) && options.watchOvs !== false
      ? watchOvsInterfaces(options.host as readonly string[], all)
      : undefined;
  try {
    await runWatchLoop<PortObject>({
      client: kube,
      type: PORTS,
      namespace,
      labelSelector: `${NODE_LABEL}=${node}`,
      signal,
      logger,
      onSync: (items) => {
        const before = new Set(resources.keys());
        resources.clear();
        for (const item of items) if (networkOf(item)) resources.set(networkOf(item), item);
        for (const network of new Set([...before, ...resources.keys(), ...served.keys()])) queue.add(network);
      },
      onEvent: ({ type, object }) => {
        const network = networkOf(object);
        if (!network) return;
        if (type === 'DELETED') resources.delete(network);
        else {
          const known = resources.get(network);
          resources.set(network, object);
          // Our own status write comes back as MODIFIED: no new pass for that.
          if (known && known.metadata.generation === object.metadata.generation && type === 'MODIFIED') return;
        }
        queue.add(network);
      },
    });
  } finally {
    clearInterval(interval);
    ovs?.stop();
    queue.stop();
  }
}
