/**
 * The node's conditions, Kubernetes style (`type`, `status`, CamelCase `reason`, `message`,
 * `lastTransitionTime`): PortBound (Neutron says ACTIVE, bound to this chassis), Plugged (the OVS
 * interface exists, is ours and ovn-controller installed its flows), Addressed (the link has the
 * port's MAC, MTU, addresses and routes) and HeartbeatPathOpen (an active probe answered).
 * `Ready` is the first three True and the probe not False: a lone controller with no peer and no
 * router has nothing to probe (Unknown), which must not keep it unready forever. A transition time
 * moves only when the status changes.
 */

export type ConditionStatus = 'True' | 'False' | 'Unknown';

export const CONDITION_TYPES = ['PortBound', 'Plugged', 'Addressed', 'HeartbeatPathOpen'] as const;
export type NodeConditionType = (typeof CONDITION_TYPES)[number] | 'Ready';

export interface NodeCondition {
  type: NodeConditionType;
  status: ConditionStatus;
  reason: string;
  message: string;
  lastTransitionTime: string;
}

export type ConditionInput = Omit<NodeCondition, 'lastTransitionTime' | 'type'>;

/** Builds the list (the four plus Ready), keeping each transition time from `previous` while the status holds. */
export function buildConditions(
  found: Record<(typeof CONDITION_TYPES)[number], ConditionInput>,
  previous: readonly NodeCondition[] = [],
  now = new Date(),
): NodeCondition[] {
  const stamp = (type: NodeConditionType, input: ConditionInput): NodeCondition => {
    const before = previous.find((c) => c.type === type);
    const lastTransitionTime = before && before.status === input.status ? before.lastTransitionTime : now.toISOString();
    return { type, ...input, lastTransitionTime };
  };
  const list = CONDITION_TYPES.map((type) => stamp(type, found[type]));
  const notTrue = list.filter(
    (c) => c.status === 'False' || (c.status === 'Unknown' && c.type !== 'HeartbeatPathOpen'),
  );
  const ready: ConditionInput =
    notTrue.length === 0
      ? {
          status: 'True',
          reason: 'AllConditionsTrue',
          message: 'the port is bound, plugged and addressed, and no probe failed',
        }
      : {
          status: 'False',
          reason: notTrue[0]!.reason,
          message: notTrue.map((c) => `${c.type}: ${c.message}`).join('; '),
        };
  return [stamp('Ready', ready), ...list];
}
