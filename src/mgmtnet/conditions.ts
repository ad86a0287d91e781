/**
 * The one condition model of the management network, Kubernetes style: `type`, `status`, a
 * CamelCase `reason`, a `message`, `observedGeneration` and `lastTransitionTime`. Two owners use it
 * with their own `Ready` rule:
 * - the network's status (reconcile.ts): `NetworkReady`, `SecurityGroupsReady`, `RouterReady`,
 *   `PortsReady`, `PortsBound`, and `Ready` summarising the first four (`networkReady`);
 * - a node's status (the node agent): `PortBound`, `Plugged`, `Addressed`, `HeartbeatPathOpen`, and
 *   `Ready` (`nodeConditions`).
 * A condition keeps its `lastTransitionTime` while its status stays the same, so repeated passes
 * do not churn.
 */
export type ConditionStatus = 'True' | 'False' | 'Unknown';

export interface Condition {
  readonly type: string;
  readonly status: ConditionStatus;
  /** CamelCase, machine-readable. */
  readonly reason: string;
  readonly message: string;
  readonly observedGeneration?: number;
  readonly lastTransitionTime: string;
}

export type ConditionInput = Omit<Condition, 'lastTransitionTime' | 'observedGeneration'>;

/** What one check found, before it is named by a condition type. */
export type Finding = Omit<ConditionInput, 'type'>;

export function condition(type: string, ok: boolean, reason: string, message: string): ConditionInput {
  return { type, status: ok ? 'True' : 'False', reason, message };
}

export function finding(status: ConditionStatus, reason: string, message: string): Finding {
  return { status, reason, message };
}

/** The conditions with `next` applied; transition time kept when the status did not change. */
export function mergeConditions(
  previous: readonly Condition[] | undefined,
  next: readonly ConditionInput[],
  now: Date,
  generation?: number,
): Condition[] {
  return next.map((c) => {
    const before = previous?.find((p) => p.type === c.type);
    return {
      ...c,
      ...(generation !== undefined ? { observedGeneration: generation } : {}),
      lastTransitionTime: before && before.status === c.status ? before.lastTransitionTime : now.toISOString(),
    };
  });
}

/** The network's `Ready`: all the steps that gate it True → True; any False → False, else Unknown. */
export function networkReady(parts: readonly ConditionInput[]): ConditionInput {
  const failing = parts.filter((p) => p.status !== 'True');
  if (failing.length === 0) {
    return { type: 'Ready', status: 'True', reason: 'Reconciled', message: 'the management network is in place' };
  }
  const first = failing[0]!;
  return {
    type: 'Ready',
    status: failing.some((f) => f.status === 'False') ? 'False' : 'Unknown',
    reason: `${first.type.replace(/Ready$/, '')}NotReady`,
    message: failing.map((f) => `${f.type}: ${f.message}`).join('; '),
  };
}

export const NODE_CONDITION_TYPES = ['PortBound', 'Plugged', 'Addressed', 'HeartbeatPathOpen'] as const;
export type NodeConditionType = (typeof NODE_CONDITION_TYPES)[number];

/**
 * A node's list: `Ready` first, then the four. `Ready` is the first three True and the probe not
 * False: a lone controller with no peer and no router has nothing to probe (Unknown), which must
 * not keep it unready forever. Its reason is the first blocking condition's.
 */
export function nodeConditions(
  found: Readonly<Record<NodeConditionType, Finding>>,
  previous: readonly Condition[] = [],
  now = new Date(),
): Condition[] {
  const list = NODE_CONDITION_TYPES.map((type): ConditionInput => ({ type, ...found[type] }));
  const blocking = list.filter(
    (c) => c.status === 'False' || (c.status === 'Unknown' && c.type !== 'HeartbeatPathOpen'),
  );
  const ready: ConditionInput =
    blocking.length === 0
      ? {
          type: 'Ready',
          status: 'True',
          reason: 'AllConditionsTrue',
          message: 'the port is bound, plugged and addressed, and no probe failed',
        }
      : {
          type: 'Ready',
          status: 'False',
          reason: blocking[0]!.reason,
          message: blocking.map((c) => `${c.type}: ${c.message}`).join('; '),
        };
  return mergeConditions(previous, [ready, ...list], now);
}
