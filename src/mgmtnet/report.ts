/**
 * The shapes the management-network reconcile reports: what it did to each object, per-node ports,
 * the status (stored IDs, conditions, Octavia options). Shared by the reconcile, the cleanup, the CLI
 * and the Kubernetes adapter; re-exported by reconcile.ts.
 */
import type { OctaviaOptions } from './octavia-config.js';
import type { Condition } from './conditions.js';

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
  /** `binding:host_id` as Neutron has it (empty until `apply` (a pinned chassis) or the node agent sets it). */
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
