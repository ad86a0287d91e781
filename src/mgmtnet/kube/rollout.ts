/**
 * Kubernetes: a new `controller_ip_port_list` reaches the running health managers and workers by a
 * rolling update of their workloads, not a SIGHUP. The list goes into a pod-template annotation
 * (what `kubectl rollout restart` does with a timestamp), so a changed list rolls the pods and an
 * unchanged one writes nothing. Why not a signal (docs/mgmt-net.md): the kubelet refreshes a
 * mounted ConfigMap only after its sync period (never for a `subPath` mount), so a signal sent when
 * the ConfigMap changes re-reads the old file; and the node agent cannot see other pods' processes.
 * A missing workload is reported, never fatal: the operator's reconcile goes on.
 */
import type { KubeClient, KubeObject, ResourceType } from './client.js';

export const CONTROLLER_LIST_ANNOTATION = 'octonet.dev/controller-ip-port-list';

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

/** Puts `list` into each workload's pod-template annotation; the ones whose value changed roll. */
export async function rollWorkloads(
  kube: KubeClient,
  namespace: string,
  workloads: readonly WorkloadRef[],
  list: readonly string[],
): Promise<RolloutResult[]> {
  const value = list.join(', ');
  const results: RolloutResult[] = [];
  for (const { type, name } of workloads) {
    const workload = `${type.kind.toLowerCase()}/${name}`;
    try {
      const current = await kube.get<Workload>(type, namespace, name);
      if (current === null) {
        results.push({ workload, action: 'missing' });
      } else if (current.spec?.template?.metadata?.annotations?.[CONTROLLER_LIST_ANNOTATION] === value) {
        results.push({ workload, action: 'unchanged' });
      } else {
        const patch = { spec: { template: { metadata: { annotations: { [CONTROLLER_LIST_ANNOTATION]: value } } } } };
        await kube.mergePatch(type, namespace, name, patch);
        results.push({ workload, action: 'rolled' });
      }
    } catch (error) {
      results.push({ workload, action: 'failed', detail: (error as Error).message });
    }
  }
  return results;
}
