/**
 * The Kubernetes objects the operator derives from one OctaviaManagementNetwork: the ConfigMap
 * with Octavia's rendered options, the heartbeat-key Secret, and one OctaviaManagementPort per
 * node. Each write helper is level-triggered and says what it did, and writes only on a difference
 * (a pass that finds everything in place makes no Kubernetes writes). Every object carries an
 * ownerReference to its network, so Kubernetes' garbage collector removes what the operator's
 * own cleanup might miss (a crash between the Neutron cleanup and these deletes).
 */
import { isConflict, type KubeClient, type KubeObject, type ObjectMeta } from './client.js';
import {
  CONFIGMAPS,
  NETWORK_LABEL,
  NODE_LABEL,
  PORTS,
  SECRETS,
  portResourceName,
  type NetworkObject,
  type PortObject,
  type PortStatus,
} from './resources.js';
import type { NodeReport } from '../reconcile.js';
import { generateHeartbeatKey } from '../octavia-config.js';

export type KubeAction = 'created' | 'updated' | 'unchanged' | 'deleted';

/** JSON with sorted keys: equal content compares equal whatever the key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

export function ownerReference(network: NetworkObject): NonNullable<ObjectMeta['ownerReferences']>[number] {
  return {
    apiVersion: network.apiVersion ?? 'octonet.dev/v1',
    kind: network.kind ?? 'OctaviaManagementNetwork',
    name: network.metadata.name,
    uid: network.metadata.uid ?? '',
    controller: true,
  };
}

interface DataObject extends KubeObject {
  data?: Record<string, string>;
}

/** Creates the ConfigMap, or replaces its data and labels when they differ. */
export async function applyConfigMap(
  kube: KubeClient,
  namespace: string,
  network: NetworkObject,
  desired: { metadata: { name: string; labels: Record<string, string> }; data: Record<string, string> },
): Promise<KubeAction> {
  const existing = await kube.get<DataObject>(CONFIGMAPS, namespace, desired.metadata.name);
  const metadata: ObjectMeta = {
    name: desired.metadata.name,
    labels: desired.metadata.labels,
    ownerReferences: [ownerReference(network)],
  };
  if (!existing) {
    await kube.create(CONFIGMAPS, namespace, { metadata, data: desired.data });
    return 'created';
  }
  const same =
    canonicalJson(existing.data ?? {}) === canonicalJson(desired.data) &&
    canonicalJson(existing.metadata.labels ?? {}) === canonicalJson(desired.metadata.labels);
  if (same) return 'unchanged';
  await kube.replace(CONFIGMAPS, namespace, {
    ...existing,
    metadata: { ...existing.metadata, labels: desired.metadata.labels },
    data: desired.data,
  });
  return 'updated';
}

/**
 * The heartbeat key Secret: created with a generated key when missing (never a fixed value). To
 * rotate, delete the Secret (or its key): the next pass generates a new one. The key itself is
 * never logged nor written to a status.
 */
export async function ensureHeartbeatSecret(
  kube: KubeClient,
  namespace: string,
  network: NetworkObject,
  name: string,
  key: string,
): Promise<KubeAction> {
  const existing = await kube.get<DataObject>(SECRETS, namespace, name);
  if (existing?.data?.[key]) return 'unchanged';
  const value = Buffer.from(generateHeartbeatKey()).toString('base64');
  if (!existing) {
    try {
      await kube.create(SECRETS, namespace, {
        metadata: {
          name,
          labels: { [NETWORK_LABEL]: network.metadata.name },
          ownerReferences: [ownerReference(network)],
        },
        type: 'Opaque',
        data: { [key]: value },
      });
    } catch (error) {
      // Another pass made it between our read and our create (a second replica, or a pass
      // started by hand beside the running operator): its key stands, as for any existing one.
      if (!isConflict(error)) throw error;
      return 'unchanged';
    }
    return 'created';
  }
  await kube.replace(SECRETS, namespace, { ...existing, data: { ...existing.data, [key]: value } });
  return 'updated';
}

/** The port resource's status as the operator knows it from Neutron (the agent adds conditions). */
function portStatusFrom(node: NodeReport): PortStatus {
  return {
    ...(node.portId ? { portId: node.portId } : {}),
    ...(node.mac ? { mac: node.mac } : {}),
    fixedIps: [...node.fixedIps],
    ...(node.chassis ? { chassis: node.chassis } : {}),
  };
}

/**
 * One OctaviaManagementPort per node of the report, and none for any other node: creates the
 * missing, updates the status fields the operator owns, deletes those of nodes that left.
 */
export async function syncPortResources(
  kube: KubeClient,
  namespace: string,
  network: NetworkObject,
  nodes: readonly NodeReport[],
): Promise<{ node: string; action: KubeAction }[]> {
  const name = network.metadata.name;
  const existing = (await kube.list<PortObject>(PORTS, namespace, { labelSelector: `${NETWORK_LABEL}=${name}` })).items;
  const done: { node: string; action: KubeAction }[] = [];
  for (const node of nodes) {
    const resourceName = portResourceName(name, node.name);
    let current = existing.find((p) => p.metadata.name === resourceName) ?? null;
    let action: KubeAction = 'unchanged';
    if (!current) {
      try {
        current = await kube.create<PortObject>(PORTS, namespace, {
          metadata: {
            name: resourceName,
            labels: { [NETWORK_LABEL]: name, [NODE_LABEL]: node.name },
            ownerReferences: [ownerReference(network)],
          },
          spec: { network: name, node: node.name },
        });
        action = 'created';
      } catch (error) {
        // Another writer got there first: fine, it is the same object; the next pass checks it.
        if (!isConflict(error)) throw error;
        continue;
      }
    }
    const want = portStatusFrom(node);
    const have = current.status ?? {};
    const differs = (Object.keys(want) as (keyof PortStatus)[]).some(
      (k) => canonicalJson(have[k]) !== canonicalJson(want[k]),
    );
    if (differs) {
      await kube.mergePatch(PORTS, namespace, resourceName, { status: want }, 'status');
      if (action === 'unchanged') action = 'updated';
    }
    done.push({ node: node.name, action });
  }
  const keep = new Set(nodes.map((n) => portResourceName(name, n.name)));
  for (const stale of existing.filter((p) => !keep.has(p.metadata.name))) {
    await kube.delete(PORTS, namespace, stale.metadata.name);
    done.push({ node: stale.spec?.node ?? stale.metadata.name, action: 'deleted' });
  }
  return done;
}

/** Every port resource of the network, for the deletion path. */
export async function deletePortResources(kube: KubeClient, namespace: string, network: string): Promise<number> {
  const items = (await kube.list(PORTS, namespace, { labelSelector: `${NETWORK_LABEL}=${network}` })).items;
  for (const item of items) await kube.delete(PORTS, namespace, item.metadata.name);
  return items.length;
}
