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

interface WorkloadStatus {
  observedGeneration?: number;
  replicas?: number;
  updatedReplicas?: number;
  availableReplicas?: number;
  readyReplicas?: number;
  currentRevision?: string;
  updateRevision?: string;
  desiredNumberScheduled?: number;
  updatedNumberScheduled?: number;
  numberAvailable?: number;
}

interface RolledWorkload extends Workload {
  spec?: Workload['spec'] & { replicas?: number };
  status?: WorkloadStatus;
}

/** Why the workload's rollout is not complete, as `kubectl rollout status` judges it; undefined when it is. */
function rolloutPending(kind: string, w: RolledWorkload): string | undefined {
  const s = w.status ?? {};
  if ((s.observedGeneration ?? 0) < (w.metadata.generation ?? 1)) return 'its controller has not seen the new template';
  if (kind === 'DaemonSet') {
    const desired = s.desiredNumberScheduled ?? 0;
    if ((s.updatedNumberScheduled ?? 0) < desired) return `${s.updatedNumberScheduled ?? 0} of ${desired} pods updated`;
    if ((s.numberAvailable ?? 0) < desired) return `${s.numberAvailable ?? 0} of ${desired} updated pods available`;
    return undefined;
  }
  const desired = w.spec?.replicas ?? 1;
  if ((s.updatedReplicas ?? 0) < desired) return `${s.updatedReplicas ?? 0} of ${desired} pods updated`;
  if (kind === 'StatefulSet') {
    if ((s.readyReplicas ?? 0) < desired) return `${s.readyReplicas ?? 0} of ${desired} pods ready`;
    if (s.updateRevision !== s.currentRevision) return 'pods of the old revision remain';
    return undefined;
  }
  if ((s.replicas ?? 0) > (s.updatedReplicas ?? 0))
    return `${(s.replicas ?? 0) - (s.updatedReplicas ?? 0)} old pods remain`;
  if ((s.availableReplicas ?? 0) < desired) return `${s.availableReplicas ?? 0} of ${desired} updated pods available`;
  return undefined;
}

export interface RolloutCheck {
  readonly ready: boolean;
  /** The first workload that is not there yet, and why. */
  readonly detail: string;
}

/**
 * Whether every workload runs only pods made from a template that carries `network`'s `list`:
 * the annotation holds the list (the operator wrote it) and the rollout of that generation is
 * complete. Only then do the workers know the list (their config is read at start), so only then
 * is an amphora push sure to hand the amphorae the new list.
 */
export async function workloadsRolledOut(
  kube: KubeClient,
  namespace: string,
  workloads: readonly WorkloadRef[],
  network: string,
  list: readonly string[],
): Promise<RolloutCheck> {
  const key = controllerListAnnotation(network);
  for (const { type, name } of workloads) {
    const workload = `${type.kind.toLowerCase()}/${name}`;
    let current: RolledWorkload | null;
    try {
      current = await kube.get<RolledWorkload>(type, namespace, name);
    } catch (error) {
      return { ready: false, detail: `${workload}: ${(error as Error).message}` };
    }
    if (current === null) return { ready: false, detail: `${workload} not found in ${namespace}` };
    if (current.spec?.template?.metadata?.annotations?.[key] !== list.join(', ')) {
      return { ready: false, detail: `${workload}: its pod template does not carry this list yet (${key})` };
    }
    const pending = rolloutPending(type.kind, current);
    if (pending !== undefined) return { ready: false, detail: `${workload}: rollout in progress, ${pending}` };
  }
  return { ready: true, detail: `${workloads.length} workloads rolled out with this list` };
}
