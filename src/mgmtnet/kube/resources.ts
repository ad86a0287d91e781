/**
 * The Kubernetes resource types the adapter reads and writes, their names, labels and the shapes
 * of our two custom resources as stored (not validated: the spec is validated by spec.ts's
 * `validateSpec`; the per-node port resource is written only by the operator).
 */
import type { MgmtNetStatus } from '../reconcile.js';
import type { KubeObject, ResourceType } from './client.js';

export const GROUP = 'octonet.dev';
export const VERSION = 'v1';

export const NETWORKS: ResourceType = {
  group: GROUP,
  version: VERSION,
  plural: 'octaviamanagementnetworks',
  kind: 'OctaviaManagementNetwork',
  namespaced: true,
};

/** One per (network, node), like YAOOK's OctaviaNeutronPort: the node agent's work order. */
export const PORTS: ResourceType = {
  group: GROUP,
  version: VERSION,
  plural: 'octaviamanagementports',
  kind: 'OctaviaManagementPort',
  namespaced: true,
};

export const NODES: ResourceType = { group: '', version: 'v1', plural: 'nodes', kind: 'Node', namespaced: false };
export const CONFIGMAPS: ResourceType = {
  group: '',
  version: 'v1',
  plural: 'configmaps',
  kind: 'ConfigMap',
  namespaced: true,
};
export const SECRETS: ResourceType = { group: '', version: 'v1', plural: 'secrets', kind: 'Secret', namespaced: true };

/** Held on a network until its Neutron objects are gone. */
export const FINALIZER = 'octonet.dev/neutron-cleanup';
/** On a port resource: the network it belongs to, and its node (the agent selects on this). */
export const NETWORK_LABEL = 'octonet.dev/mgmt-net';
export const NODE_LABEL = 'octonet.dev/node';

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  observedGeneration?: number;
  lastTransitionTime: string;
}

/** The status the operator writes: the reconciler's (conditions, IDs, nodes, Octavia options) plus columns. */
export type NetworkStatus = Partial<MgmtNetStatus> & {
  topology?: string;
  /** "active/total" node ports, the printer column. */
  nodesReady?: string;
  /** The ConfigMap holding the rendered Octavia options. */
  configMap?: string;
};

export interface NetworkObject extends KubeObject {
  spec: Record<string, unknown>;
  status?: NetworkStatus;
}

export interface PortSpec {
  /** metadata.name of the OctaviaManagementNetwork in the same namespace. */
  network: string;
  /** Kubernetes node name. */
  node: string;
}

export interface PortStatus {
  portId?: string;
  mac?: string;
  fixedIps?: string[];
  chassis?: string;
  /** Written by the node agent: PortBound, Plugged, Addressed, HeartbeatPathOpen, Ready. */
  conditions?: Condition[];
  observedGeneration?: number;
}

export interface PortObject extends KubeObject {
  spec: PortSpec;
  status?: PortStatus;
}

/**
 * Kubernetes names are DNS labels/subdomains; node names are subdomains (may hold dots), so the
 * port resource name joins them with a dash and stays within 253 characters.
 */
export function portResourceName(network: string, node: string): string {
  return `${network}-${node}`.slice(0, 253);
}

export function configMapName(network: string): string {
  return `${network}-octavia-config`;
}

export function heartbeatSecretName(network: string): string {
  return `${network}-heartbeat-key`;
}
