/**
 * The node agent driven by Kubernetes (the DaemonSet): for its own node (NODE_NAME from the
 * downward API) it watches the OctaviaManagementPort resources labelled for that node, runs the
 * node agent's pass (`runNodeAgentPass`: all plugging logic lives there) for each network they
 * name, and writes the pass's conditions and the chassis it read from OVS into the resource's
 * status (a merge patch of the fields the agent owns; the operator owns portId/mac/fixedIps).
 * When a resource goes away, it runs the pass once more so the interface is unplugged (the
 * operator deletes the Neutron port first, so the pass finds no port and removes the interface).
 * A change in the node's OVS Interface table (B's monitor) and a periodic pass repair what changes
 * outside Kubernetes (a reboot, an OVS restart, MAC drift).
 */
import type { Logger } from 'pino';
import {
  runNodeAgentPass,
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
export function agentStatus(report: NodeAgentReport, generation: number | undefined) {
  return {
    ...(report.chassis ? { chassis: report.chassis } : {}),
    conditions: report.conditions,
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
  };
}

export async function runKubeNodeAgent(options: KubeNodeAgentOptions): Promise<void> {
  const { kube, namespace, node, signal, logger } = options;
  /** Port resources of this node, by network name. */
  const resources = new Map<string, PortObject>();
  /** Networks served before, with the spec last used: needed to unplug after the resource is gone. */
  const served = new Map<string, NodeAgentSpec>();
  const previous = new Map<string, NodeAgentReport>();
  const log = {
    info: (fields: object, message: string) => logger?.info({ node, ...fields }, message),
    warn: (fields: object, message: string) => logger?.warn({ node, ...fields }, message),
  };

  async function pass(network: string): Promise<void> {
    const resource = resources.get(network);
    let spec = served.get(network);
    if (resource) {
      const owner = await kube.get<NetworkObject>(NETWORKS, namespace, network);
      // Only what the pass reads (name, interface, topology): the operator has validated the rest.
      if (owner) spec = { metadata: { name: network }, spec: { ...owner.spec } };
    }
    if (!spec) spec = { metadata: { name: network }, spec: {} };
    const report = await runNodeAgentPass({
      client: options.neutron,
      spec,
      node,
      host: options.host,
      log,
      probe: options.probe ?? true,
      previous: previous.get(network),
    });
    previous.set(network, report);
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

  const queue: WorkQueue = new WorkQueue({
    work: pass,
    onError: (network, error) => log.warn({ mgmtNet: network, err: (error as Error).message }, 'pass failed; retrying'),
    baseDelayMs: 1000,
  });
  const networkOf = (p: PortObject) => p.spec?.network;

  const interval = setInterval(
    () => new Set([...resources.keys(), ...served.keys()]).forEach((n) => queue.add(n)),
    options.intervalMs ?? 30_000,
  );
  interval.unref();
  const ovs =
    Array.isArray(options.host) && options.watchOvs !== false
      ? watchOvsInterfaces(options.host as readonly string[], () =>
          new Set([...resources.keys(), ...served.keys()]).forEach((n) => queue.add(n)),
        )
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
