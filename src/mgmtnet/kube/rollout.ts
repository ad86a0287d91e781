/**
 * Kubernetes: a new `controller_ip_port_list` reaches the running health managers and workers by a
 * rolling update of their workloads, not a SIGHUP. The list goes into a pod-template annotation
 * (what `kubectl rollout restart` does with a timestamp), so a changed list rolls the pods and an
 * unchanged one writes nothing. Each management network has its own annotation key
 * (`controller-list.octonet.dev/<network>`): two networks that wrote one key on the same workloads
 * would overwrite each other's list on every pass and roll the pods each time. Why not a signal (docs/mgmt-net.md): the kubelet refreshes a
 * mounted ConfigMap only after its sync period (never for a `subPath` mount), so a signal sent when
 * the ConfigMap changes re-reads the old file; and the node agent cannot see other pods' processes.
 * A missing workload is reported, never fatal: the operator's reconcile goes on.
 */
import type { KubeClient, KubeObject, ResourceType } from './client.js';

/** The single key older operators wrote for every network; removed when a network's own key is written. */
const SHARED_ANNOTATION = 'octonet.dev/controller-ip-port-list';

/**
 * The pod-template annotation holding `network`'s list. The network's name is a DNS label (the
 * reconciler refuses anything else), so it is a valid annotation name (at most 63 characters).
 */
export function controllerListAnnotation(network: string): string {
  return `controller-list.octonet.dev/${network}`;
}

const WORKLOAD_TYPES = {
  deployment: { group: 'apps', version: 'v1', plural: 'deployments', kind: 'Deployment', namespaced: true },
  daemonset: { group: 'apps', version: 'v1', plural: 'daemonsets', kind: 'DaemonSet', namespaced: true },
  statefulset: { group: 'apps', version: 'v1', plural: 'statefulsets', kind: 'StatefulSet', namespaced: true },
} as const satisfies Record<string, ResourceType>;

export interface WorkloadRef {
  readonly type: ResourceType;
  readonly name: string;
}

/** `daemonset/octavia-health-manager`, `deployment/octavia-worker`, `statefulset/...`. */
export function parseWorkloadRef(text: string): WorkloadRef {
  const [kind, name, ...rest] = text.split('/');
  const type = WORKLOAD_TYPES[kind?.toLowerCase() as keyof typeof WORKLOAD_TYPES] as ResourceType | undefined;
  if (!type || !name || rest.length > 0) {
    throw new Error(`"${text}": give deployment/<name>, daemonset/<name> or statefulset/<name>`);
  }
  return { type, name };
}

interface Workload extends KubeObject {
  spec?: { template?: { metadata?: { annotations?: Record<string, string> } } };
}

export interface RolloutResult {
  readonly workload: string;
  readonly action: 'rolled' | 'unchanged' | 'missing' | 'failed';
  readonly detail?: string;
}

/** Puts `network`'s `list` into each workload's pod-template annotation; the ones whose value changed roll. */
export async function rollWorkloads(
  kube: KubeClient,
  namespace: string,
  workloads: readonly WorkloadRef[],
  network: string,
  list: readonly string[],
): Promise<RolloutResult[]> {
  const key = controllerListAnnotation(network);
  const value = list.join(', ');
  const results: RolloutResult[] = [];
  for (const { type, name } of workloads) {
    const workload = `${type.kind.toLowerCase()}/${name}`;
    try {
      const current = await kube.get<Workload>(type, namespace, name);
      if (current === null) {
        results.push({ workload, action: 'missing' });
      } else if (current.spec?.template?.metadata?.annotations?.[key] === value) {
        results.push({ workload, action: 'unchanged' });
      } else {
        // The shared key goes in the same write (null deletes in a merge patch): this write rolls
        // the pods anyway, and a key nobody updates would only mislead.
        const annotations = { [key]: value, [SHARED_ANNOTATION]: null };
        const patch = { spec: { template: { metadata: { annotations } } } };
        await kube.mergePatch(type, namespace, name, patch);
        results.push({ workload, action: 'rolled' });
      }
    } catch (error) {
      results.push({ workload, action: 'failed', detail: (error as Error).message });
    }
  }
  return results;
}
