/**
 * Kubernetes-style conditions for the management network: `Ready` plus the specific ones
 * (`NetworkReady`, `SecurityGroupsReady`, `RouterReady`, `PortsReady`, `PortsBound`). A condition
 * keeps its `lastTransitionTime` while its status stays the same, so repeated passes do not churn.
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

/** `Ready` summarises the others that gate it: all True → True; any False → False. */
export function readyCondition(parts: readonly ConditionInput[]): ConditionInput {
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

export function condition(type: string, ok: boolean, reason: string, message: string): ConditionInput {
  return { type, status: ok ? 'True' : 'False', reason, message };
}
